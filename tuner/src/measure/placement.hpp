// Where the measuring thread runs: pinned to one CPU, with the frequency governor checked.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace csumtune::tuner {

// The last CPU this process may run on (CPU 0 often carries the system's noise).
int defaultBenchCpu();

// Pins the calling thread. Returns an error message on failure.
std::optional<std::string> pinToCpu(int cpu);

// Warnings about the CPU's frequency control (governor not "performance", unreadable).
std::vector<std::string> frequencyWarnings(int cpu);

}  // namespace csumtune::tuner
