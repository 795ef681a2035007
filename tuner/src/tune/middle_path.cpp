#include "tune/middle_path.hpp"

#include <algorithm>

namespace csumtune::tuner {

std::vector<gen::Params> middleVariants(const gen::Params& winner) {
  std::vector<gen::Params> out{winner};
  if (!gen::traitsOf(winner.carry).isVector() || winner.kind != gen::Kind::Sum) return out;
  std::vector<int> bounds{0};
  for (int mid : gen::ParamLimits::kMidBounds) bounds.push_back(mid);
  for (int mid : bounds) {
    gen::Params p = winner;
    p.mid = mid;
    p = p.canonical();
    // A bound at or below the short bound is no middle path: the same kernel as mid=0.
    if (mid != 0 && !p.hasMidPath()) continue;
    if (gen::validationError(p).empty() && std::find(out.begin(), out.end(), p) == out.end())
      out.push_back(p);
  }
  return out;
}

std::size_t chosenMiddle(const std::vector<MiddlePathResult>& measured, double excessSlack) {
  if (measured.empty()) return 0;
  const MiddlePathResult& winner = measured.front();
  std::size_t chosen = 0;
  for (std::size_t i = 1; i < measured.size(); ++i) {
    const MiddlePathResult& m = measured[i];
    const bool losesNoMore = m.atLengths.excess <= winner.atLengths.excess + excessSlack;
    const bool notSlowerOnProfile = m.profile.high >= winner.profile.low;
    const bool faster =
        m.atLengths.meanRatio > 0 && m.atLengths.meanRatio < measured[chosen].atLengths.meanRatio;
    if (losesNoMore && notSlowerOnProfile && faster) chosen = i;
  }
  return chosen;
}

}  // namespace csumtune::tuner
