// The search space: every Params the generator accepts (optionally only kernel-safe ones),
// seen by the numeric optimizers as a box of four continuous coordinates per carry family,
// all bounds taken from gen::ParamLimits:
//
//   x[0] chains    in [kMinChains, kMaxChains]          rounded; adcx rounds to an even count
//   x[1] unroll    in [kMinUnroll, kMaxUnroll]          rounded to the nearest multiple of chains
//   x[2] prefetch  in [0, kMaxPrefetch / kPrefetchStep] rounded, times kPrefetchStep bytes
//   x[3] hint      in [0, kHintCount - 1]               rounded (ignored when prefetch is 0)
//
// The carry family is categorical: searches loop over families instead of pretending it is
// an ordered number.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "csumtune/gen/params.hpp"

namespace csumtune::tuner {

inline constexpr std::size_t kDimensions = 4;
using Point = std::array<double, kDimensions>;

class SearchSpace {
 public:
  // kind=copy: every point is a copying kernel, of the families that can copy.
  explicit SearchSpace(bool kernelSafeOnly, gen::Kind kind = gen::Kind::Sum);

  gen::Kind kind() const { return kind_; }

  const std::vector<gen::Carry>& families() const { return families_; }

  static Point lowerBounds();
  static Point upperBounds();

  // The valid Params nearest to x for this family (canonical: one per distinct kernel).
  gen::Params project(gen::Carry carry, const Point& x) const;
  // The point a Params sits at (inverse of project on lattice points).
  static Point pointOf(const gen::Params& params);

  // Every distinct kernel (canonical Params only), in a stable order.
  std::vector<gen::Params> distinctKernels() const;

 private:
  bool kernelSafeOnly_;
  gen::Kind kind_;
  std::vector<gen::Carry> families_;
};

// Equal kernels have equal keys: the canonical string of Params::canonical().
std::string codeKey(const gen::Params& params);

}  // namespace csumtune::tuner
