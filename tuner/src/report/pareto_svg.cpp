#include "report/pareto_svg.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace csumtune::tuner {
namespace {

constexpr double kWidth = 800, kHeight = 480;
constexpr double kLeft = 70, kRight = 20, kTop = 40, kBottom = 50;

// A round step for about `count` ticks over `span`.
double tickStep(double span, int count) {
  const double raw = span / count;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * magnitude) return m * magnitude;
  }
  return 10 * magnitude;
}

}  // namespace

std::string paretoSvg(const std::vector<Evaluation>& evaluations,
                      const std::vector<ParetoPoint>& front, const std::string& reference) {
  std::vector<std::pair<double, double>> points;
  for (const Evaluation& e : evaluations) {
    if (e.status == EvalStatus::Ok && e.bytes > 0 && std::isfinite(e.score))
      points.emplace_back(static_cast<double>(e.bytes), e.score);
  }
  if (points.empty()) return {};
  double xMin = points.front().first, xMax = xMin, yMin = points.front().second, yMax = yMin;
  for (const auto& [x, y] : points) {
    xMin = std::min(xMin, x), xMax = std::max(xMax, x);
    yMin = std::min(yMin, y), yMax = std::max(yMax, y);
  }
  // Room around the points; the y range is clipped at 3x the best so one slow outlier does
  // not flatten the front.
  yMax = std::min(yMax, 3 * yMin);
  const double xPad = std::max(10.0, 0.05 * (xMax - xMin)), yPad = 0.05 * (yMax - yMin + 0.01);
  xMin -= xPad, xMax += xPad, yMin = std::max(0.0, yMin - yPad), yMax += yPad;
  auto px = [&](double x) {
    return kLeft + (x - xMin) / (xMax - xMin) * (kWidth - kLeft - kRight);
  };
  auto py = [&](double y) {
    return kHeight - kBottom - (y - yMin) / (yMax - yMin) * (kHeight - kTop - kBottom);
  };

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">Code size against "
      "speed: every correct evaluation, and the Pareto front</text>\n",
      kWidth, kHeight, kWidth / 2);
  // Axes, ticks and labels.
  const double xStep = tickStep(xMax - xMin, 8), yStep = tickStep(yMax - yMin, 6);
  for (double x = std::ceil(xMin / xStep) * xStep; x <= xMax; x += xStep) {
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{0:.1f}\" y=\"{3:.1f}\" text-anchor=\"middle\">{4:.0f}</text>\n",
        px(x), py(yMin), py(yMax), kHeight - kBottom + 16, x);
  }
  for (double y = std::ceil(yMin / yStep) * yStep; y <= yMax; y += yStep) {
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{3:.1f}\" y=\"{4:.1f}\" text-anchor=\"end\">{5:.3g}</text>\n",
        px(xMin), py(y), px(xMax), kLeft - 6, py(y) + 4, y);
  }
  svg += fmt::format(
      "<text x=\"{0:.1f}\" y=\"{1:.1f}\" text-anchor=\"middle\">code size (bytes)</text>\n"
      "<text transform=\"translate(16,{2:.1f}) rotate(-90)\" text-anchor=\"middle\">time / "
      "{3} on the profile (lower is faster)</text>\n",
      (kLeft + kWidth - kRight) / 2, kHeight - 12, (kTop + kHeight - kBottom) / 2, reference);
  for (const auto& [x, y] : points) {
    if (y <= yMax)
      svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2\" fill=\"#9bb\"/>\n", px(x),
                         py(y));
  }
  std::string path;
  for (const ParetoPoint& p : front) {
    const double y = std::min(p.score, yMax);
    path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", px(p.bytes), py(y));
  }
  svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"#c33\" stroke-width=\"2\"/>\n", path);
  for (const ParetoPoint& p : front) {
    svg += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"#c33\"><title>{} bytes: {}</title>"
        "</circle>\n",
        px(p.bytes), py(std::min(p.score, yMax)), p.bytes, p.params.toString());
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace csumtune::tuner
