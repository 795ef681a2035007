// The search strategies, default first. A strategy = its run function + one line here.
#include <algorithm>
#include <stdexcept>

#include "search/strategies/runners.hpp"

namespace csumtune::tuner {
namespace {

constexpr SearchStrategy kStrategies[] = {
    {"crs2", "nlopt CRS2-LM: controlled random search with local mutation (default)", runCrs2},
    {"direct-l", "nlopt DIRECT-L: deterministic division of the box", runDirectL},
    {"sbplx", "nlopt Subplex: local, from the 2013 thread's shape (4 chains, 16 words)", runSbplx},
    {"mlsl", "nlopt MLSL-LDS with Subplex as its local method", runMlsl},
    {"random", "distinct kernels in a seeded random order, without repeats", runRandom},
    {"exhaustive", "every distinct kernel of the space, in a fixed order", runExhaustive},
};

}  // namespace

std::span<const SearchStrategy> searchStrategies() {
  return kStrategies;
}

const SearchStrategy& defaultStrategy() {
  return kStrategies[0];
}

const SearchStrategy* findStrategy(std::string_view name) {
  const auto* it = std::find_if(std::begin(kStrategies), std::end(kStrategies),
                                [&](const SearchStrategy& s) { return s.name == name; });
  return it == std::end(kStrategies) ? nullptr : it;
}

std::string strategyNames() {
  std::string out;
  for (const SearchStrategy& s : kStrategies)
    out += (out.empty() ? "" : ", ") + std::string(s.name);
  return out;
}

SearchOutcome runSearch(const SearchSpace& space, Evaluator& evaluator,
                        const SearchSettings& settings) {
  const SearchStrategy* strategy =
      settings.algorithm.empty() ? &defaultStrategy() : findStrategy(settings.algorithm);
  if (!strategy)
    throw std::invalid_argument("unknown search algorithm '" + settings.algorithm + "'");
  evaluator.beginPhase(0, 0);
  return strategy->run(space, evaluator, settings);
}

}  // namespace csumtune::tuner
