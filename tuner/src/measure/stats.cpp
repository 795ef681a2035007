#include "measure/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace csumtune::tuner {

double quantileSorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("quantile of an empty sample");
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

Summary summarize(std::vector<double> samples) {
  if (samples.empty()) throw std::invalid_argument("summary of an empty sample");
  std::sort(samples.begin(), samples.end());
  Summary s;
  s.n = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  s.median = quantileSorted(samples, 0.5);
  s.q1 = quantileSorted(samples, 0.25);
  s.q3 = quantileSorted(samples, 0.75);
  s.iqr = s.q3 - s.q1;
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(s.n);
  double squares = 0;
  for (double x : samples) squares += (x - s.mean) * (x - s.mean);
  const double stddev = s.n > 1 ? std::sqrt(squares / static_cast<double>(s.n - 1)) : 0.0;
  s.rsdPercent = s.mean != 0 ? 100.0 * stddev / s.mean : 0.0;
  std::vector<double> deviations;
  deviations.reserve(s.n);
  for (double x : samples) deviations.push_back(std::fabs(x - s.median));
  std::sort(deviations.begin(), deviations.end());
  s.mad = quantileSorted(deviations, 0.5);
  return s;
}

std::size_t medianCiRank(std::size_t n, double confidence, double* coverage) {
  // The interval [x_(k), x_(n+1-k)] misses the median with probability 2 P(X <= k-1),
  // X ~ Binomial(n, 1/2). Take the largest k with P(X <= k-1) <= alpha/2 (k = 1 when even
  // the widest interval cannot reach the confidence). Log space keeps large n finite.
  const double alpha = 1.0 - confidence;
  const double nd = static_cast<double>(n);
  auto pmf = [&](std::size_t i) {
    const double id = static_cast<double>(i);
    return std::exp(std::lgamma(nd + 1) - std::lgamma(id + 1) - std::lgamma(nd - id + 1) +
                    nd * std::log(0.5));
  };
  double tail = pmf(0);  // P(X <= 0)
  std::size_t k = 1;
  double cumulative = tail;
  for (std::size_t i = 1; 2 * i < n; ++i) {
    cumulative += pmf(i);  // P(X <= i)
    if (cumulative > alpha / 2) break;
    k = i + 1;
    tail = cumulative;
  }
  if (coverage) *coverage = 1.0 - 2.0 * tail;
  return k;
}

RatioEstimate pairedRatio(const std::vector<double>& numerator,
                          const std::vector<double>& denominator, double confidence) {
  if (numerator.size() != denominator.size() || numerator.empty()) {
    throw std::invalid_argument("paired ratio needs two samples of the same, non-zero size");
  }
  std::vector<double> ratios;
  ratios.reserve(numerator.size());
  for (std::size_t i = 0; i < numerator.size(); ++i) {
    ratios.push_back(numerator[i] / denominator[i]);
  }
  std::sort(ratios.begin(), ratios.end());
  RatioEstimate r;
  r.median = quantileSorted(ratios, 0.5);
  const std::size_t k = medianCiRank(ratios.size(), confidence, &r.confidence);
  r.low = ratios[k - 1];
  r.high = ratios[ratios.size() - k];
  return r;
}

}  // namespace csumtune::tuner
