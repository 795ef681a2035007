#include "tune/guard_tally.hpp"

#include <algorithm>
#include <cmath>

namespace csumtune::tuner {

GuardTally::GuardTally(const gen::Params& params, CacheState cache) {
  result_.params = params;
  result_.worstCache = cache;
}

void GuardTally::add(const RatioEstimate& paired, int length, CacheState cache) {
  // The median of the paired per-round ratios: drift hits both alike. Its interval, not the
  // median, says whether the candidate loses: cold, the median of identical code is above 1
  // at about half the lengths.
  const double ratio = paired.median;
  result_.excess += std::max(paired.low - 1, 0.0);
  result_.worstLow = std::max(result_.worstLow, paired.low);
  result_.surelySlower += paired.low > 1;
  if (ratio > 0) {
    logRatios_ += std::log(ratio);
    ++ratios_;
  }
  if (ratio > result_.worstRatio) {
    result_.worstRatio = ratio;
    result_.worstLength = length;
    result_.worstCache = cache;
  }
}

GuardResult GuardTally::result() const {
  GuardResult out = result_;
  if (ratios_ > 0) out.meanRatio = std::exp(logRatios_ / ratios_);
  return out;
}

}  // namespace csumtune::tuner
