#include "search/space.hpp"

#include <algorithm>
#include <cmath>

namespace csumtune::tuner {

SearchSpace::SearchSpace(bool kernelSafeOnly) : kernelSafeOnly_(kernelSafeOnly) {
  for (const auto& traits : gen::allCarryTraits()) {
    if (!kernelSafeOnly || traits.kernelSafe) families_.push_back(traits.carry);
  }
}

gen::Params SearchSpace::project(gen::Carry carry, const Point& x) const {
  using L = gen::ParamLimits;
  gen::Params p;
  p.carry = carry;
  const bool even = gen::traitsOf(carry).needsEvenChains;
  double chains = std::clamp(x[0], double(L::kMinChains), double(L::kMaxChains));
  p.chains = even ? std::clamp(2 * static_cast<int>(std::lround(chains / 2)), 2, L::kMaxChains)
                  : static_cast<int>(std::lround(chains));
  const int multiples = static_cast<int>(std::lround(std::clamp(x[1], 1.0, 32.0) / p.chains));
  p.unroll = std::clamp(multiples, 1, L::kMaxUnroll / p.chains) * p.chains;
  p.prefetch = static_cast<int>(std::lround(std::clamp(x[2], 0.0, 64.0))) * L::kPrefetchStep;
  p.hint = static_cast<gen::Hint>(std::lround(std::clamp(x[3], 0.0, 3.0)));
  return canonicalCode(p);
}

Point SearchSpace::pointOf(const gen::Params& p) {
  return {double(p.chains), double(p.unroll), double(p.prefetch / gen::ParamLimits::kPrefetchStep),
          double(static_cast<int>(p.hint))};
}

std::vector<gen::Params> SearchSpace::distinctKernels() const {
  return gen::enumerateSpace({kernelSafeOnly_, true});
}

std::size_t SearchSpace::pointCount() const {
  return gen::enumerateSpace({kernelSafeOnly_, false}).size();
}

gen::Params canonicalCode(gen::Params params) {
  if (params.prefetch == 0) params.hint = gen::Hint::T0;
  return params;
}

std::string codeKey(const gen::Params& params) {
  return canonicalCode(params).toString();
}

}  // namespace csumtune::tuner
