#include "jobs/replay_search.hpp"

#include <fmt/format.h>

#include "report/results_file.hpp"
#include "request_errors.hpp"
#include "search/space.hpp"
#include "tune/replay_measurer.hpp"

namespace csumtune::tuner {

ReplayOutcome replaySearch(const HostTuneRequest& request, const std::string& table) {
  if (!request.baselineSource.empty())
    throw BadRequest("--replay measures nothing: --baseline-source does not apply");
  if (request.waitQuietSeconds > 0)
    throw BadRequest("--replay measures nothing: --wait-quiet does not apply");
  const std::vector<Evaluation> evaluations = readEvaluations(table);
  for (const Evaluation& e : evaluations) {
    if (e.params.kind != request.kind) {
      throw BadRequest(
          fmt::format("{} records {} kernels; this replay searches {} kernels (--kind)", table,
                      gen::toString(e.params.kind), gen::toString(request.kind)));
    }
  }
  ReplayMeasurer measurer(evaluations, chooseMaxBytes(request));
  const Evaluation* optimum = measurer.optimum();
  if (!optimum) throw BadRequest(table + " holds no correct evaluation to replay");
  const SearchSpace space(request.kernelSafe, request.kind);
  Evaluator evaluator(measurer, {request.budget, request.timeLimitSeconds, nullptr});
  const auto searched =
      runSearch(space, evaluator, {request.algorithm, request.seed, request.stall});
  ReplayOutcome outcome;
  outcome.unique = evaluator.uniqueThisRun();
  outcome.revisits = evaluator.revisits();
  outcome.tableSize = measurer.size();
  outcome.optimum = optimum->params.toString();
  outcome.optimumScore = optimum->score;
  outcome.stoppedBecause = searched.stoppedBecause;
  if (const Evaluation* best = evaluator.best()) {
    outcome.best = best->params.toString();
    outcome.bestScore = best->score;
    outcome.gapPercent = 100.0 * (best->score / optimum->score - 1.0);
    outcome.rank = measurer.rankOf(best->score);
  }
  return outcome;
}

}  // namespace csumtune::tuner
