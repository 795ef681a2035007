#include "report/pareto_svg.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "csumtune/gen/params.hpp"

namespace csumtune::tuner {
namespace {

constexpr double kWidth = 820, kHeight = 480;
// The legend sits right of the plot area: it never hides a point.
constexpr double kLeft = 70, kRight = 210, kTop = 40, kBottom = 50;
constexpr double kPlotRight = kWidth - kRight, kPlotBottom = kHeight - kBottom;

std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A round step for about `count` ticks over `span`.
double tickStep(double span, int count) {
  const double raw = span / count;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * magnitude) return m * magnitude;
  }
  return 10 * magnitude;
}

// Linear x axis over [lo, hi].
struct LinearAxis {
  double lo, hi;
  double operator()(double x) const { return kLeft + (x - lo) / (hi - lo) * (kPlotRight - kLeft); }
  std::vector<double> ticks() const {
    std::vector<double> out;
    const double step = tickStep(hi - lo, 8);
    // + 0.0: no "-0" label.
    for (double x = std::ceil(lo / step) * step; x <= hi + 1e-9; x += step) out.push_back(x + 0.0);
    return out;
  }
};

// The score axis: logarithmic, spanning every score and 1.0 (the baseline), with a margin.
struct LogAxis {
  double lo, hi;  // log10 of the ends
  double operator()(double y) const {
    return kPlotBottom - (std::log10(y) - lo) / (hi - lo) * (kPlotBottom - kTop);
  }
  // Round values: 1-2-5 per decade over a wide range, 1 per decade over a very wide one, and
  // evenly stepped values over a narrow one (fewer than a factor 4 from end to end).
  std::vector<double> ticks() const {
    std::vector<double> out;
    const double decades = hi - lo;
    if (decades < std::log10(4.0)) {
      const double a = std::pow(10, lo), b = std::pow(10, hi);
      const double step = tickStep(b - a, 6);
      for (double y = std::ceil(a / step) * step; y <= b; y += step)
        if (y > 0) out.push_back(y);
      return out;
    }
    const std::vector<double> mantissas = decades > 3.5   ? std::vector<double>{1}
                                          : decades > 1.5 ? std::vector<double>{1, 2, 5}
                                                          : std::vector<double>{1, 1.5, 2, 3, 5, 7};
    for (int k = static_cast<int>(std::floor(lo)); k <= static_cast<int>(std::ceil(hi)); ++k) {
      for (double m : mantissas) {
        const double y = m * std::pow(10, k);
        if (std::log10(y) >= lo && std::log10(y) <= hi) out.push_back(y);
      }
    }
    return out;
  }
};

LogAxis scoreAxis(double yMin, double yMax) {
  const double lo = std::log10(std::min(yMin, 1.0)), hi = std::log10(std::max(yMax, 1.0));
  const double pad = std::max(0.02, 0.05 * (hi - lo));
  return {lo - pad, hi + pad};
}

LinearAxis xAxis(double xMin, double xMax, double minimumPad) {
  const double pad = std::max(minimumPad, 0.05 * (xMax - xMin));
  return {xMin - pad, xMax + pad};
}

// The baseline's line label: Linux's csum_partial is named as such.
std::string baselineLabel(const std::string& baseline) {
  std::string lower = baseline;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("linux") != std::string::npos ? "Linux (" + baseline + ")" : baseline;
}

// The frame: title, grid, ticks, axis labels, the 1.0 line.
std::string frame(const std::string& title, const LinearAxis& x, const LogAxis& y,
                  const std::string& xLabel, const std::string& baseline) {
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">{3}</text>\n",
      kWidth, kHeight, (kLeft + kPlotRight) / 2, escaped(title));
  for (double v : x.ticks()) {
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{0:.1f}\" y=\"{3:.1f}\" text-anchor=\"middle\">{4:g}</text>\n",
        x(v), kPlotBottom, kTop, kPlotBottom + 16, v);
  }
  for (double v : y.ticks()) {
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.2f}\" x2=\"{2:.1f}\" y2=\"{1:.2f}\" stroke=\"#ddd\"/>"
        "<text x=\"{3:.1f}\" y=\"{4:.2f}\" text-anchor=\"end\">{5:.3g}</text>\n",
        kLeft, y(v), kPlotRight, kLeft - 6, y(v) + 4, v);
  }
  svg += fmt::format(
      "<rect x=\"{0:.1f}\" y=\"{1:.1f}\" width=\"{2:.1f}\" height=\"{3:.1f}\" fill=\"none\" "
      "stroke=\"#888\"/>\n"
      "<text x=\"{4:.1f}\" y=\"{5:.1f}\" text-anchor=\"middle\">{6}</text>\n"
      "<text transform=\"translate(16,{7:.1f}) rotate(-90)\" text-anchor=\"middle\">time / "
      "{8} on the profile (log scale; lower is faster)</text>\n",
      kLeft, kTop, kPlotRight - kLeft, kPlotBottom - kTop, (kLeft + kPlotRight) / 2, kHeight - 12,
      escaped(xLabel), (kTop + kPlotBottom) / 2, escaped(baseline));
  svg += fmt::format(
      "<line class=\"reference\" data-score=\"1\" x1=\"{0:.1f}\" y1=\"{1:.2f}\" x2=\"{2:.1f}\" "
      "y2=\"{1:.2f}\" stroke=\"#333\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>"
      "<text x=\"{3:.1f}\" y=\"{4:.2f}\" text-anchor=\"end\" fill=\"#333\" stroke=\"white\" "
      "stroke-width=\"3\" paint-order=\"stroke\">1.0 = {5}</text>\n",
      kLeft, y(1.0), kPlotRight, kPlotRight - 4, y(1.0) - 4, escaped(baselineLabel(baseline)));
  return svg;
}

// One legend entry per mark: a dot (radius r, and a line through it when `line`), or the
// dashed baseline line.
struct LegendEntry {
  std::string label;
  std::string color;
  double radius = 0;  // 0: the dashed baseline line
  bool line = false;
};

std::string legend(const std::vector<LegendEntry>& entries) {
  const double x = kPlotRight + 16;
  std::string svg = "<g class=\"legend\">\n";
  double y = kTop + 8;
  for (const LegendEntry& e : entries) {
    if (e.radius == 0) {
      svg += fmt::format(
          "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"#333\" "
          "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>",
          x, y, x + 22);
    } else {
      if (e.line) {
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" stroke=\"{3}\" "
            "stroke-width=\"2\"/>",
            x, y, x + 22, e.color);
      }
      svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\"/>", x + 11, y,
                         e.radius, e.color);
    }
    svg +=
        fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", x + 30, y + 4, escaped(e.label));
    y += 20;
  }
  return svg + "</g>\n";
}

bool plotted(const Evaluation& e) {
  return e.status == EvalStatus::Ok && std::isfinite(e.score) && e.score > 0;
}

}  // namespace

PlotArea scatterPlotArea() {
  return {kLeft, kPlotRight, kTop, kPlotBottom};
}

std::string paretoSvg(const std::vector<Evaluation>& evaluations,
                      const std::vector<ParetoPoint>& front, const std::string& baseline) {
  std::vector<const Evaluation*> points;
  for (const Evaluation& e : evaluations)
    if (plotted(e) && e.bytes > 0) points.push_back(&e);
  if (points.empty()) return {};
  double xMin = static_cast<double>(points.front()->bytes), xMax = xMin;
  double yMin = points.front()->score, yMax = yMin;
  auto extend = [&](double x, double y) {
    xMin = std::min(xMin, x), xMax = std::max(xMax, x);
    yMin = std::min(yMin, y), yMax = std::max(yMax, y);
  };
  for (const Evaluation* e : points) extend(static_cast<double>(e->bytes), e->score);
  for (const ParetoPoint& p : front)
    if (std::isfinite(p.score) && p.score > 0) extend(static_cast<double>(p.bytes), p.score);
  const LinearAxis x = xAxis(xMin, xMax, 10);
  const LogAxis y = scoreAxis(yMin, yMax);

  std::string svg = frame("Code size against speed: every correct evaluation, and the Pareto front",
                          x, y, "code size (bytes)", baseline);
  for (const Evaluation* e : points) {
    svg += fmt::format(
        "<circle class=\"evaluation\" data-score=\"{:.9g}\" cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"2\" "
        "fill=\"#9bb\"/>\n",
        e->score, x(static_cast<double>(e->bytes)), y(e->score));
  }
  std::string path;
  for (const ParetoPoint& p : front) {
    if (!(std::isfinite(p.score) && p.score > 0)) continue;
    path += fmt::format("{}{:.2f},{:.2f}", path.empty() ? "M" : " L",
                        x(static_cast<double>(p.bytes)), y(p.score));
  }
  if (!path.empty())
    svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"#c33\" stroke-width=\"2\"/>\n", path);
  for (const ParetoPoint& p : front) {
    if (!(std::isfinite(p.score) && p.score > 0)) continue;
    svg += fmt::format(
        "<circle class=\"front\" data-score=\"{:.9g}\" cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"4\" "
        "fill=\"#c33\"><title>{} bytes: {} ({:.4f})</title></circle>\n",
        p.score, x(static_cast<double>(p.bytes)), y(p.score), p.bytes, p.params.toString(),
        p.score);
  }
  svg += legend({{"correct evaluation", "#9bb", 2, false},
                 {"Pareto front", "#c33", 4, true},
                 {"1.0 = " + baselineLabel(baseline), "", 0, false}});
  return svg + "</svg>\n";
}

std::string spaceSvg(const std::vector<Evaluation>& evaluations, const std::string& baseline) {
  static const std::vector<std::string> palette{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                                "#9467bd", "#8c564b", "#e377c2", "#17becf"};
  // The families in the registry's order, each a colour of its own.
  std::map<gen::Carry, std::vector<const Evaluation*>> families;
  for (const Evaluation& e : evaluations)
    if (plotted(e)) families[e.params.carry].push_back(&e);
  if (families.empty()) return {};
  // x: unroll, the chain count spreading one unroll's points a little (chains 1..8 within
  // +-0.35), so kernels of one unroll do not hide each other.
  auto xOf = [](const Evaluation& e) { return e.params.unroll + 0.1 * (e.params.chains - 4.5); };
  double xMin = 1e300, xMax = -1e300, yMin = 1e300, yMax = -1e300;
  for (const auto& [carry, list] : families) {
    for (const Evaluation* e : list) {
      xMin = std::min(xMin, xOf(*e)), xMax = std::max(xMax, xOf(*e));
      yMin = std::min(yMin, e->score), yMax = std::max(yMax, e->score);
    }
  }
  const LinearAxis x = xAxis(xMin, xMax, 1);
  const LogAxis y = scoreAxis(yMin, yMax);
  std::string svg =
      frame("Every correct evaluation of the search, by carry family", x, y,
            "unroll (8-byte words per iteration; chains 1..8 offset within)", baseline);
  std::vector<LegendEntry> entries;
  std::size_t colour = 0;
  for (const auto& [carry, list] : families) {
    const std::string& fill = palette[colour++ % palette.size()];
    const std::string family(gen::toString(carry));
    entries.push_back({fmt::format("{} ({})", family, list.size()), fill, 3, false});
    for (const Evaluation* e : list) {
      svg += fmt::format(
          "<circle class=\"evaluation\" data-family=\"{}\" data-score=\"{:.9g}\" cx=\"{:.2f}\" "
          "cy=\"{:.2f}\" r=\"2.5\" fill=\"{}\" fill-opacity=\"0.7\"/>\n",
          family, e->score, x(xOf(*e)), y(e->score), fill);
    }
  }
  entries.push_back({"1.0 = " + baselineLabel(baseline), "", 0, false});
  svg += legend(entries);
  return svg + "</svg>\n";
}

}  // namespace csumtune::tuner
