// One measurement under the run's two watchers: the noise guard (the baseline beside it ran
// slower than usual: measure again, a few times) and the contention monitor (record whether
// the machine was busy during it; with --wait-quiet, wait for quiet and measure again).
// HostMeasurer measures every candidate through it; tests drive it with a synthetic clock.
#pragma once

#include <functional>

#include "measure/contention.hpp"
#include "tune/noise_guard.hpp"

namespace csumtune::tuner {

// `attempt` measures once and returns the baseline's figure; `afterAttempt` (optional) runs
// after each one (an interrupt check may throw from it). Returns the number of attempts; the
// last attempt's figures are the ones kept.
int measureWatched(NoiseGuard& guard, ContentionMonitor* monitor,
                   const std::function<double()>& attempt,
                   const std::function<void()>& afterAttempt = {});

}  // namespace csumtune::tuner
