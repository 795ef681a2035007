// Code size as a second objective: the Pareto front of a run's evaluations (no kernel on it
// is both bigger and slower than another), the best kernel under a size limit, and the
// smallest kernel of the space.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "csumtune/gen/params.hpp"
#include "search/evaluator.hpp"

namespace csumtune::tuner {

struct ParetoPoint {
  gen::Params params;
  std::size_t bytes = 0;
  double score = 0;  // search score: time / the reference's
};

// The correct evaluations no other one beats in both size and score, smallest first (each
// next point bigger and strictly faster).
std::vector<ParetoPoint> paretoFront(const std::vector<Evaluation>& evaluations);

// The fastest point of the front with at most `limit` bytes.
std::optional<ParetoPoint> bestWithin(const std::vector<ParetoPoint>& front, std::size_t limit);

struct SmallestKernel {
  gen::Params params;
  std::size_t bytes = 0;
};

// The smallest kernel of the space (kernel-safe or all): every short-path variant of the
// loops of one and two chains and words without prefetch, in every family — more chains, more
// words or a prefetch only add instructions (a unit test checks it over the whole space).
SmallestKernel smallestKernel(bool kernelSafeOnly, gen::Kind kind = gen::Kind::Sum);

}  // namespace csumtune::tuner
