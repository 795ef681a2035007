// The figures a patch's commit message carries: the 2013 thread's table, the tree's own file
// (before) against the tuned kernel (after), measured interleaved on this machine.
#pragma once

#include <string>
#include <string_view>

#include "measure/harness.hpp"

namespace csumtune::tuner {

// Pins to `cpu` (-1: defaultBenchCpu()), times both kernels hot and cold at 40, 1500, 9000
// and 65536 bytes, and returns the paragraph that says how (on which CPU, the host's brand
// from the runtime; `file` is the tree's file `before` was built from) and the table, in core
// cycles per byte. Throws FiguresError when the CPU cannot be pinned.
std::string measureFigures(int cpu, const TimedKernel& before, const TimedKernel& after,
                           std::string_view file);

}  // namespace csumtune::tuner
