#include "tune/noise_guard.hpp"

#include <algorithm>

#include "measure/stats.hpp"

namespace csumtune::tuner {

bool NoiseGuard::disturbed(double referenceFigure) const {
  const double usual = usualReference();
  return usual != 0 && referenceFigure > usual * (1 + tolerance_);
}

bool NoiseGuard::shouldRepeat(double referenceFigure, int attempt) {
  const bool repeat = disturbed(referenceFigure) && attempt < maxRetries_;
  history_.push_back(referenceFigure);
  if (repeat) ++retries_;
  return repeat;
}

double NoiseGuard::usualReference() const {
  if (history_.size() < 5) return 0;
  const std::size_t n = std::min<std::size_t>(history_.size(), 200);
  std::vector<double> recent(history_.end() - static_cast<std::ptrdiff_t>(n), history_.end());
  std::sort(recent.begin(), recent.end());
  return quantileSorted(recent, 0.2);
}

}  // namespace csumtune::tuner
