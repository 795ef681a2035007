// The middle path of a SIMD winner, decided per call. A profile may weigh no length between
// the short path and the loop, so it cannot tell whether a middle path (mid=N: one or a few
// masked vectors) pays; the guard's lengths reach through that range, and there the winner
// with each middle bound is compared, all measured together.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "csumtune/gen/params.hpp"
#include "tune/finalist_results.hpp"
#include "tune/tune_measurer.hpp"
#include "tune/tune_run.hpp"

namespace csumtune::tuner {

// `winner` first, then the same kernel with each other middle bound its short bound leaves
// room for, and with none; valid and distinct kernels only. Only `winner` when it is not a
// summing SIMD kernel (the general-purpose families have no middle path).
std::vector<gen::Params> middleVariants(const gen::Params& winner);

// The lengths of `guardLengths` at which the winner's middle bounds can run different
// instructions. Its middle bound is tested after its short one, whatever the entry, and its
// short, tiny and exact paths do not depend on it: below the short bound (without one, under
// 8 bytes with tail=overlap), and at the exact length, every bound runs the same instructions
// (where the middle path's bytes shift them, at other addresses: a placement, which the measurement
// varies round by round or the placement stage judges). There two bounds differ only by noise, and
// over the guard's lengths, hot and cold, noise puts an interval above its limit now and then.
std::vector<int> lengthsWhereMiddleBoundsDiffer(const gen::Params& winner,
                                                const std::vector<int>& guardLengths);

struct MiddleRule {
  double excessSlack = 0;  // how much more another bound may lose than the winner (excess)
  double margin = 0;       // how much smaller its mean time ratio must be
  double worstLimit = 0;   // the largest loss() it may have (the guard's limit)
};

// Which of `measured` (the winner first) to keep: of those that `rule` admits — an excess at
// most excessSlack above the winner's, a loss within worstLimit, a profile interval
// that reaches the winner's (the profile cannot tell it slower), a mean time ratio at least
// `margin` below the winner's — the one fastest per call (the smallest mean time ratio at the
// guard lengths). The winner (0) when none is admitted.
std::size_t chosenMiddle(const std::vector<MiddlePathResult>& measured, const MiddleRule& rule);

struct MiddleSettings {
  std::vector<int> guardLengths;
  double guardTolerance = 0;  // the guard's: a winner it passed is replaced only by one within
  double excessSlack = 0;
  double margin = 0;
};

// The stage: the finalists' winner with each middle bound (each new kernel verified and
// measured on the profile first) is measured together at the guard lengths where they can
// differ (lengthsWhereMiddleBoundsDiffer), hot and cold, then with the finalists on the profile;
// chosenMiddle() decides. A winner the guard passed is replaced only by one that passes it too. The
// chosen kernel goes first among the finalists with its own figures, the old winner behind it;
// every finalist's figures are then this stage's measurement. `phaseStarted` is called before
// anything is measured; nothing happens for a winner without middle bounds, without a guard
// length where they differ, or a measurer without timing.
void chooseMiddlePath(TuneRun& run, TuneMeasurer& measurer, const MiddleSettings& settings,
                      const std::function<void()>& phaseStarted);

}  // namespace csumtune::tuner
