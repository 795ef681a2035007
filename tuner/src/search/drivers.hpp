// Search algorithms over the space, all driving the same Evaluator:
//
//   exhaustive  every distinct kernel, in a fixed order
//   random      distinct kernels in a seeded random order, without repeats
//   direct-l, crs2, sbplx, mlsl   nlopt (DIRECT-L, CRS2-LM, Subplex, MLSL-LDS with Subplex
//               as its local method) on the rounded lattice, one run per carry family with
//               that family's share of the remaining budget and a stall limit
//
// The same seed gives the same visit order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "search/evaluator.hpp"
#include "search/space.hpp"

namespace csumtune::tuner {

struct SearchSettings {
  std::string algorithm = "crs2";
  std::uint64_t seed = 1;
  std::size_t stall = 0;  // per carry family; 0 = derived from the budget
};

std::vector<std::string> algorithmNames();
bool isKnownAlgorithm(const std::string& name);

struct SearchOutcome {
  std::string stoppedBecause;       // why the search as a whole ended
  std::vector<std::string> phases;  // one line per carry family (nlopt drivers)
};

// Runs until the space, budget or time runs out (or Ctrl-C). Never throws SearchStopped.
SearchOutcome runSearch(const SearchSpace& space, Evaluator& evaluator,
                        const SearchSettings& settings);

}  // namespace csumtune::tuner
