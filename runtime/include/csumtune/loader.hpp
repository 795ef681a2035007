// Loading tuned kernels: a results.json written by `csumtune tune`, or the best results for
// this CPU found on a search path, with a safe default when there are none.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "csumtune/jit.hpp"

namespace csumtune {

struct LoadOptions {
  // Accept results tuned on another CPU model when its feature flags are the same as this
  // CPU's (the kernel will run correctly; whether it is still the fastest is not known).
  bool acceptSameFeatures = false;
};

// A kernel and where it came from ("results/amd-.../imix/results.json (imix, hot)", or
// "default carry=adc,... (no tuned results for CPU ...)").
struct LoadedKernel {
  Kernel kernel;
  std::string origin;
};

// The directories best() searches, in order: each entry of CSUMTUNE_RESULTS
// (colon-separated), then the installed share/csumtune/results.
std::vector<std::string> resultsSearchPath();

namespace detail {
// Tests only: replaces the installed results directory best() searches after
// CSUMTUNE_RESULTS ("" = none; std::nullopt = the installed one again).
void setInstalledResultsForTesting(std::optional<std::string> directory);
}  // namespace detail

// The safe default: runs on every x86-64 CPU, and is a good shape on most.
gen::Params defaultParams();

}  // namespace csumtune
