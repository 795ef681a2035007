// The tuner's objective as the search algorithms see it: Params -> score, memoized by the
// kernel's code (optimizers of continuous coordinates, rounded to the lattice, keep proposing
// kernels they have already seen), with the budget counted in *unique* evaluations and every
// stop rule (budget, time, stall, Ctrl-C) in one place. Measuring is behind an interface, so
// the search can be tested on a synthetic objective.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "csumtune/gen/params.hpp"

namespace csumtune::tuner {

// TooBig: correct (it was verified, so the statistics stay honest) but over --max-bytes: not
// timed, never a winner.
enum class EvalStatus { Ok, Wrong, Refused, TooBig };
const char* toString(EvalStatus status);
std::optional<EvalStatus> evalStatusFromString(const std::string& text);

struct Evaluation {
  std::size_t index = 0;  // order among unique evaluations
  gen::Params params;
  EvalStatus status = EvalStatus::Ok;
  std::string message;                                            // why it is wrong or refused
  double score = std::numeric_limits<double>::infinity();         // candidate / baseline
  double scorePerByte = std::numeric_limits<double>::infinity();  // timer units per byte
  double baselinePerByte = 0;                                     // the baseline measured alongside
  std::vector<double> perCall;  // per profile entry, median timer units per call
  double seconds = 0;
  bool resumed = false;   // loaded from an earlier run's results.json
  std::size_t bytes = 0;  // code size (0: unknown, e.g. refused before it was compiled)
};

// --max-bytes: marks a correct evaluation over the limit `too-big` (0 = no limit). True when
// it did.
bool applySizeLimit(Evaluation& e, std::size_t maxBytes);

class CandidateMeasurer {
 public:
  virtual ~CandidateMeasurer() = default;
  // Verifies, then (when correct) times one candidate. Never throws for a bad candidate:
  // the status says what happened.
  virtual Evaluation measure(const gen::Params& params) = 0;
};

// Why a search stopped. `phase` stops end one part of a search (a carry family); the others
// end the whole search.
struct SearchStopped : std::runtime_error {
  enum class Why { Budget, Time, Interrupted, PhaseBudget, PhaseStall, PhaseRevisits, Exhausted };
  explicit SearchStopped(Why why);
  bool endsPhaseOnly() const {
    return why == Why::PhaseBudget || why == Why::PhaseStall || why == Why::PhaseRevisits;
  }
  Why why;
};
const char* toString(SearchStopped::Why why);

// Unique kernels measured by default: chosen by replaying the default strategy against an
// exhaustive kernel-safe run (scripts/compare-search.sh), as a budget at which every seed
// ended close to the optimum.
inline constexpr std::size_t kDefaultBudget = 800;

struct StopRules {
  std::size_t budget = kDefaultBudget;  // unique evaluations, whole search
  double timeLimitSeconds = 0;          // 0 = none
  const std::atomic<bool>* interrupted = nullptr;
};

// The correct evaluation with the lowest score (nullptr when none is correct).
template <typename Evaluations>
const Evaluation* bestOf(const Evaluations& evaluations) {
  const Evaluation* best = nullptr;
  for (const Evaluation& e : evaluations) {
    if (e.status == EvalStatus::Ok && (!best || e.score < best->score)) best = &e;
  }
  return best;
}

class Evaluator {
 public:
  using Progress = std::function<void(const Evaluator&)>;
  Evaluator(CandidateMeasurer& measurer, StopRules rules, Progress progress = {});

  // Memoized score of params (infinity for wrong or refused kernels). Throws SearchStopped.
  double operator()(const gen::Params& params);

  // A part of the search with its own limits: at most `budget` more unique evaluations, and
  // stop after `stall` unique evaluations without a better score (0 = no stall rule).
  void beginPhase(std::size_t budget, std::size_t stall);

  // Results of an earlier run (resume): known without measuring again, not counted against
  // this run's budget.
  void preload(const std::vector<Evaluation>& earlier);

  // Allows `more` unique evaluations beyond the budget (a stage after the search proper).
  void extendBudget(std::size_t more) { rules_.budget += more; }

  const std::vector<Evaluation>& evaluations() const { return evaluations_; }
  const Evaluation* best() const { return bestOf(evaluations_); }
  std::size_t uniqueThisRun() const { return uniqueThisRun_; }
  std::size_t revisits() const { return revisits_; }
  std::size_t budget() const { return rules_.budget; }
  double elapsedSeconds() const;

 private:
  void checkGlobalStops() const;
  double standInFor(const gen::Params& params, const std::string& key);
  CandidateMeasurer& measurer_;
  StopRules rules_;
  Progress progress_;
  std::chrono::steady_clock::time_point start_;
  std::vector<Evaluation> evaluations_;
  std::map<std::string, std::size_t> byKey_;
  std::size_t uniqueThisRun_ = 0;
  std::size_t revisits_ = 0;
  // Phase state.
  std::size_t phaseLimit_ = 0, phaseUnique_ = 0, phaseStall_ = 0, sinceImprovement_ = 0;
  std::size_t revisitsInARow_ = 0;
  double phaseBest_ = std::numeric_limits<double>::infinity();
};

}  // namespace csumtune::tuner
