// The size/speed trade-off of a run as an SVG scatter plot (written by csumtune itself: no
// plotting tool needed): every correct evaluation, and the Pareto front drawn through them.
#pragma once

#include <string>
#include <vector>

#include "search/code_size_tradeoff.hpp"
#include "search/evaluator.hpp"

namespace csumtune::tuner {

std::string paretoSvg(const std::vector<Evaluation>& evaluations,
                      const std::vector<ParetoPoint>& front, const std::string& reference);

}  // namespace csumtune::tuner
