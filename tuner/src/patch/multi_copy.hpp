// csum-copy_64.S with several bodies: csum_partial_copy_generic() as one function holding a
// generic body and one tuned body per CPU key, its entry jumping on a byte csum-select_64.c
// sets at boot. Not a static call as csum_partial() is: the copy runs with user access enabled
// (csum-wrappers_64.c calls it between user_access_begin() and user_access_end()), where
// objtool refuses a call or jump to another function, a static call's trampoline included.
// Local labels of one function are jumps objtool follows.
#pragma once

#include <string>
#include <vector>

#include "csumtune/gen/params.hpp"
#include "report/variant_runs.hpp"

namespace csumtune::tuner {

// The byte the entry reads: 0 runs the generic body, N the Nth variant (in the order given).
inline constexpr const char* kCopyByte = "csumtune_copy_body";

// The local label (without .L) of a CPU key's body, also its fixups' label prefix.
std::string copyBodyLabel(const std::string& cpuKey);

// The whole file. `generic` copies and needs nothing of the CPU; `command` is the Regenerate
// line. Throws gen::ParamsError when a body cannot be printed in kernel style.
std::string renderMultiCopyAssembly(const std::vector<LibraryVariant>& variants,
                                    const gen::Params& generic, const std::string& command);

}  // namespace csumtune::tuner
