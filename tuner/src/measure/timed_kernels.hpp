// One way to turn what is measured into a TimedKernel, summing or copying alike: a baseline
// (a copying one when it has a copyFn) or a compiled kernel (copying when kind=copy).
#pragma once

#include <string>

#include "csumtune/jit.hpp"
#include "measure/baselines.hpp"
#include "measure/harness.hpp"

namespace csumtune::tuner {

// `movable`: a summing baseline whose code was found to run the same from another address
// (SharedAddresses::whyNotMovable), to be timed at the addresses the kernels share.
TimedKernel timedBaseline(const Baseline& baseline, bool movable = false);

// `name` shown in tables (the canonical params when empty); the kernel must outlive the
// measurement. A summing kernel is movable (generated code refers to nothing outside its own
// bytes): a measurement with shared addresses times it there.
TimedKernel timedKernel(const Kernel& kernel, std::string name = {});

}  // namespace csumtune::tuner
