// What the end of a search knows: the best few candidates measured again against the
// baseline, and the winner's sweep over lengths. Data only (results.json, reports).
#pragma once

#include <algorithm>
#include <optional>

#include <vector>

#include "measure/stats.hpp"
#include "measure/workload.hpp"
#include "search/evaluator.hpp"

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
  std::size_t bytes = 0;       // code size
  std::vector<SizeComparison> sizes;
};

struct SweepPoint {
  int size = 0;
  CacheState cache = CacheState::Hot;
  double winnerPerByte = 0;
  double baselinePerByte = 0;
  // Time ratio winner / baseline: under 1 the winner is faster.
  double ratio() const { return baselinePerByte > 0 ? winnerPerByte / baselinePerByte : 0; }
  // The baseline (a tree's file) built with its entry at each offset of a line (0, 16, 32,
  // 48), measured in the same run: where a link may put it. Empty when not measured.
  std::vector<double> placedPerByte;
  // Time ratio winner / baseline, the median of the per-round ratios with its 95 % interval
  // (all 0 when not measured). Against identical code the median alone is above 1 at about
  // half the lengths; only where the interval is above 1 is the winner surely slower.
  RatioEstimate paired{};
  bool pairedMeasured() const { return paired.high > 0; }
  bool significantlySlower() const { return paired.low > 1.0; }
  // Time ratio winner / the file at its slowest placement: above 1 the winner is slower than
  // the file wherever it sits (0 when the placements were not measured).
  double ratioToSlowestPlacement() const {
    if (placedPerByte.empty()) return 0;
    const double slowest = *std::max_element(placedPerByte.begin(), placedPerByte.end());
    return slowest > 0 ? winnerPerByte / slowest : 0;
  }
};

// One guard length as measured: the paired time ratio (candidate / baseline) and its interval.
struct GuardPoint {
  int length = 0;
  CacheState cache = CacheState::Hot;
  RatioEstimate paired{};
};

// A candidate against the baseline at the guard lengths: its worst time ratio there.
struct GuardResult {
  gen::Params params;
  double worstRatio = 0;  // max over the lengths of candidate time / baseline time
  int worstLength = 0;
  bool eligible = true;                     // loss() within the tolerance
  CacheState worstCache = CacheState::Hot;  // where worstRatio was measured
  // The highest lower end, over the lengths, of the 95 % interval of the paired time ratio (0
  // when the measurer has no intervals). Cold, identical code's median lies above 1 at some
  // guard length by chance; its interval does so at about one length in forty (docs/tuning.md),
  // and then mostly by less than the guard's tolerance.
  double worstLow = 0;
  // How many lengths, hot and cold, have their whole interval above 1.
  int surelySlower = 0;
  // How much and how often it surely loses: the sum over the lengths, hot and cold, of how far
  // the interval lies above 1 (its lower end - 1, where above 0). Noise, which moves the
  // medians of identical code above 1 at half the lengths, adds next to nothing to it; a loss
  // hot, where the interval is narrow, counts almost whole. Without intervals: the sum of
  // (time ratio - 1) where above 0.
  double excess = 0;
  // How fast it is per call, losses and gains alike: the geometric mean over the lengths, hot
  // and cold, of the time ratio (0 when the measurer cannot tell: a replayed table).
  double meanRatio = 0;
  // Every length as measured (empty for a measurer without timing), so that its losses can be
  // measured again.
  std::vector<GuardPoint> points;
  // Points (a length, hot or cold) that lost beyond the tolerance when first measured but not
  // when measured again (guard.candidates[].losses_not_repeated).
  int lossesNotRepeated = 0;
  // The loss the guard judges: the surest one (worstLow) when the measurer has intervals, the
  // worst median otherwise.
  double loss() const { return worstLow > 0 ? worstLow : worstRatio; }
};

// A SIMD winner with one middle bound (tune.cpp, chooseMiddlePath): at the guard lengths and
// on the profile, each measured together with the others.
struct MiddlePathResult {
  GuardResult atLengths;
  RatioEstimate profile;  // speed-up against the baseline on the profile
};

// The fastest kernel within a code-size limit, measured together with the winner.
struct SizeLimitResult {
  std::size_t limit = 0;  // bytes; 0 = no limit (the winner)
  gen::Params params;
  std::size_t bytes = 0;
  RatioEstimate speedup;  // vs the baseline, on the profile
  double relative = 0;    // its speed / the winner's (1 = as fast)
};

// The result for `params` among `results`, or nullptr.
const GuardResult* findGuardResult(const std::vector<GuardResult>& results,
                                   const gen::Params& params);
// The one that loses least: the smallest excess, then the fastest per call (the smallest mean
// ratio), then the smallest worst ratio (the first on a tie). `results` must not be empty.
const GuardResult& leastLosing(const std::vector<GuardResult>& results);

// The result for `params` among `measured`, or nullptr.
const FinalistResult* resultOf(const std::vector<FinalistResult>& measured,
                               const gen::Params& params);
// `finalists`, in their order, with the figures of `measured` (one measurement of them all and
// more, so that every figure printed for them comes from it) and their own search scores;
// nothing when one of them is missing there.
std::optional<std::vector<FinalistResult>> remeasuredInOrder(
    const std::vector<FinalistResult>& finalists, const std::vector<FinalistResult>& measured);

// The recorded evaluation of `params`, or one that holds only the params (never evaluated).
Evaluation evaluationOf(const std::vector<Evaluation>& all, const gen::Params& params);

// The `count` best correct evaluations, best first.
std::vector<Evaluation> topEvaluations(const std::vector<Evaluation>& all, std::size_t count);

// The loop shape (the first five keys, the vector sum, kind and store) of a kernel, with the
// default short path.
gen::Params loopOf(const gen::Params& p);

// The guard's candidates: the `count` best, then, of the best one's loop shape, the best
// evaluated kernel of each per-call form (entry test, where the sum enters, tail chains) and
// of each size class (short and middle bounds) with each entry test and of each last-bytes load
// (bounds, byteload) not already among them, and each per-call form's best without an exact
// path (the profile ranks an exact path for one of its lengths first). A
// profile that weighs few short lengths ranks the frames of one loop shape by little more than
// noise (a middle path changes nothing at 40, 576 or 1500 bytes); the guard measures the short
// lengths, where they differ. Then the best of each carry family not among them.
std::vector<Evaluation> guardCandidates(const std::vector<Evaluation>& all, std::size_t count);

}  // namespace csumtune::tuner
