// The middle path of a SIMD winner, decided per call. A profile may weigh no length between
// the short path and the loop (imix: 40, 576 and 1500 bytes), so it cannot tell whether a
// middle path (mid=N: one or a few masked vectors) pays; the guard's lengths reach through
// that range, and there the winner with each middle bound is compared, measured together.
#pragma once

#include <cstddef>
#include <vector>

#include "csumtune/gen/params.hpp"
#include "tune/finalist_results.hpp"

namespace csumtune::tuner {

// `winner` first, then the same kernel with each other middle bound its short bound leaves
// room for, and with none; valid and distinct kernels only. Only `winner` when it is not a
// summing SIMD kernel (the general-purpose families have no middle path).
std::vector<gen::Params> middleVariants(const gen::Params& winner);

// Which of `measured` (the winner first) to keep: the one fastest per call (the smallest mean
// time ratio at the guard lengths) of those that lose no more there than the winner (excess
// at most `excessSlack` above its own) and that the profile cannot tell from it or finds
// faster (their intervals overlap, or it is above). The winner (0) when none is faster.
std::size_t chosenMiddle(const std::vector<MiddlePathResult>& measured, double excessSlack);

}  // namespace csumtune::tuner
