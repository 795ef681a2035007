#include "search/strategies/runners.hpp"

namespace csumtune::tuner {

SearchOutcome evaluateInOrder(const std::vector<gen::Params>& order, Evaluator& evaluator) {
  try {
    for (const gen::Params& p : order) evaluator(p);
  } catch (const SearchStopped& stop) {
    return {stop.what(), {}};
  }
  return {toString(SearchStopped::Why::Exhausted), {}};
}

SearchOutcome runExhaustive(const SearchSpace& space, Evaluator& evaluator,
                            const SearchSettings& /*settings*/) {
  return evaluateInOrder(space.distinctKernels(), evaluator);
}

}  // namespace csumtune::tuner
