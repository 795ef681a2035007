// What every file of a kernel patch of several bodies shares: the runs by function, the names
// and CPU constants the bodies go by, the generic bodies, and the pieces of the generated
// files' banners. patch/multi_patch.hpp assembles the patch from them.
#pragma once

#include <string>
#include <vector>

#include "csumtune/gen/params.hpp"
#include "report/variant_runs.hpp"

namespace csumtune::tuner {

// The runs of a patch with several bodies, by function, each in the order given.
struct KernelVariants {
  std::vector<LibraryVariant> sums;    // csum_partial's (kind=sum runs)
  std::vector<LibraryVariant> copies;  // csum_partial_copy_generic's (kind=copy runs)
};

// The generic body's params unless told otherwise: emit --library's portable default.
gen::Params defaultKernelFallback();

// The generic copying body for a generic summing body: the same params copying, or the
// default adc copy when the params cannot copy.
gen::Params copyFallbackOf(const gen::Params& fallback);

// The function each body is named by: csumtune_csum_partial_<key>, csumtune_csum_partial_generic.
std::string kernelBodySymbol(const std::string& cpuKey);
std::string kernelGenericSymbol();

// The CPU vendor as boot_cpu_data.x86_vendor says it (X86_VENDOR_AMD, ...). Throws BadRequest.
const char* kernelVendor(const std::string& cpuidVendor);
// The X86_FEATURE_* a body needs (kernel-safe bodies can need ADX at most), "" for none.
// Throws BadRequest.
std::string kernelFeature(const gen::Params& params);

// The part of a generated file's banner every file of the patch shares: who made it, how to
// regenerate it (generatedByBlock), and the bodies in the order the selection tries them
// under a title line (bodiesBlock); generatedBodiesBlock is both.
std::string generatedByBlock(const std::string& command);
std::string bodiesBlock(const std::string& title, const std::vector<LibraryVariant>& variants,
                        const gen::Params& fallback);
std::string generatedBodiesBlock(const std::vector<LibraryVariant>& variants,
                                 const gen::Params& fallback, const std::string& command);

// The piece of a rendered kernel-style file between `from` and `to` (inclusive of `to`).
std::string renderedPiece(const std::string& text, const std::string& from, const std::string& to);

}  // namespace csumtune::tuner
