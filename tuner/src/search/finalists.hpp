// The end of a search: the best few candidates measured again, longer, interleaved with
// the Linux-like baseline, and the winner reported with its speedup and confidence interval
// (or plainly as not significantly faster).
#pragma once

#include <vector>

#include "measure/harness.hpp"
#include "measure/stats.hpp"
#include "search/evaluator.hpp"
#include "search/profile.hpp"

namespace csumtune::tuner {

struct SizeComparison {
  int size = 0;
  double perByte = 0;  // median timer units per byte
  double baselinePerByte = 0;
  RatioEstimate speedup;  // baseline / kernel, paired by round
};

struct FinalistResult {
  gen::Params params;
  double searchScore = 0;      // relative score found during the search
  double scorePerByte = 0;     // profile score, re-measured
  double baselinePerByte = 0;  // the baseline's profile score in the same run
  RatioEstimate speedup;       // on the whole profile, paired by round
  std::vector<SizeComparison> sizes;
};

struct FinalSettings {
  int repeat = 201;
  double targetBatchTicks = 100000;
};

// The `count` best correct evaluations, best first.
std::vector<Evaluation> topEvaluations(const std::vector<Evaluation>& all, std::size_t count);

// Re-measures the finalists and the baseline together; sorted best (lowest score) first.
std::vector<FinalistResult> remeasureFinalists(const std::vector<Evaluation>& finalists,
                                               const Profile& profile, Timer& timer,
                                               Workload& workload, const FinalSettings& settings);

struct SweepPoint {
  int size = 0;
  double winnerPerByte = 0;
  double baselinePerByte = 0;
};

// Winner and baseline across lengths 40 B .. 64 KiB (for the report's plot).
std::vector<SweepPoint> sweepLengths(const gen::Params& winner, Timer& timer, Workload& workload,
                                     int repeat);

}  // namespace csumtune::tuner
