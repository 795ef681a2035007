// The noise guard: the baseline kernel is measured beside every candidate (and beside the
// finalists); when it runs clearly slower than it usually does in this run, something else
// was using the core (an SMT sibling, an interrupt storm) and the measurement is repeated.
// One guard serves the whole run, so the search and the finalists judge "usual" alike.
#pragma once

#include <cstddef>
#include <vector>

namespace csumtune::tuner {

class NoiseGuard {
 public:
  NoiseGuard(double tolerance, int maxRetries) : tolerance_(tolerance), maxRetries_(maxRetries) {}

  // Whether a baseline figure is clearly slower than usual (without recording it).
  bool disturbed(double baselineFigure) const;
  // Records what the baseline measured on attempt `attempt` (0-based) of one measurement;
  // true when the measurement should be repeated.
  bool shouldRepeat(double baselineFigure, int attempt);

  // What the baseline usually measures in this run (the 20th percentile of its last 200
  // figures: what it measures when the core is quiet); 0 until there are 5 figures.
  double usualBaseline() const;
  // Measurements repeated so far.
  std::size_t retries() const { return retries_; }
  void countRetry() { ++retries_; }
  int maxRetries() const { return maxRetries_; }

 private:
  double tolerance_;
  int maxRetries_;
  std::vector<double> history_;
  std::size_t retries_ = 0;
};

}  // namespace csumtune::tuner
