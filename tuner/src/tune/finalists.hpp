// The end of a search, measured: the best few candidates again, longer, interleaved with the
// baseline, linux-v6.8 (speedup with a confidence interval, or plainly not significantly
// faster), and the winner across lengths.
#pragma once

#include <vector>

#include "measure/baselines.hpp"
#include "measure/harness.hpp"
#include "search/profile.hpp"
#include "tune/finalist_results.hpp"
#include "tune/measure_settings.hpp"

namespace csumtune::tuner {

// `addresses` (optional): the baseline's code is movable, and every kernel is timed at the
// addresses each round draws (measure/shared_addresses.hpp).

// Re-measures the finalists and the baseline together; sorted best (lowest score) first.
std::vector<FinalistResult> remeasureFinalists(const std::vector<Evaluation>& finalists,
                                               const Baseline& baseline, const Profile& profile,
                                               Timer& timer, Workload& workload,
                                               const FinalSettings& settings,
                                               const ProgressFn& progress = {},
                                               RoundGate* gate = nullptr,
                                               SharedAddresses* addresses = nullptr);

// The lengths the winner is compared with the baseline at: every length 1..256 (the short
// path's whole range and more), then steps to 64 KiB.
std::vector<int> sweepSizes();

// Winner and baseline interleaved across sweepSizes() (those the workload can hold), and in
// the same rounds the baseline at each of its placements (`placed`, may be empty).
std::vector<SweepPoint> sweepLengths(const gen::Params& winner, const Baseline& baseline,
                                     Timer& timer, Workload& workload, int repeat,
                                     const ProgressFn& progress = {}, RoundGate* gate = nullptr,
                                     const std::vector<Baseline>& placed = {},
                                     SharedAddresses* addresses = nullptr);

}  // namespace csumtune::tuner
