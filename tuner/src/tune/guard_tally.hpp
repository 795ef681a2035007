// One candidate's figures at the guard lengths, summed up length by length into the
// GuardResult that the guard, the runoff, the middle path and placement judge it by.
#pragma once

#include "tune/finalist_results.hpp"

namespace csumtune::tuner {

class GuardTally {
 public:
  GuardTally(const gen::Params& params, CacheState cache);
  // One length's paired time ratio (candidate / baseline, round by round) with its interval.
  void add(const RatioEstimate& paired, int length, CacheState cache);
  // The figures so far; meanRatio 0 until a length with a ratio was added.
  GuardResult result() const;

  // `first` with each length that lost beyond `limit` judged by its less sure loss of the two
  // measurements, `first`'s and `again`'s (a later measurement of some of its lengths): a
  // loss must show twice to count. Lengths `again` did not measure keep `first`'s figure.
  static GuardResult repeatLosses(const GuardResult& first, const GuardResult& again, double limit);

 private:
  GuardResult result_;
  double logRatios_ = 0;
  int ratios_ = 0;
};

}  // namespace csumtune::tuner
