#include <algorithm>
#include <random>

#include "search/strategies/runners.hpp"

namespace csumtune::tuner {

SearchOutcome runRandom(const SearchSpace& space, Evaluator& evaluator,
                        const SearchSettings& settings) {
  auto order = space.distinctKernels();
  std::mt19937_64 rng(settings.seed);
  std::shuffle(order.begin(), order.end(), rng);
  return evaluateInOrder(order, evaluator);
}

}  // namespace csumtune::tuner
