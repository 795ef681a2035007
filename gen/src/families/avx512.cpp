// carry=avx512 (user space): 64-byte zmm vectors, 32-bit halves of 64-bit lanes into 64-bit
// accumulators (and_shift_family.hpp). 4 instructions per vector: EVEX takes the memory
// operand in both the and and the shift.
#include <array>

#include "and_shift_family.hpp"

namespace csumtune::gen::detail {
namespace {

constexpr std::array kFeatures{CpuFeature::Avx512F};
constexpr CarryTraits kTraits{
    Carry::Avx512,
    "avx512",
    "AVX-512: 32-bit halves of 64-bit lanes into 64-bit accumulators (user space)",
    64,
    false,
    kFeatures};

}  // namespace

const CarryFamily& avx512Family() {
  static const AndShiftFamily family(kTraits);
  return family;
}

}  // namespace csumtune::gen::detail
