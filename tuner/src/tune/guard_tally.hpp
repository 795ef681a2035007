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

  // `first` with each point (a length, hot or cold) that lost beyond `limit` and that `again`
  // (a later measurement of some of its lengths) measured too taking `again`'s figure: the
  // second measurement, which nothing selected, decides there. Every other point keeps
  // `first`'s figure.
  static GuardResult repeatLosses(const GuardResult& first, const GuardResult& again, double limit);

 private:
  GuardResult result_;
  double logRatios_ = 0;
  int ratios_ = 0;
};

}  // namespace csumtune::tuner
