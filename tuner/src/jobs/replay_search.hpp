// A search over a recorded table instead of the CPU (tune --replay): how close a strategy
// comes to the table's optimum, and with how many evaluations — the way search algorithms
// are compared (scripts/compare-search.sh).
#pragma once

#include <cstddef>
#include <string>

#include "jobs/tune_on_host.hpp"

namespace csumtune::tuner {

struct ReplayOutcome {
  std::size_t unique = 0;  // evaluations this run
  std::size_t revisits = 0;
  std::size_t tableSize = 0;
  std::string best;  // canonical params; empty when nothing was found
  double bestScore = 0;
  std::string optimum;
  double optimumScore = 0;
  double gapPercent = 100;  // how much slower the best found is than the optimum
  std::size_t rank = 0;     // of the best found in the table (1 = the optimum)
  std::string stoppedBecause;
};

// Searches `table` (an exhaustive run's results.json) with the request's strategy, budget,
// seed, space and code-size limit. BadRequest for a table of the other kind or without a
// correct evaluation, and for options that measure (a baseline source, --wait-quiet).
ReplayOutcome replaySearch(const HostTuneRequest& request, const std::string& table);

}  // namespace csumtune::tuner
