// carry=avx2 (user space): 32-byte ymm vectors, 32-bit halves of 64-bit lanes into 64-bit
// accumulators (and_shift_family.hpp). 5 instructions per vector: VEX cannot shift a memory
// operand, so each vector is loaded once.
#include <array>

#include "and_shift_family.hpp"

namespace csumtune::gen::detail {
namespace {

constexpr std::array kFeatures{CpuFeature::Avx2};
constexpr CarryTraits kTraits{
    Carry::Avx2,
    "avx2",
    "AVX2: 32-bit halves of 64-bit lanes into 64-bit accumulators (user space)",
    32,
    false,
    kFeatures};

}  // namespace

const CarryFamily& avx2Family() {
  static const AndShiftFamily family(kTraits);
  return family;
}

}  // namespace csumtune::gen::detail
