#include "tune/tune.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "search/finalist_results.hpp"
#include "search/space.hpp"

namespace csumtune::tuner {
namespace {

// The loop shape (the first five keys) of a kernel, with the default short path.
gen::Params loopOf(const gen::Params& p) {
  return gen::Params{p.carry, p.chains, p.unroll, p.prefetch, p.hint}.canonical();
}

// The frame stage: the search ranked loop shapes with the default short path; here the best
// `shapes` of them get every short-path variant, with exact paths for the profile's lengths.
std::string searchFrames(const TuneRun& run, Evaluator& evaluator, std::size_t shapes) {
  if (shapes == 0) return "frames: not searched";
  std::vector<gen::Params> loops;
  for (const Evaluation& e : topEvaluations(evaluator.evaluations(), evaluator.evaluations().size())) {
    const gen::Params loop = loopOf(e.params);
    if (std::find(loops.begin(), loops.end(), loop) == loops.end()) loops.push_back(loop);
    if (loops.size() == shapes) break;
  }
  std::vector<int> lengths;
  for (const auto& entry : run.profile.entries) lengths.push_back(entry.size);
  std::vector<gen::Params> variants;
  for (const gen::Params& loop : loops) {
    for (const gen::Params& v : gen::frameVariants(loop, lengths)) variants.push_back(v);
  }
  const std::size_t before = evaluator.uniqueThisRun();
  evaluator.extendBudget(variants.size());
  evaluator.beginPhase(0, 0);
  std::string how = "done";
  try {
    for (const gen::Params& v : variants) evaluator(v);
  } catch (const SearchStopped& stop) {
    how = stop.what();
  }
  return fmt::format("frames: {} short-path variants of the best {} loop shapes, {} measured; {}",
                     variants.size(), loops.size(), evaluator.uniqueThisRun() - before, how);
}

}  // namespace

void tune(TuneRun& run, TuneMeasurer& measurer, const TuneSettings& settings) {
  const SearchSpace space(run.kernelSafe);
  Evaluator evaluator(measurer, {run.budget, run.timeLimitSeconds, settings.interrupted},
                      settings.progress);
  evaluator.preload(settings.earlier);
  const SearchOutcome outcome = runSearch(space, evaluator, run.search);
  run.phases = outcome.phases;
  if (!(settings.interrupted && settings.interrupted->load()))
    run.phases.push_back(searchFrames(run, evaluator, settings.frameShapes));
  run.evaluations = evaluator.evaluations();
  run.uniqueThisRun = evaluator.uniqueThisRun();
  run.revisits = evaluator.revisits();
  run.stoppedBecause = outcome.stoppedBecause;
  auto finish = [&](TuneEnd end, std::string failure = {}) {
    run.end = end;
    run.failure = std::move(failure);
    run.noiseRetries = measurer.noiseRetries();
    run.elapsedSeconds = evaluator.elapsedSeconds();
  };

  if (settings.interrupted && settings.interrupted->load()) return finish(TuneEnd::Interrupted);
  const auto top = topEvaluations(run.evaluations, settings.finalists);
  if (top.empty()) return finish(TuneEnd::NoCorrectCandidate, "no correct candidate was found");
  run.finalists = measurer.remeasureFinalists(top);
  if (settings.interrupted && settings.interrupted->load()) return finish(TuneEnd::Interrupted);
  const gen::Params& winner = run.finalists.front().params;
  // The one place the winner's style is decided: a SIMD kernel cannot go into the kernel.
  run.style =
      settings.style == "gas" || !gen::traitsOf(winner.carry).kernelSafe() ? "gas" : "kernel";
  // Every candidate passed the quick plan before it was timed; the winner passes the full one.
  if (auto failure = measurer.failsFullPlan(winner)) {
    return finish(TuneEnd::WinnerFailedFullPlan,
                  "the winner failed the full correctness plan: " + *failure);
  }
  if (settings.interrupted && settings.interrupted->load()) return finish(TuneEnd::Interrupted);
  run.sweep = measurer.sweep(winner);
  if (settings.interrupted && settings.interrupted->load()) return finish(TuneEnd::Interrupted);
  finish(TuneEnd::Complete);
}

}  // namespace csumtune::tuner
