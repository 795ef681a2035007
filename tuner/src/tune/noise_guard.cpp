#include "tune/noise_guard.hpp"

#include <algorithm>

#include "measure/stats.hpp"

namespace csumtune::tuner {

bool NoiseGuard::disturbed(double baselineFigure) const {
  const double usual = usualBaseline();
  return usual != 0 && baselineFigure > usual * (1 + tolerance_);
}

bool NoiseGuard::shouldRepeat(double baselineFigure, int attempt) {
  const bool repeat = disturbed(baselineFigure) && attempt < maxRetries_;
  history_.push_back(baselineFigure);
  if (repeat) ++retries_;
  return repeat;
}

double NoiseGuard::usualBaseline() const {
  if (history_.size() < 5) return 0;
  const std::size_t n = std::min<std::size_t>(history_.size(), 200);
  std::vector<double> recent(history_.end() - static_cast<std::ptrdiff_t>(n), history_.end());
  std::sort(recent.begin(), recent.end());
  return quantileSorted(recent, 0.2);
}

}  // namespace csumtune::tuner
