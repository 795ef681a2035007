#include "tune/middle_path.hpp"

#include <algorithm>
#include <limits>

namespace csumtune::tuner {

std::vector<gen::Params> middleVariants(const gen::Params& winner) {
  std::vector<gen::Params> out{winner};
  if (!gen::traitsOf(winner.carry).isVector() || winner.kind != gen::Kind::Sum) return out;
  std::vector<int> bounds{0};
  for (int mid : gen::ParamLimits::kMidBounds) bounds.push_back(mid);
  for (int mid : bounds) {
    gen::Params p = winner;
    p.mid = mid;
    p = p.canonical();
    // A bound at or below the short bound is no middle path: the same kernel as mid=0.
    if (mid != 0 && !p.hasMidPath()) continue;
    if (gen::validationError(p).empty() && std::find(out.begin(), out.end(), p) == out.end())
      out.push_back(p);
  }
  return out;
}

std::vector<int> lengthsWhereMiddleBoundsDiffer(const gen::Params& winner,
                                                const std::vector<int>& guardLengths) {
  std::vector<int> out;
  for (const int length : guardLengths) {
    const bool shortPath = winner.hasShortPath() && length < winner.shortBelow;
    // Without a short path, tail=overlap sends buffers under 8 bytes to the tiny path first.
    const bool tinyPath = !winner.hasShortPath() && winner.tail == gen::Tail::Overlap && length < 8;
    if (!shortPath && !tinyPath && length != winner.exact) out.push_back(length);
  }
  return out;
}

std::size_t chosenMiddle(const std::vector<MiddlePathResult>& measured, const MiddleRule& rule) {
  if (measured.empty()) return 0;
  const MiddlePathResult& winner = measured.front();
  std::size_t chosen = 0;
  for (std::size_t i = 1; i < measured.size(); ++i) {
    const GuardResult& g = measured[i].atLengths;
    const bool admitted = g.excess <= winner.atLengths.excess + rule.excessSlack &&
                          g.loss() <= rule.worstLimit &&
                          measured[i].profile.high >= winner.profile.low && g.meanRatio > 0 &&
                          g.meanRatio < winner.atLengths.meanRatio * (1 - rule.margin);
    if (admitted && (chosen == 0 || g.meanRatio < measured[chosen].atLengths.meanRatio)) chosen = i;
  }
  return chosen;
}

void chooseMiddlePath(TuneRun& run, TuneMeasurer& measurer, const MiddleSettings& settings,
                      const std::function<void()>& phaseStarted) {
  if (run.finalists.empty()) return;
  const gen::Params winner = run.finalists.front().params;
  const auto bounds = middleVariants(winner);
  const auto lengths = lengthsWhereMiddleBoundsDiffer(winner, settings.guardLengths);
  if (bounds.size() < 2 || lengths.empty()) return;
  phaseStarted();
  std::vector<gen::Params> variants{winner};
  std::vector<Evaluation> again;
  for (const FinalistResult& f : run.finalists)
    again.push_back(evaluationOf(run.evaluations, f.params));
  for (const gen::Params& p : bounds) {
    // Every other bound, even one the guard failed where the winner passed: the guard judged
    // it at every length, those where both run the same code included.
    if (p == winner) continue;
    // Measured in the search already, or verified and measured now. A fresh one is not added
    // to the search's evaluations (results.json counts those as the search's, and --resume
    // replays them); its profile figures are this stage's.
    const auto known = std::find_if(run.evaluations.begin(), run.evaluations.end(),
                                    [&](const Evaluation& e) { return e.params == p; });
    const Evaluation checked = known != run.evaluations.end() ? *known : measurer.measure(p);
    if (checked.status != EvalStatus::Ok) continue;
    variants.push_back(p);
    if (std::none_of(again.begin(), again.end(),
                     [&](const Evaluation& e) { return e.params == p; }))
      again.push_back(checked);
  }
  if (variants.size() < 2) return;
  const auto atLengths = measurer.guardTogether(variants, lengths);
  if (atLengths.size() != variants.size() || atLengths.front().meanRatio <= 0) return;
  const auto measured = measurer.remeasureFinalists(again);
  std::vector<MiddlePathResult> middle;
  for (const GuardResult& g : atLengths) {
    const FinalistResult* r = resultOf(measured, g.params);
    if (!r) return;
    middle.push_back({g, r->speedup});
  }
  auto finalists = remeasuredInOrder(run.finalists, measured);
  if (!finalists) return;
  const GuardResult* guarded = findGuardResult(run.guard, winner);
  const MiddleRule rule{settings.excessSlack, settings.margin,
                        guarded && guarded->eligible ? 1 + settings.guardTolerance
                                                     : std::numeric_limits<double>::max()};
  if (const std::size_t chosen = chosenMiddle(middle, rule); chosen != 0) {
    const gen::Params& bound = middle[chosen].atLengths.params;
    const auto among = std::find_if(finalists->begin(), finalists->end(),
                                    [&](const FinalistResult& f) { return f.params == bound; });
    if (among != finalists->end()) {
      std::rotate(finalists->begin(), among, among + 1);
    } else {
      finalists->insert(finalists->begin(), *resultOf(measured, bound));
    }
  }
  run.middle = std::move(middle);
  run.middleLengths = lengths;
  run.middleExcessSlack = settings.excessSlack;
  run.middleMargin = settings.margin;
  run.finalists = std::move(*finalists);
}

}  // namespace csumtune::tuner
