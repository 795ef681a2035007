#include "search/evaluator.hpp"

#include <fmt/format.h>

#include "search/space.hpp"

namespace csumtune::tuner {
namespace {
// An optimizer that only proposes known points for this long has converged.
constexpr std::size_t kMaxRevisitsInARow = 400;
}  // namespace

const char* toString(EvalStatus status) {
  switch (status) {
    case EvalStatus::Ok:
      return "ok";
    case EvalStatus::Wrong:
      return "wrong";
    case EvalStatus::Refused:
      return "refused";
    case EvalStatus::TooBig:
      return "too-big";
  }
  return "?";
}

std::optional<EvalStatus> evalStatusFromString(const std::string& text) {
  for (auto s : {EvalStatus::Ok, EvalStatus::Wrong, EvalStatus::Refused, EvalStatus::TooBig}) {
    if (text == toString(s)) return s;
  }
  return std::nullopt;
}

bool applySizeLimit(Evaluation& e, std::size_t maxBytes) {
  if (maxBytes == 0 || e.status != EvalStatus::Ok || e.bytes <= maxBytes) return false;
  e.status = EvalStatus::TooBig;
  e.message = fmt::format("{} bytes of code, over --max-bytes {}", e.bytes, maxBytes);
  e.score = e.scorePerByte = std::numeric_limits<double>::infinity();
  e.perCall.clear();
  return true;
}

const char* toString(SearchStopped::Why why) {
  switch (why) {
    case SearchStopped::Why::Budget:
      return "budget of unique evaluations used";
    case SearchStopped::Why::Time:
      return "time limit reached";
    case SearchStopped::Why::Interrupted:
      return "interrupted";
    case SearchStopped::Why::PhaseBudget:
      return "family budget used";
    case SearchStopped::Why::PhaseStall:
      return "no improvement (stall limit)";
    case SearchStopped::Why::PhaseRevisits:
      return "converged (only known points proposed)";
    case SearchStopped::Why::Exhausted:
      return "space exhausted";
  }
  return "?";
}

SearchStopped::SearchStopped(Why w) : std::runtime_error(toString(w)), why(w) {}

Evaluator::Evaluator(CandidateMeasurer& measurer, StopRules rules, Progress progress)
    : measurer_(measurer),
      rules_(rules),
      progress_(std::move(progress)),
      start_(std::chrono::steady_clock::now()) {}

double Evaluator::elapsedSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Evaluator::checkGlobalStops() const {
  if (rules_.interrupted && rules_.interrupted->load())
    throw SearchStopped(SearchStopped::Why::Interrupted);
  if (uniqueThisRun_ >= rules_.budget) throw SearchStopped(SearchStopped::Why::Budget);
  if (rules_.timeLimitSeconds > 0 && elapsedSeconds() >= rules_.timeLimitSeconds) {
    throw SearchStopped(SearchStopped::Why::Time);
  }
}

void Evaluator::beginPhase(std::size_t budget, std::size_t stall) {
  phaseLimit_ = budget;
  phaseStall_ = stall;
  phaseUnique_ = 0;
  sinceImprovement_ = 0;
  revisitsInARow_ = 0;
  phaseBest_ = std::numeric_limits<double>::infinity();
}

void Evaluator::preload(const std::vector<Evaluation>& earlier) {
  for (Evaluation e : earlier) {
    const std::string key = codeKey(e.params);
    if (byKey_.count(key)) continue;
    e.index = evaluations_.size();
    e.resumed = true;
    byKey_[key] = evaluations_.size();
    evaluations_.push_back(std::move(e));
  }
}

double Evaluator::operator()(const gen::Params& params) {
  if (rules_.interrupted && rules_.interrupted->load())
    throw SearchStopped(SearchStopped::Why::Interrupted);
  const std::string key = codeKey(params);
  // Known points cost nothing: they are answered even after the budget is spent.
  if (auto it = byKey_.find(key); it != byKey_.end()) {
    ++revisits_;
    const double score = evaluations_[it->second].status == EvalStatus::TooBig
                             ? standInFor(params, key)
                             : evaluations_[it->second].score;
    phaseBest_ = std::min(phaseBest_, score);
    if (++revisitsInARow_ > kMaxRevisitsInARow)
      throw SearchStopped(SearchStopped::Why::PhaseRevisits);
    return score;
  }
  checkGlobalStops();
  if (phaseLimit_ && phaseUnique_ >= phaseLimit_)
    throw SearchStopped(SearchStopped::Why::PhaseBudget);
  if (phaseStall_ && sinceImprovement_ >= phaseStall_)
    throw SearchStopped(SearchStopped::Why::PhaseStall);

  Evaluation e = measurer_.measure(params.canonical());
  e.index = evaluations_.size();
  e.params = params.canonical();
  byKey_[key] = evaluations_.size();
  evaluations_.push_back(e);
  ++uniqueThisRun_;
  ++phaseUnique_;
  revisitsInARow_ = 0;
  if (e.score < phaseBest_) {
    phaseBest_ = e.score;
    sinceImprovement_ = 0;
  } else {
    ++sinceImprovement_;
  }
  if (progress_) progress_(*this);
  if (e.status == EvalStatus::TooBig) return standInFor(params, key);
  return e.score;
}

// Over --max-bytes as it is, a loop shape may still fit in its compact frame (the word loop,
// no short path: 236 instead of 486 bytes for adc c4 u16). The search ranks the shape by that
// kernel, measured and recorded in its own right (a resumed run finds it known); otherwise a
// size-limited search never learns which loops fit, and the frame stage never sees them.
double Evaluator::standInFor(const gen::Params& params, const std::string& key) {
  const gen::Params compact = gen::compactFrame(params);
  const std::string compactKey = codeKey(compact);
  if (compactKey == key) return std::numeric_limits<double>::infinity();
  // Known already: its score, without counting a second revisit.
  if (auto it = byKey_.find(compactKey); it != byKey_.end()) return evaluations_[it->second].score;
  return (*this)(compact);
}

}  // namespace csumtune::tuner
