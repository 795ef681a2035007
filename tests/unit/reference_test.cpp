#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "csumtune/csumtune.h"
#include "verify/reference.hpp"

namespace csumtune::tuner {
namespace {

TEST(Reference, Rfc1071Example) {
  // RFC 1071 section 3: the words 0001 f203 f4f5 f6f7 sum to ddf2 (big-endian view); in
  // little-endian word order the same bytes sum to the byte-swapped value f2dd.
  const std::uint8_t bytes[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  EXPECT_EQ(referenceResidue(bytes, 8, 0), 0xf2ddu);
}

TEST(Reference, OddLastByteIsTheLowByteOfAFinalWord) {
  const std::uint8_t bytes[] = {0x10, 0x20, 0x30};
  EXPECT_EQ(referenceResidue(bytes, 3, 0), 0x2010u + 0x30u);
}

TEST(Reference, NonPositiveLengthSumsNothing) {
  EXPECT_EQ(referenceResidue(nullptr, 0, 0x12345), residue(0x12345));
  EXPECT_EQ(referenceResidue(nullptr, -5, 0xffffffff), residue(0xffffffff));
}

TEST(Reference, ZeroAndAllOnesAreTheSameChecksum) {
  EXPECT_EQ(residue(0xffff), residue(0));
  EXPECT_EQ(residue(0xffffffff), 0u);
}

TEST(Reference, FoldIsCongruent) {
  std::mt19937 rng(7);
  for (int i = 0; i < 100000; ++i) {
    const std::uint32_t s = rng();
    EXPECT_EQ(residue(csumtune_fold(s)), residue(s));
  }
  EXPECT_EQ(csumtune_fold(0xffffffff), 0xffff);
  EXPECT_EQ(csumtune_fold(0x0001fffe), 0xffff);
}

TEST(PrefixReference, AgreesWithThePlainReference) {
  std::mt19937 rng(11);
  std::vector<std::uint8_t> data(5000);
  for (auto& b : data) b = static_cast<std::uint8_t>(rng());
  const PrefixReference prefix(data.data(), data.size());
  for (int i = 0; i < 20000; ++i) {
    const std::size_t off = rng() % 2000, len = rng() % 3000;
    const std::uint32_t sum = rng();
    ASSERT_EQ(prefix.residueAt(off, len, sum),
              referenceResidue(data.data() + off, static_cast<long>(len), sum))
        << off << " " << len;
  }
}

}  // namespace
}  // namespace csumtune::tuner
