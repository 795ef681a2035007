#include "tune/tune.hpp"

#include "search/space.hpp"

namespace csumtune::tuner {

void tune(TuneRun& run, TuneMeasurer& measurer, const TuneSettings& settings) {
  const SearchSpace space(run.kernelSafe);
  Evaluator evaluator(measurer, {run.budget, run.timeLimitSeconds, settings.interrupted},
                      settings.progress);
  evaluator.preload(settings.earlier);
  const SearchOutcome outcome = runSearch(space, evaluator, run.search);
  run.evaluations = evaluator.evaluations();
  run.uniqueThisRun = evaluator.uniqueThisRun();
  run.revisits = evaluator.revisits();
  run.stoppedBecause = outcome.stoppedBecause;
  run.phases = outcome.phases;
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
