// A run's scatter plots as SVG, written by csumtune itself (no plotting tool needed):
//   pareto.svg  code size against score: every correct evaluation, and the Pareto front;
//   space.svg   unroll against score: every correct evaluation, one colour per carry family.
// The score (time / the baseline's) is on a logarithmic axis that spans every point, so
// each one is drawn at its true height whatever the spread; a dashed line marks 1.0, the
// baseline (Linux's csum_partial unless the run chose another); a legend names every mark.
// Each point carries its score in a data-score attribute.
#pragma once

#include <string>
#include <vector>

#include "search/code_size_tradeoff.hpp"
#include "search/evaluator.hpp"

namespace csumtune::tuner {

// "" when no evaluation is correct with a known size.
std::string paretoSvg(const std::vector<Evaluation>& evaluations,
                      const std::vector<ParetoPoint>& front, const std::string& baseline);

// "" when no evaluation is correct.
std::string spaceSvg(const std::vector<Evaluation>& evaluations, const std::string& baseline);

// The plot area every point of these plots lies in (SVG user units, y growing downwards).
struct PlotArea {
  double left, right, top, bottom;
};
PlotArea scatterPlotArea();

}  // namespace csumtune::tuner
