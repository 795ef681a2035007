// One way to turn what is measured into a TimedKernel, summing or copying alike: a baseline
// (a copying one when it has a copyFn) or a compiled kernel (copying when kind=copy).
#pragma once

#include <string>

#include "csumtune/jit.hpp"
#include "measure/baselines.hpp"
#include "measure/harness.hpp"

namespace csumtune::tuner {

TimedKernel timedBaseline(const Baseline& baseline);

// `name` shown in tables (the canonical params when empty); the kernel must outlive the
// measurement.
TimedKernel timedKernel(const Kernel& kernel, std::string name = {});

}  // namespace csumtune::tuner
