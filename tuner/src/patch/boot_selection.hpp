// arch/x86/lib/csum-select_64.c of a patch with several bodies: the early initcall that picks,
// for csum_partial() and for csum_partial_copy_generic(), the body tuned on the CPU the kernel
// boots on (vendor, family, model, the same stepping first, and only with every feature the
// body needs), the csumtune= boot parameter, one log line per function; and, when the patch
// has summing bodies, csum_partial() as a static call and ip_compute_csum().
#pragma once

#include <string>

#include "csumtune/gen/params.hpp"
#include "patch/kernel_bodies.hpp"

namespace csumtune::tuner {

// `fallback` is csum_partial's generic body; `command` the Regenerate line.
std::string renderSelectC(const KernelVariants& variants, const gen::Params& fallback,
                          const std::string& command);

}  // namespace csumtune::tuner
