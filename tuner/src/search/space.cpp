#include "search/space.hpp"

#include <algorithm>
#include <cmath>

namespace csumtune::tuner {

using L = gen::ParamLimits;

SearchSpace::SearchSpace(bool kernelSafeOnly, gen::Kind kind)
    : kernelSafeOnly_(kernelSafeOnly), kind_(kind) {
  for (const gen::CarryTraits* traits : gen::allCarryTraits()) {
    if (kernelSafeOnly && !traits->kernelSafe()) continue;
    gen::Params probe;
    probe.carry = traits->carry;
    probe.chains = probe.unroll = traits->needsEvenChains ? 2 : 1;
    probe.kind = kind;
    if (kind == gen::Kind::Copy && !gen::validationError(probe).empty()) continue;  // cannot copy
    families_.push_back(traits->carry);
  }
}

Point SearchSpace::lowerBounds() {
  return {double(L::kMinChains), double(L::kMinUnroll), 0, 0};
}

Point SearchSpace::upperBounds() {
  return {double(L::kMaxChains), double(L::kMaxUnroll), double(L::kMaxPrefetch / L::kPrefetchStep),
          double(gen::kHintCount - 1)};
}

gen::Params SearchSpace::project(gen::Carry carry, const Point& x) const {
  const Point lower = lowerBounds(), upper = upperBounds();
  auto clamped = [&](std::size_t i) { return std::clamp(x[i], lower[i], upper[i]); };
  gen::Params p = gen::searchedForm(gen::Params{carry});
  const bool even = gen::traitsOf(carry).needsEvenChains;
  p.chains = even ? std::clamp(2 * static_cast<int>(std::lround(clamped(0) / 2)), 2, L::kMaxChains)
                  : static_cast<int>(std::lround(clamped(0)));
  const int multiples = static_cast<int>(std::lround(clamped(1) / p.chains));
  p.unroll = std::clamp(multiples, 1, L::kMaxUnroll / p.chains) * p.chains;
  p.prefetch = static_cast<int>(std::lround(clamped(2))) * L::kPrefetchStep;
  p.hint = static_cast<gen::Hint>(std::lround(clamped(3)));
  p.kind = kind_;
  // Copying takes two registers from the pool: the widest loops of some families do not fit.
  while (kind_ == gen::Kind::Copy && !gen::validationError(p).empty() && p.chains > 1) {
    p.chains -= gen::traitsOf(carry).needsEvenChains ? 2 : 1;
    p.unroll = std::max(p.chains, p.unroll / p.chains * p.chains);
  }
  return p.canonical();
}

Point SearchSpace::pointOf(const gen::Params& p) {
  return {double(p.chains), double(p.unroll), double(p.prefetch / L::kPrefetchStep),
          double(static_cast<int>(p.hint))};
}

std::vector<gen::Params> SearchSpace::distinctKernels() const {
  std::vector<gen::Params> out;
  for (gen::Params p : gen::enumerateSpace({kernelSafeOnly_, true})) {
    p.kind = kind_;
    if (gen::validationError(p).empty()) out.push_back(p.canonical());
  }
  return out;
}

std::string codeKey(const gen::Params& params) {
  return params.canonical().toString();
}

}  // namespace csumtune::tuner
