#include "search/drivers.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include <fmt/format.h>
#include <nlopt.hpp>

namespace csumtune::tuner {
namespace {

struct NloptAlgorithm {
  const char* name;
  nlopt::algorithm algorithm;
  bool global;
};

constexpr NloptAlgorithm kNlopt[] = {
    {"direct-l", nlopt::GN_DIRECT_L, true},
    {"crs2", nlopt::GN_CRS2_LM, true},
    {"sbplx", nlopt::LN_SBPLX, false},
    {"mlsl", nlopt::G_MLSL_LDS, true},
};

const NloptAlgorithm* findNlopt(const std::string& name) {
  for (const auto& a : kNlopt) {
    if (name == a.name) return &a;
  }
  return nullptr;
}

SearchOutcome runList(const std::vector<gen::Params>& order, Evaluator& evaluator) {
  try {
    for (const gen::Params& p : order) evaluator(p);
  } catch (const SearchStopped& stop) {
    return {stop.what(), {}};
  }
  return {toString(SearchStopped::Why::Exhausted), {}};
}

struct FamilyContext {
  const SearchSpace* space;
  gen::Carry carry;
  Evaluator* evaluator;
  std::optional<SearchStopped> stop;  // why the objective asked nlopt to stop
};

double objective(unsigned n, const double* x, double* gradient, void* data) {
  (void)gradient;
  auto* ctx = static_cast<FamilyContext*>(data);
  Point point{};
  std::copy(x, x + std::min<unsigned>(n, 4), point.begin());
  try {
    const double score = (*ctx->evaluator)(ctx->space->project(ctx->carry, point));
    // nlopt needs finite values: a wrong kernel is just very bad.
    return std::isfinite(score) ? score : 1e9;
  } catch (const SearchStopped& stop) {
    ctx->stop = stop;
    throw nlopt::forced_stop();
  }
}

SearchOutcome runNlopt(const NloptAlgorithm& algo, const SearchSpace& space, Evaluator& evaluator,
                       const SearchSettings& settings) {
  SearchOutcome outcome;
  nlopt::srand(settings.seed);
  const auto families = space.families();
  const Point lower = SearchSpace::lowerBounds(), upper = SearchSpace::upperBounds();
  for (std::size_t f = 0; f < families.size(); ++f) {
    const std::size_t remaining =
        evaluator.budget() - std::min(evaluator.budget(), evaluator.uniqueThisRun());
    const std::size_t share = std::max<std::size_t>(1, remaining / (families.size() - f));
    const std::size_t stall =
        settings.stall ? settings.stall : std::max<std::size_t>(20, share / 2);
    evaluator.beginPhase(share, stall);
    FamilyContext ctx{&space, families[f], &evaluator, std::nullopt};

    nlopt::opt opt(algo.algorithm, 4);
    opt.set_lower_bounds(std::vector<double>(lower.begin(), lower.end()));
    opt.set_upper_bounds(std::vector<double>(upper.begin(), upper.end()));
    opt.set_min_objective(objective, &ctx);
    opt.set_maxeval(1000000);  // our evaluator stops the run; nlopt counts revisits too
    opt.set_xtol_abs(0.25);    // finer than the lattice is meaningless
    opt.set_initial_step(std::vector<double>{2, 8, 16, 1});
    nlopt::opt local(nlopt::LN_SBPLX, 4);
    if (algo.algorithm == nlopt::G_MLSL_LDS) {
      local.set_xtol_abs(0.25);
      local.set_initial_step(std::vector<double>{2, 8, 16, 1});
      opt.set_local_optimizer(local);
    }
    // Start where the 2013 thread ended: 4 chains, 16 words, no prefetch.
    std::vector<double> x{4, 16, 0, 0};
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

std::vector<std::string> algorithmNames() {
  return {"crs2", "direct-l", "sbplx", "mlsl", "random", "exhaustive"};
}

bool isKnownAlgorithm(const std::string& name) {
  const auto names = algorithmNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

SearchOutcome runSearch(const SearchSpace& space, Evaluator& evaluator,
                        const SearchSettings& settings) {
  evaluator.beginPhase(0, 0);
  if (settings.algorithm == "exhaustive") return runList(space.distinctKernels(), evaluator);
  if (settings.algorithm == "random") {
    auto order = space.distinctKernels();
    std::mt19937_64 rng(settings.seed);
    std::shuffle(order.begin(), order.end(), rng);
    return runList(order, evaluator);
  }
  if (const NloptAlgorithm* algo = findNlopt(settings.algorithm)) {
    return runNlopt(*algo, space, evaluator, settings);
  }
  throw std::invalid_argument("unknown search algorithm '" + settings.algorithm + "'");
}

}  // namespace csumtune::tuner
