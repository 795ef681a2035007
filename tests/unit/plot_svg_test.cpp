// pareto.svg and space.svg tell the truth: every correct evaluation drawn inside the plot at
// its own height (a log score axis spanning them all, none pinned to an edge), distinct scores
// at distinct heights in the right order, a line at 1.0 naming the reference (Linux), and a
// legend. Found in a tune: the old y axis stopped at 3x the best score and pinned everything
// above it to the top edge (7 points scoring 0.84-2.31 drawn at about 0.54; two front points
// at 3.03 and 2.30 at one height), with no 1.0 line and no legend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "report/pareto_svg.hpp"
#include "search/code_size_tradeoff.hpp"

namespace csumtune::tuner {
namespace {

Evaluation point(const std::string& params, std::size_t bytes, double score,
                 EvalStatus status = EvalStatus::Ok) {
  Evaluation e;
  e.params = gen::parseParams(params);
  e.bytes = bytes;
  e.score = score;
  e.status = status;
  return e;
}

struct Mark {
  std::string kind;
  double score, cx, cy;
};

std::vector<Mark> marks(const std::string& svg) {
  static const std::regex circle(
      R"re(<circle class="(evaluation|front)"(?: data-family="\w+")? data-score="([^"]+)" cx="([^"]+)" cy="([^"]+)")re");
  std::vector<Mark> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), circle); it != std::sregex_iterator();
       ++it) {
    out.push_back({(*it)[1], std::stod((*it)[2]), std::stod((*it)[3]), std::stod((*it)[4])});
  }
  return out;
}

// The y of the reference's dashed line (score 1.0), or NaN when there is none.
double referenceLine(const std::string& svg) {
  static const std::regex line(
      R"re(<line class="reference" data-score="1" x1="[^"]+" y1="([^"]+)" x2="[^"]+" y2="([^"]+)")re");
  std::smatch m;
  if (!std::regex_search(svg, m, line) || m[1] != m[2])
    return std::numeric_limits<double>::quiet_NaN();
  return std::stod(m[1]);
}

// Every check a plot must pass; `drawn` is how many points it must show.
void expectTruthful(const std::string& svg, std::size_t drawn, const std::string& referenceText) {
  ASSERT_FALSE(svg.empty());
  const PlotArea area = scatterPlotArea();
  const std::vector<Mark> all = marks(svg);
  EXPECT_EQ(all.size(), drawn) << svg;
  for (const Mark& m : all) {
    EXPECT_GT(m.cy, area.top + 1) << m.kind << " " << m.score << " at the top edge or above";
    EXPECT_LT(m.cy, area.bottom - 1) << m.kind << " " << m.score << " at the bottom edge or below";
    EXPECT_GE(m.cx, area.left) << m.score;
    EXPECT_LE(m.cx, area.right) << m.score;
  }
  // Higher scores (slower) higher up, distinct scores at distinct heights, equal ones at one.
  for (const Mark& a : all) {
    for (const Mark& b : all) {
      if (a.score < b.score) {
        EXPECT_GT(a.cy, b.cy) << a.score << " is not drawn below " << b.score;
      } else if (a.score == b.score) {
        EXPECT_EQ(a.cy, b.cy) << a.score;
      }
    }
  }
  // The reference's line at 1.0, inside the plot, between the points under and over 1.
  const double one = referenceLine(svg);
  ASSERT_FALSE(std::isnan(one)) << "no 1.0 line";
  EXPECT_GT(one, area.top);
  EXPECT_LT(one, area.bottom);
  for (const Mark& m : all) {
    if (m.score < 1) {
      EXPECT_GT(m.cy, one) << m.score;
    } else if (m.score > 1) {
      EXPECT_LT(m.cy, one) << m.score;
    }
  }
  EXPECT_NE(svg.find(">1.0 = " + referenceText + "</text>"), std::string::npos) << svg;
  // The legend, which names the reference line too.
  const auto legend = svg.find("<g class=\"legend\">");
  ASSERT_NE(legend, std::string::npos) << "no legend";
  EXPECT_NE(svg.find("1.0 = " + referenceText, legend), std::string::npos);
  EXPECT_NE(svg.find("log scale"), std::string::npos) << "the axis says it is logarithmic";
}

// The run the issue describes: a best score of 0.30 and points up to 10x that.
std::vector<Evaluation> spreadRun() {
  return {
      point("carry=adc,chains=4,unroll=16", 486, 0.30),
      point("carry=adc,chains=1,unroll=1", 120, 3.03),
      point("carry=adc,chains=2,unroll=2", 150, 2.30),
      point("carry=adc,chains=2,unroll=4", 180, 2.31),
      point("carry=adc,chains=3,unroll=3", 200, 1.70),
      point("carry=cmov,chains=2,unroll=4", 230, 1.20),
      point("carry=cmov,chains=4,unroll=8", 300, 0.95),
      point("carry=cmov,chains=4,unroll=12", 360, 0.84),
      point("carry=add32,chains=4,unroll=16", 420, 0.84),  // the same score as another
      point("carry=adc,chains=8,unroll=32", 900, 0.29),
      point("carry=adc,chains=6,unroll=30", 800, 0.45),
      // Not drawn: wrong, refused, too big, an infinite score.
      point("carry=adc,chains=5,unroll=5", 100, 0.1, EvalStatus::Wrong),
      point("carry=adc,chains=5,unroll=10", 100, 0.1, EvalStatus::Refused),
      point("carry=adc,chains=7,unroll=14", 5000, 0.2, EvalStatus::TooBig),
      point("carry=adc,chains=7,unroll=7", 100, std::numeric_limits<double>::infinity()),
  };
}

TEST(PlotSvg, ParetoShowsEveryPointAtItsHeightWithTheLinuxLineAndALegend) {
  const std::vector<Evaluation> run = spreadRun();
  const std::vector<ParetoPoint> front = paretoFront(run);
  // The front's points with a score (the infinite one has none to draw).
  const auto scored = std::count_if(front.begin(), front.end(),
                                    [](const ParetoPoint& p) { return std::isfinite(p.score); });
  ASSERT_GE(scored, 4);
  const std::string svg = paretoSvg(run, front, "linux-v6.8");
  expectTruthful(svg, 11 + static_cast<std::size_t>(scored), "Linux (linux-v6.8)");
  // The front's two small points the old axis drew at one height.
  const auto all = marks(svg);
  auto yOf = [&](double score) {
    for (const Mark& m : all)
      if (m.kind == "front" && m.score == score) return m.cy;
    ADD_FAILURE() << "no front point at " << score;
    return 0.0;
  };
  EXPECT_GT(yOf(2.30) - yOf(3.03), 20) << "well apart";
  EXPECT_NE(svg.find("Pareto front"), std::string::npos);
  EXPECT_NE(svg.find("correct evaluation"), std::string::npos);
}

TEST(PlotSvg, SpaceShowsEveryPointAtItsHeightWithTheLinuxLineAndALegend) {
  const std::string svg = spaceSvg(spreadRun(), "linux-v6.8");
  expectTruthful(svg, 11, "Linux (linux-v6.8)");
  // One legend entry per carry family, with its count.
  const std::string legend = svg.substr(svg.find("<g class=\"legend\">"));
  for (const char* family : {">adc (7)<", ">cmov (3)<", ">add32 (1)<"})
    EXPECT_NE(legend.find(family), std::string::npos) << family;
}

TEST(PlotSvg, WideAndNarrowRangesAndAnotherReference) {
  // Three decades: still every point inside, in order.
  std::vector<Evaluation> wide{point("carry=adc,chains=1,unroll=1", 100, 0.05),
                               point("carry=adc,chains=2,unroll=2", 200, 0.5),
                               point("carry=adc,chains=2,unroll=4", 300, 5),
                               point("carry=adc,chains=4,unroll=8", 400, 50)};
  expectTruthful(paretoSvg(wide, paretoFront(wide), "linux-v6.8"), 4 + paretoFront(wide).size(),
                 "Linux (linux-v6.8)");
  expectTruthful(spaceSvg(wide, "linux-v6.8"), 4, "Linux (linux-v6.8)");
  // All close to one another, all faster than the reference: 1.0 is still on the plot.
  std::vector<Evaluation> narrow{point("carry=adc,chains=1,unroll=1", 100, 0.501),
                                 point("carry=adc,chains=2,unroll=2", 110, 0.502),
                                 point("carry=adc,chains=2,unroll=4", 120, 0.503)};
  expectTruthful(spaceSvg(narrow, "linux-v6.8"), 3, "Linux (linux-v6.8)");
  // A seed run's reference is a kernel of ours; text from a run is escaped.
  const std::string seed = "carry=adc,chains=2,unroll=10,prefetch=0,hint=t0";
  expectTruthful(spaceSvg(narrow, seed), 3, seed);
  const std::string hostile = spaceSvg(narrow, "a<b&\"c\"");
  EXPECT_NE(hostile.find("a&lt;b&amp;&quot;c&quot;"), std::string::npos);
  EXPECT_EQ(hostile.find("a<b"), std::string::npos);
  // Nothing correct: no plot.
  EXPECT_EQ(paretoSvg({}, {}, "linux-v6.8"), "");
  EXPECT_EQ(spaceSvg({point("carry=adc", 100, 1, EvalStatus::Wrong)}, "linux-v6.8"), "");
}

}  // namespace
}  // namespace csumtune::tuner
