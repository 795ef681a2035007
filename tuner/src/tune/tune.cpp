#include "tune/tune.hpp"

#include <algorithm>
#include <iterator>

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
  for (const Evaluation& e :
       topEvaluations(evaluator.evaluations(), evaluator.evaluations().size())) {
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

// The finalists, taken first from the best candidates that are not slower than the
// reference at any guard length (beyond the tolerance), then from the others.
std::vector<Evaluation> guardedFinalists(TuneRun& run, TuneMeasurer& measurer,
                                         const TuneSettings& settings) {
  const auto best = topEvaluations(run.evaluations, settings.guardCandidates);
  std::vector<gen::Params> params;
  for (const Evaluation& e : best) params.push_back(e.params);
  run.guardLengths = settings.guardLengths;
  run.guardTolerance = settings.guardTolerance;
  run.guard = measurer.guard(params, settings.guardLengths);
  for (GuardResult& g : run.guard) g.eligible = g.worstRatio <= 1 + settings.guardTolerance;
  std::vector<Evaluation> eligible, others;
  for (std::size_t i = 0; i < best.size(); ++i)
    (run.guard[i].eligible ? eligible : others).push_back(best[i]);
  eligible.insert(eligible.end(), others.begin(), others.end());
  if (eligible.size() > settings.finalists) eligible.resize(settings.finalists);
  return eligible;
}

void tuneInterruptibly(TuneRun& run, TuneMeasurer& measurer, const TuneSettings& settings);

}  // namespace

void tune(TuneRun& run, TuneMeasurer& measurer, const TuneSettings& settings) {
  measurer.setInterruptFlag(settings.interrupted);
  try {
    tuneInterruptibly(run, measurer, settings);
  } catch (const PhaseInterrupted&) {
    // An interrupt in the middle of a measuring phase: what was measured before it is kept.
    run.finalists.clear();
    run.sweep.clear();
    run.end = TuneEnd::Interrupted;
    run.noiseRetries = measurer.noiseRetries();
  }
}

namespace {

void tuneInterruptibly(TuneRun& run, TuneMeasurer& measurer, const TuneSettings& settings) {
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
  auto top = topEvaluations(run.evaluations, settings.finalists);
  if (top.empty()) return finish(TuneEnd::NoCorrectCandidate, "no correct candidate was found");
  if (settings.guardCandidates > 0) {
    top = guardedFinalists(run, measurer, settings);
    if (settings.interrupted && settings.interrupted->load()) return finish(TuneEnd::Interrupted);
  }
  run.finalists = measurer.remeasureFinalists(top);
  // A finalist the guard found slower somewhere wins only when no guarded one is left.
  std::stable_partition(run.finalists.begin(), run.finalists.end(), [&](const FinalistResult& f) {
    const auto it = std::find_if(run.guard.begin(), run.guard.end(),
                                 [&](const GuardResult& g) { return g.params == f.params; });
    return it == run.guard.end() || it->eligible;
  });
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

}  // namespace

}  // namespace csumtune::tuner
