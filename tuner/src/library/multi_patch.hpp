// `csumtune patch --results A --results B ...`: one tuned body per CPU key and a generic body
// in the tree's csum-partial_64.S, and arch/x86/lib/csum-select_64.c, which defines
// csum_partial() as a static call and points it at the body for the CPU at boot (vendor,
// family, model, then the features the body needs). The runs are read and checked with the
// library's reader (library/library_inputs.hpp), so a patch and a library made from the same
// runs match a CPU the same way.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "csumtune/gen/params.hpp"
#include "library/library_inputs.hpp"
#include "patch/make_patch.hpp"

namespace csumtune::tuner {

// The arch/x86/lib files of a patch with several bodies.
inline constexpr const char* kSelectC = "arch/x86/lib/csum-select_64.c";
inline constexpr const char* kLibMakefile = "arch/x86/lib/Makefile";

// The generic body's params unless told otherwise: emit --library's portable default.
gen::Params defaultKernelFallback();

struct MultiPatchRequest {
  std::string tree;
  std::vector<std::string> results;  // results files or run folders, one per CPU key
  gen::Params fallback = defaultKernelFallback();
  // Called once the runs are accepted and the tree is read (the CLI checks its output there).
  std::function<void()> accepted;
};

// The runs of a patch with several bodies, in the order given. Throws BadRequest: a winner
// the kernel may not run (a vector family), runs of different kinds or generator versions, a
// CPU key twice, a run that did not finish or records no CPU fields (the library's checks);
// csumtune::Error for a file that cannot be read. Copying runs (kind=copy) are refused for
// now: csum_partial_copy_generic runs with user access enabled, where objtool forbids the jump
// to a static call's trampoline.
std::vector<LibraryVariant> readKernelVariants(const std::vector<std::string>& inputs);

// Throws BadRequest: a generic body that needs a CPU feature, copies, or may not run in the
// kernel.
void checkKernelFallback(const gen::Params& fallback);

// The function each body is named by: csumtune_csum_partial_<key>, csumtune_csum_partial_generic.
std::string kernelBodySymbol(const std::string& cpuKey);
std::string kernelGenericSymbol();

// The two files the patch adds: csum-partial_64.S (every body) and csum-select_64.c (the
// selection, csum_partial() and ip_compute_csum()). `command` is the Regenerate line.
std::string renderMultiAssembly(const std::vector<LibraryVariant>& variants,
                                const gen::Params& fallback, const std::string& command);
std::string renderSelectC(const std::vector<LibraryVariant>& variants, const gen::Params& fallback,
                          const std::string& command);

// The arch/x86/lib/Makefile that builds csum-select_64.o beside csum-partial_64.o. Throws
// TreeError when the line it changes is not there.
std::string patchedLibMakefile(const std::string& makefile);

// The patch (plain, or git format-patch shape for a git checkout with an identity). Throws
// BadRequest, TreeError, and what `accepted` throws.
PatchResult makeMultiPatch(const MultiPatchRequest& request);

// The tree's files the patch reads or changes: where it must not be written.
std::vector<std::string> multiPatchedFiles(const MultiPatchRequest& request);

}  // namespace csumtune::tuner
