// The search space: every Params the generator accepts (optionally only kernel-safe ones),
// seen by the numeric optimizers as a box of four continuous coordinates per carry family.
//
//   x[0] chains    in [1, 8]      rounded; adcx rounds to an even count
//   x[1] unroll    in [1, 32]     rounded to the nearest multiple of chains
//   x[2] prefetch  in [0, 64]     rounded, times 64 bytes
//   x[3] hint      in [0, 3]      rounded (ignored when prefetch is 0)
//
// The carry family is categorical: searches loop over families instead of pretending it is
// an ordered number.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "csumtune/gen/params.hpp"

namespace csumtune::tuner {

using Point = std::array<double, 4>;

class SearchSpace {
 public:
  explicit SearchSpace(bool kernelSafeOnly);

  const std::vector<gen::Carry>& families() const { return families_; }
  bool kernelSafeOnly() const { return kernelSafeOnly_; }

  static Point lowerBounds() { return {1, 1, 0, 0}; }
  static Point upperBounds() { return {8, 32, 64, 3}; }

  // The valid Params nearest to x for this family.
  gen::Params project(gen::Carry carry, const Point& x) const;
  // The point a Params sits at (inverse of project on lattice points).
  static Point pointOf(const gen::Params& params);

  // Every distinct kernel (prefetch=0 listed once), in a stable order.
  std::vector<gen::Params> distinctKernels() const;
  // Parameter points including the four equivalent hints of prefetch=0.
  std::size_t pointCount() const;

 private:
  bool kernelSafeOnly_;
  std::vector<gen::Carry> families_;
};

// Equal kernels have equal keys: the canonical string, with the hint dropped when nothing is
// prefetched (the code is the same).
std::string codeKey(const gen::Params& params);
gen::Params canonicalCode(gen::Params params);

}  // namespace csumtune::tuner
