// The run functions the strategy registry lists (one file each; the nlopt ones share
// nlopt_search.cpp and differ only in the algorithm).
#pragma once

#include "search/strategy.hpp"

namespace csumtune::tuner {

SearchOutcome runCrs2(const SearchSpace&, Evaluator&, const SearchSettings&);
SearchOutcome runDirectL(const SearchSpace&, Evaluator&, const SearchSettings&);
SearchOutcome runSbplx(const SearchSpace&, Evaluator&, const SearchSettings&);
SearchOutcome runMlsl(const SearchSpace&, Evaluator&, const SearchSettings&);
SearchOutcome runRandom(const SearchSpace&, Evaluator&, const SearchSettings&);
SearchOutcome runExhaustive(const SearchSpace&, Evaluator&, const SearchSettings&);

// Evaluates `order` until it ends or a stop rule fires (exhaustive, random).
SearchOutcome evaluateInOrder(const std::vector<gen::Params>& order, Evaluator& evaluator);

}  // namespace csumtune::tuner
