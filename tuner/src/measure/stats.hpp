// Robust summaries of timing samples, and the comparison of two kernels measured
// interleaved: the median of their paired ratios with a distribution-free confidence
// interval (order statistics of the binomial), so "faster" is only said when it is.
#pragma once

#include <cstddef>
#include <vector>

namespace csumtune::tuner {

struct Summary {
  std::size_t n = 0;
  double median = 0, min = 0, max = 0, mean = 0;
  double mad = 0;         // median absolute deviation from the median
  double q1 = 0, q3 = 0;  // quartiles (linear interpolation)
  double iqr = 0;
  double rsdPercent = 0;  // standard deviation / mean, as `perf stat -r` prints it
};

// Throws std::invalid_argument on an empty sample.
Summary summarize(std::vector<double> samples);

// Quantile q in [0,1] of sorted data, linear interpolation between order statistics.
double quantileSorted(const std::vector<double>& sorted, double q);

struct RatioEstimate {
  double median = 0;
  double low = 0, high = 0;  // confidence interval of the median ratio
  double confidence = 0;     // achieved coverage (>= the requested one when n allows)
  bool significant() const { return low > 1.0 || high < 1.0; }
};

// Ratios numerator[i] / denominator[i] of paired samples (same round of an interleaved
// measurement); median and a confidence interval for it. Throws on size mismatch or n == 0.
RatioEstimate pairedRatio(const std::vector<double>& numerator,
                          const std::vector<double>& denominator, double confidence = 0.95);

// The order-statistic rank k (1-based) such that [x_(k), x_(n+1-k)] covers the median with
// probability >= confidence, or 1 when n is too small for that; `coverage` gets the exact value.
std::size_t medianCiRank(std::size_t n, double confidence, double* coverage = nullptr);

}  // namespace csumtune::tuner
