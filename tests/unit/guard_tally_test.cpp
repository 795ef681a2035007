// The guard's figures for one candidate, summed up length by length: only a length whose
// interval lies above 1 counts as a loss, since cold the median of identical code is above 1
// at about half the lengths.
#include <cmath>

#include <gtest/gtest.h>

#include "tune/guard_tally.hpp"

namespace csumtune::tuner {
namespace {

struct Length {
  int bytes;
  CacheState cache;
  RatioEstimate paired;  // median, low, high
};

struct Case {
  const char* name;
  std::vector<Length> lengths;
  double excess;
  double worstLow;
  int surelySlower;
  double worstRatio;
  int worstLength;
  CacheState worstCache;
};

constexpr auto kHot = CacheState::Hot;
constexpr auto kCold = CacheState::Cold;

TEST(GuardTally, OnlyALengthWhoseIntervalLiesAbove1IsALoss) {
  const std::vector<Case> cases{
      {"identical code, cold noise: medians above 1, intervals across it",
       {{13, kCold, {1.08, 0.97, 1.15}},
        {24, kCold, {1.02, 0.99, 1.05}},
        {40, kCold, {0.98, 0.93, 1.03}}},
       0.0,
       0.99,
       0,
       1.08,
       13,
       kCold},
      {"a loss hot: a narrow interval above 1 counts almost whole",
       {{7, kHot, {1.10, 1.09, 1.11}},
        {8, kHot, {1.0, 0.999, 1.001}},
        {13, kCold, {1.12, 0.96, 1.2}}},
       0.09,
       1.09,
       1,
       1.12,
       13,
       kCold},
      {"two sure losses add up",
       {{16, kHot, {1.05, 1.03, 1.07}}, {64, kCold, {1.2, 1.1, 1.3}}},
       0.13,
       1.1,
       2,
       1.2,
       64,
       kCold},
      {"faster everywhere", {{40, kHot, {0.7, 0.69, 0.71}}}, 0.0, 0.69, 0, 0.7, 40, kHot},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    GuardTally tally(gen::Params{}, kHot);
    for (const Length& l : c.lengths) tally.add(l.paired, l.bytes, l.cache);
    const GuardResult g = tally.result();
    EXPECT_NEAR(g.excess, c.excess, 1e-9);
    EXPECT_DOUBLE_EQ(g.worstLow, c.worstLow);
    EXPECT_EQ(g.surelySlower, c.surelySlower);
    EXPECT_DOUBLE_EQ(g.worstRatio, c.worstRatio);
    EXPECT_EQ(g.worstLength, c.worstLength);
    EXPECT_EQ(g.worstCache, c.worstCache);
    EXPECT_DOUBLE_EQ(g.loss(), c.worstLow) << "the guard judges the surest loss";
    double logs = 0;
    for (const Length& l : c.lengths) logs += std::log(l.paired.median);
    EXPECT_NEAR(g.meanRatio, std::exp(logs / static_cast<double>(c.lengths.size())), 1e-12);
  }
}

// A point (a length, hot or cold) that lost beyond the limit and was measured again takes the
// second figure, which nothing selected; the others, and points not measured again, keep the
// first.
TEST(GuardTally, APointMeasuredAgainTakesTheSecondFigure) {
  struct Again {
    const char* name;
    std::vector<Length> first, again;
    double worstLow;
    int surelySlower;
    int notRepeated;
    double excess;
  };
  const std::vector<Again> cases{
      {"noise once: the second figure stands",
       {{168, kCold, {1.20, 1.15, 1.25}}, {40, kHot, {0.90, 0.89, 0.91}}},
       {{168, kCold, {0.99, 0.95, 1.03}}, {168, kHot, {0.90, 0.89, 0.91}}},
       0.95,
       0,
       1,
       0.0},
      {"a real loss: above the limit again, the second figure counts",
       {{24, kHot, {1.10, 1.09, 1.11}}, {40, kHot, {0.90, 0.89, 0.91}}},
       {{24, kHot, {1.12, 1.11, 1.13}}, {24, kCold, {0.80, 0.70, 0.90}}},
       1.11,
       1,
       0,
       0.11},
      {"lost hot and cold at one length: two points, each decided by its own second figure",
       {{168, kHot, {1.05, 1.04, 1.06}}, {168, kCold, {1.20, 1.15, 1.25}}},
       {{168, kHot, {1.05, 1.04, 1.06}}, {168, kCold, {1.00, 0.95, 1.05}}},
       1.04,
       1,
       1,
       0.04},
      {"smaller again but still a loss: counted, not as noise",
       {{24, kHot, {1.10, 1.09, 1.11}}},
       {{24, kHot, {1.06, 1.05, 1.07}}},
       1.05,
       1,
       0,
       0.05},
      {"a length under the limit is not measured again, whatever again says",
       {{24, kHot, {1.02, 1.01, 1.03}}, {64, kCold, {1.2, 1.1, 1.3}}},
       {{24, kHot, {0.9, 0.89, 0.91}}},
       1.1,
       2,
       0,
       0.11},
  };
  for (const Again& c : cases) {
    SCOPED_TRACE(c.name);
    GuardTally first(gen::Params{}, kHot), again(gen::Params{}, kHot);
    for (const Length& l : c.first) first.add(l.paired, l.bytes, l.cache);
    for (const Length& l : c.again) again.add(l.paired, l.bytes, l.cache);
    const GuardResult g = GuardTally::repeatLosses(first.result(), again.result(), 1.02);
    EXPECT_DOUBLE_EQ(g.worstLow, c.worstLow);
    EXPECT_EQ(g.surelySlower, c.surelySlower);
    EXPECT_EQ(g.lossesNotRepeated, c.notRepeated);
    EXPECT_NEAR(g.excess, c.excess, 1e-9);
    EXPECT_EQ(g.points.size(), c.first.size()) << "the first measurement's lengths";
  }
}

// A measurer without intervals (a replayed table) is judged by its worst median.
TEST(GuardTally, WithoutIntervalsTheWorstMedianIsTheLoss) {
  GuardResult g;
  g.worstRatio = 1.3;
  EXPECT_DOUBLE_EQ(g.loss(), 1.3);
  EXPECT_DOUBLE_EQ(GuardTally(gen::Params{}, kHot).result().meanRatio, 0);
}

}  // namespace
}  // namespace csumtune::tuner
