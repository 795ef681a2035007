// Search strategies: each is one `run` function (search/strategies/<name>.cpp) and one line
// of the registry (search/strategies/registry.cpp). The CLI's help and --list-algorithms, the
// tests and scripts/compare-search.sh all read the registry; its first line is the default.
//
// Every strategy drives the same Evaluator (memo, budget, stall, time, Ctrl-C), and the same
// seed gives the same visit order.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "search/evaluator.hpp"
#include "search/space.hpp"

namespace csumtune::tuner {

struct SearchSettings {
  std::string algorithm;  // a registry name; empty = the default strategy
  std::uint64_t seed = 1;
  std::size_t stall = 0;  // per carry family; 0 = derived from the budget
};

struct SearchOutcome {
  std::string stoppedBecause;       // why the search as a whole ended
  std::vector<std::string> phases;  // one line per carry family (nlopt strategies)
};

struct SearchStrategy {
  std::string_view name;
  std::string_view help;
  // Runs until the space, budget or time runs out (or Ctrl-C). Never throws SearchStopped.
  SearchOutcome (*run)(const SearchSpace& space, Evaluator& evaluator,
                       const SearchSettings& settings);
};

// The registry, default first.
std::span<const SearchStrategy> searchStrategies();
const SearchStrategy& defaultStrategy();
// nullptr when no strategy has that name.
const SearchStrategy* findStrategy(std::string_view name);
// "crs2, direct-l, ...": the names, for messages.
std::string strategyNames();

// Runs settings.algorithm (the default when empty). Throws std::invalid_argument for an
// unknown name.
SearchOutcome runSearch(const SearchSpace& space, Evaluator& evaluator,
                        const SearchSettings& settings);

}  // namespace csumtune::tuner
