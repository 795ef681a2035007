// Buffers far beyond the 64 KiB of the verification plans: the SIMD families that sum word
// pairs widen their 32-bit lanes every 1 or 2 MiB (avx2 with vsum=madd, avx512vnni), the GPR
// families accumulate for millions of words. All-0xff and all-0x00 data push the lanes to their
// extremes; a copy is checked for its bytes too.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "csumtune/cpu.hpp"
#include "csumtune/jit.hpp"
#include "verify/reference.hpp"

namespace csumtune {
namespace {

// `data` filled with each of three patterns in turn (all 0xff, all 0x00, random from `seed`),
// and under each, every shape of `shapes` this CPU can run, compiled: check(kernel, shape,
// pattern).
template <std::size_t N, typename Check>
void forEachPatternAndKernel(std::vector<std::uint8_t>& data, std::uint64_t seed,
                             const char* const (&shapes)[N], Check check) {
  std::mt19937_64 rng(seed);
  for (int pattern = 0; pattern < 3; ++pattern) {
    for (auto& b : data)
      b = pattern == 0 ? 0xff : pattern == 1 ? 0x00 : static_cast<std::uint8_t>(rng());
    for (const char* text : shapes) {
      const auto params = gen::parseParams(text);
      if (!missingFeatures(params).empty()) continue;
      check(Jit::compile(params), text, pattern);
    }
  }
}

TEST(LongBuffers, EveryFamilyAcrossItsWideningAndAccumulationLimits) {
  const char* shapes[] = {"carry=adc,chains=4,unroll=32",
                          "carry=adcx,chains=2,unroll=2",
                          "carry=add32,chains=1,unroll=1",
                          "carry=cmov,chains=8,unroll=32",
                          "carry=avx2,chains=1,unroll=1",
                          "carry=avx2,chains=4,unroll=28",
                          "carry=avx2,chains=1,unroll=1,vsum=madd",
                          "carry=avx2,chains=2,unroll=32,vsum=madd",
                          "carry=avx2,chains=7,unroll=21,sum=last,vsum=madd",
                          "carry=avx512,chains=8,unroll=32",
                          "carry=avx512,chains=3,unroll=9",
                          "carry=avx512vnni,chains=1,unroll=1",
                          "carry=avx512vnni,chains=1,unroll=32",
                          "carry=avx512vnni,chains=4,unroll=8",
                          "carry=avx512vnni,chains=7,unroll=21"};
  std::vector<std::uint8_t> data((17u << 20) + 64);
  forEachPatternAndKernel(
      data, 3, shapes, [&](const Kernel& kernel, const char* text, int pattern) {
        for (long len : {(2L << 20) + 3, (9L << 20) + 1, 17L << 20}) {
          for (std::uint32_t sum : {0u, 0xffffffffu}) {
            const int offset = static_cast<int>(len % 61);
            ASSERT_EQ(tuner::residue(kernel(data.data() + offset, static_cast<int>(len), sum)),
                      tuner::referenceResidue(data.data() + offset, len, sum))
                << text << " len=" << len << " pattern=" << pattern;
          }
        }
      });
}

// The copying forms of the families that widen or accumulate longest, across the same limits.
TEST(LongBuffers, CopiesAcrossTheWideningLimits) {
  const char* shapes[] = {"carry=avx2,chains=2,unroll=32,kind=copy,vsum=madd",
                          "carry=avx2,chains=3,unroll=3,kind=copy,vsum=madd",
                          "carry=avx2,chains=4,unroll=28,kind=copy,sum=last,vsum=madd",
                          "carry=avx2,chains=2,unroll=32,kind=copy",
                          "carry=adc,chains=4,unroll=32,kind=copy"};
  const std::size_t size = (17u << 20) + 64;
  std::vector<std::uint8_t> data(size), copy(size);
  forEachPatternAndKernel(
      data, 5, shapes, [&](const Kernel& kernel, const char* text, int pattern) {
        for (long len : {(2L << 20) + 5, 17L << 20}) {
          const int offset = static_cast<int>(len % 61);
          std::fill(copy.begin(), copy.end(), std::uint8_t{0x5a});
          const std::uint32_t got = kernel.copy(data.data() + offset, copy.data() + 3,
                                                static_cast<int>(len), 0xffffffffu);
          ASSERT_EQ(tuner::residue(got),
                    tuner::referenceResidue(data.data() + offset, len, 0xffffffffu))
              << text << " len=" << len << " pattern=" << pattern;
          ASSERT_TRUE(
              std::equal(data.begin() + offset, data.begin() + offset + len, copy.begin() + 3))
              << text << " len=" << len << " pattern=" << pattern << ": the bytes were not copied";
        }
      });
}

}  // namespace
}  // namespace csumtune
