// Where a cold measurement's calls read: every position of a cycle at a line of its own, as many
// as a power of two allows, so that a cycle touches as much of the pool as it can and no line
// comes round again before the cycle does (a line the cache still holds makes a call warm).
#include <gtest/gtest.h>

#include <bit>
#include <set>

#include "measure/workload.hpp"

namespace csumtune::tuner {
namespace {

TEST(Workload, AColdCycleReadsEachLineOfThePoolAtMostOnce) {
  for (const int offset : {0, 5, 63}) {
    SCOPED_TRACE(offset);
    WorkloadConfig config;
    config.cache = CacheState::Cold;
    config.setSizeBytes = std::size_t{16} << 20;
    config.offset = offset;
    const std::size_t longest = 1500;
    const Workload workload(config, longest);
    const std::size_t count = workload.mask() + 1;
    const std::size_t lines = (config.setSizeBytes - (longest + 128)) / 64;
    EXPECT_EQ(count, std::bit_floor(lines)) << "not the most a power of two allows";
    EXPECT_LE(count, Workload::kMaxPositions);
    std::set<std::uint32_t> seen;
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint32_t at = workload.positions()[i];
      EXPECT_EQ(at % 64, static_cast<std::uint32_t>(offset));
      EXPECT_LE(at + longest, config.setSizeBytes) << "a call would read past the pool";
      seen.insert(at);
    }
    EXPECT_EQ(seen.size(), count) << "a line comes round twice in one cycle";
  }
}

TEST(Workload, AHotWorkloadReadsOneBuffer) {
  WorkloadConfig config;
  config.offset = 7;
  const Workload workload(config, 64);
  EXPECT_EQ(workload.mask(), 0u);
  EXPECT_EQ(workload.positions()[0] % 64, 7u);
}

}  // namespace
}  // namespace csumtune::tuner
