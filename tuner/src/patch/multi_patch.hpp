// `csumtune patch --results A --results B ...`: one tuned body per CPU key and a generic body
// for each function the runs tuned, picked at boot by arch/x86/lib/csum-select_64.c (vendor,
// family, model, then the features the body needs). Summing runs go into a new
// csum-partial_64.S, csum_partial() being a static call; copying runs into the tree's
// csum-copy_64.S as one function whose entry jumps on a byte the selection sets
// (patch/multi_copy.hpp says why). The runs are read and checked with the library's reader
// (report/variant_runs.hpp), so a patch and a library made from the same runs match a CPU
// the same way.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "csumtune/gen/params.hpp"
#include "patch/kernel_bodies.hpp"
#include "patch/make_patch.hpp"
#include "report/variant_runs.hpp"

namespace csumtune::tuner {

// The arch/x86/lib files of a patch with several bodies.
inline constexpr const char* kSelectC = "arch/x86/lib/csum-select_64.c";
inline constexpr const char* kLibMakefile = "arch/x86/lib/Makefile";

struct MultiPatchRequest {
  std::string tree;
  std::vector<std::string> results;  // results files or run folders, one per CPU key
  gen::Params fallback = defaultKernelFallback();
  // Called once the runs are accepted and the tree is read (the CLI checks its output there).
  std::function<void()> accepted;
};

// Throws BadRequest: a winner the kernel may not run (a vector family), runs of different
// generator versions, a CPU key twice for one function, a run that did not finish or records
// no CPU fields (the library's checks); csumtune::Error for a file that cannot be read.
KernelVariants readKernelVariants(const std::vector<std::string>& inputs);

// Throws BadRequest: a generic body that needs a CPU feature, copies, or may not run in the
// kernel.
void checkKernelFallback(const gen::Params& fallback);

// csum-partial_64.S: every summing body as a function of its own. `command` is the
// Regenerate line. (csum-select_64.c: patch/boot_selection.hpp; csum-copy_64.S:
// patch/multi_copy.hpp.)
std::string renderMultiAssembly(const std::vector<LibraryVariant>& variants,
                                const gen::Params& fallback, const std::string& command);

// The arch/x86/lib/Makefile that builds csum-select_64.o beside csum-partial_64.o. Throws
// TreeError when the line it changes is not there.
std::string patchedLibMakefile(const std::string& makefile);

// The patch (plain, or git format-patch shape for a git checkout with an identity). Throws
// BadRequest, TreeError, and what `accepted` throws.
PatchResult makeMultiPatch(const MultiPatchRequest& request);

// The tree's files the patch reads or changes: where it must not be written.
std::vector<std::string> multiPatchedFiles(const MultiPatchRequest& request);

}  // namespace csumtune::tuner
