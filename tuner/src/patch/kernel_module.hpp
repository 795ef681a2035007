// csumtune kmod as a library call: an out-of-tree kernel module (Kbuild, Makefile, the
// harness, the tuned .S) that checks and times a kernel beside the running kernel's own
// csum_partial (or csum_partial_copy_generic for a copying kernel).
#pragma once

#include <optional>
#include <string>

#include "csumtune/gen/params.hpp"

namespace csumtune::tuner {

// Writes the module's files into `folder` together (a full disk leaves the previous module,
// not half a new one). BadRequest for a kernel the Linux kernel may not run (a SIMD family)
// and a folder that cannot be written.
void writeKernelModule(const gen::Params& params, const std::optional<std::string>& tunedOn,
                       const std::string& folder);

}  // namespace csumtune::tuner
