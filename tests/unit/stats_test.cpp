#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "measure/stats.hpp"

namespace csumtune::tuner {
namespace {

TEST(Summary, KnownValues) {
  const Summary s = summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(s.n, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.q1, 2);
  EXPECT_DOUBLE_EQ(s.q3, 4);
  EXPECT_DOUBLE_EQ(s.iqr, 2);
  EXPECT_DOUBLE_EQ(s.mad, 1);  // deviations 2,2,1,1,0 -> median 1
  EXPECT_NEAR(s.rsdPercent, 100.0 * std::sqrt(2.5) / 3.0, 1e-9);
}

TEST(Summary, EvenCountInterpolates) {
  const Summary s = summarize({1, 2, 3, 10});
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.q1, 1.75);
}

TEST(Summary, SingleSampleAndEmpty) {
  const Summary s = summarize({7});
  EXPECT_DOUBLE_EQ(s.median, 7);
  EXPECT_DOUBLE_EQ(s.mad, 0);
  EXPECT_DOUBLE_EQ(s.rsdPercent, 0);
  EXPECT_THROW(summarize({}), std::invalid_argument);
}

TEST(Summary, MedianAndMadResistOutliers) {
  std::vector<double> samples(101, 10.0);
  for (int i = 0; i < 20; ++i) samples[static_cast<std::size_t>(i)] = 1000.0;  // interrupts
  const Summary s = summarize(samples);
  EXPECT_DOUBLE_EQ(s.median, 10.0);
  EXPECT_DOUBLE_EQ(s.mad, 0.0);
  EXPECT_GT(s.rsdPercent, 100.0);
}

// Textbook order-statistic ranks for a 95% interval of the median.
TEST(MedianCi, RanksMatchBinomialTables) {
  double coverage = 0;
  EXPECT_EQ(medianCiRank(100, 0.95, &coverage), 40u);  // [x_(40), x_(61)]
  EXPECT_GE(coverage, 0.95);
  EXPECT_EQ(medianCiRank(20, 0.95, &coverage), 6u);  // [x_(6), x_(15)]
  EXPECT_GE(coverage, 0.95);
  EXPECT_EQ(medianCiRank(10, 0.95, &coverage), 2u);  // [x_(2), x_(9)]
  EXPECT_NEAR(coverage, 1 - 2 * 11.0 / 1024, 1e-12);
  EXPECT_EQ(medianCiRank(5, 0.95, &coverage), 1u);  // too few: the whole range
  EXPECT_LT(coverage, 0.95);
}

TEST(PairedRatio, DetectsARealDifferenceAndNotAFakeOne) {
  std::mt19937 rng(5);
  std::normal_distribution<double> noise(0, 0.02);
  std::vector<double> a, b, c;
  for (int i = 0; i < 301; ++i) {
    const double drift = 1.0 + 0.3 * std::sin(i * 0.05);  // both kernels see the same drift
    a.push_back(100 * drift * (1 + noise(rng)));
    b.push_back(80 * drift * (1 + noise(rng)));
    c.push_back(100 * drift * (1 + noise(rng)));
  }
  const RatioEstimate faster = pairedRatio(a, b);  // a's time / b's time
  EXPECT_NEAR(faster.median, 1.25, 0.02);
  EXPECT_TRUE(faster.significant());
  EXPECT_LT(faster.low, 1.25);
  EXPECT_GT(faster.high, 1.25);
  const RatioEstimate same = pairedRatio(a, c);
  EXPECT_FALSE(same.significant()) << same.low << " " << same.high;
  EXPECT_THROW(pairedRatio({1, 2}, {1}), std::invalid_argument);
  EXPECT_THROW(pairedRatio({}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace csumtune::tuner
