// The nlopt strategies (DIRECT-L, CRS2-LM, Subplex, MLSL-LDS with Subplex as its local
// method) on the rounded lattice: one run per carry family with that family's share of the
// remaining budget and a stall limit. nlopt has no integers, so rounded points repeat often;
// the Evaluator answers repeats from its memo and stops the run with nlopt::forced_stop.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlopt.hpp>

#include "search/strategies/runners.hpp"

namespace csumtune::tuner {
namespace {

struct FamilyContext {
  const SearchSpace* space;
  gen::Carry carry;
  Evaluator* evaluator;
  std::optional<SearchStopped> stop;  // why the objective asked nlopt to stop
};

double objective(unsigned n, const double* x, double* /*gradient*/, void* data) {
  auto* ctx = static_cast<FamilyContext*>(data);
  Point point{};
  std::copy(x, x + std::min<unsigned>(n, kDimensions), point.begin());
  try {
    const double score = (*ctx->evaluator)(ctx->space->project(ctx->carry, point));
    // nlopt needs finite values: a wrong kernel is just very bad.
    return std::isfinite(score) ? score : 1e9;
  } catch (const SearchStopped& stop) {
    ctx->stop = stop;
    throw nlopt::forced_stop();
  }
}

SearchOutcome runNlopt(nlopt::algorithm algorithm, const SearchSpace& space, Evaluator& evaluator,
                       const SearchSettings& settings) {
  SearchOutcome outcome;
  nlopt::srand(settings.seed);
  const auto families = space.families();
  const Point lower = space.lowerBounds(), upper = space.upperBounds();
  // First steps: a quarter of each coordinate's range, rounded up to whole lattice steps.
  std::vector<double> step(kDimensions);
  for (std::size_t i = 0; i < kDimensions; ++i) step[i] = std::ceil((upper[i] - lower[i]) / 4);
  for (std::size_t f = 0; f < families.size(); ++f) {
    const std::size_t remaining =
        evaluator.budget() - std::min(evaluator.budget(), evaluator.uniqueThisRun());
    const std::size_t share = std::max<std::size_t>(1, remaining / (families.size() - f));
    const std::size_t stall =
        settings.stall ? settings.stall : std::max<std::size_t>(20, share / 2);
    evaluator.beginPhase(share, stall);
    FamilyContext ctx{&space, families[f], &evaluator, std::nullopt};

    nlopt::opt opt(algorithm, kDimensions);
    opt.set_lower_bounds(std::vector<double>(lower.begin(), lower.end()));
    opt.set_upper_bounds(std::vector<double>(upper.begin(), upper.end()));
    opt.set_min_objective(objective, &ctx);
    opt.set_maxeval(1000000);  // our evaluator stops the run; nlopt counts revisits too
    opt.set_xtol_abs(0.25);    // finer than the lattice is meaningless
    opt.set_initial_step(step);
    nlopt::opt local(nlopt::LN_SBPLX, kDimensions);
    if (algorithm == nlopt::G_MLSL_LDS) {
      local.set_xtol_abs(0.25);
      local.set_initial_step(step);
      opt.set_local_optimizer(local);
    }
    // Start where the 2013 thread ended: 4 chains, 16 words, no prefetch.
    const Point start = SearchSpace::pointOf(gen::parseParams("carry=adc,chains=4,unroll=16"));
    std::vector<double> x(start.begin(), start.end());
    double value = 0;
    std::string how;
    try {
      opt.optimize(x, value);
      how = "converged";
    } catch (const nlopt::forced_stop&) {
      how = ctx.stop ? ctx.stop->what() : "stopped";
    } catch (const std::exception& e) {
      how = std::string("nlopt stopped: ") + e.what();
    }
    outcome.phases.push_back(fmt::format("{}: {} after {} unique evaluations",
                                         gen::toString(families[f]), how,
                                         evaluator.uniqueThisRun()));
    if (ctx.stop && !ctx.stop->endsPhaseOnly()) {
      outcome.stoppedBecause = ctx.stop->what();
      return outcome;
    }
  }
  outcome.stoppedBecause = "every carry family searched";
  return outcome;
}

}  // namespace

SearchOutcome runCrs2(const SearchSpace& s, Evaluator& e, const SearchSettings& o) {
  return runNlopt(nlopt::GN_CRS2_LM, s, e, o);
}
SearchOutcome runDirectL(const SearchSpace& s, Evaluator& e, const SearchSettings& o) {
  return runNlopt(nlopt::GN_DIRECT_L, s, e, o);
}
SearchOutcome runSbplx(const SearchSpace& s, Evaluator& e, const SearchSettings& o) {
  return runNlopt(nlopt::LN_SBPLX, s, e, o);
}
SearchOutcome runMlsl(const SearchSpace& s, Evaluator& e, const SearchSettings& o) {
  return runNlopt(nlopt::G_MLSL_LDS, s, e, o);
}

}  // namespace csumtune::tuner
