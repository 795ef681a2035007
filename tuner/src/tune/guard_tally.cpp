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
  result_.points.push_back({length, cache, paired});
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

GuardResult GuardTally::repeatLosses(const GuardResult& first, const GuardResult& again,
                                     double limit) {
  GuardTally tally(first.params, first.worstCache);
  int notRepeated = 0;
  for (const GuardPoint& point : first.points) {
    const auto twice = std::find_if(again.points.begin(), again.points.end(), [&](const auto& q) {
      return q.length == point.length && q.cache == point.cache;
    });
    const bool repeated = point.paired.low > limit && twice != again.points.end();
    const GuardPoint& kept = repeated ? *twice : point;
    notRepeated += repeated && kept.paired.low <= limit;
    tally.add(kept.paired, kept.length, kept.cache);
  }
  GuardResult out = tally.result();
  out.eligible = first.eligible;
  out.lossesNotRepeated = first.lossesNotRepeated + notRepeated;
  return out;
}

}  // namespace csumtune::tuner
