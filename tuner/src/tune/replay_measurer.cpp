#include "tune/replay_measurer.hpp"

#include <algorithm>

#include "search/space.hpp"

namespace csumtune::tuner {

ReplayMeasurer::ReplayMeasurer(const std::vector<Evaluation>& table, std::size_t maxBytes) {
  for (const Evaluation& e : table) {
    if (index_.emplace(codeKey(e.params), table_.size()).second) {
      table_.push_back(e);
      applySizeLimit(table_.back(), maxBytes);
    }
  }
}

Evaluation ReplayMeasurer::measure(const gen::Params& params) {
  if (auto it = index_.find(codeKey(params)); it != index_.end()) {
    Evaluation e = table_[it->second];
    e.resumed = false;
    return e;
  }
  Evaluation e;
  e.params = params;
  e.status = EvalStatus::Refused;
  e.message = "not in the replayed table";
  return e;
}

std::vector<FinalistResult> ReplayMeasurer::remeasureFinalists(
    const std::vector<Evaluation>& finalists) {
  std::vector<FinalistResult> out;
  for (const Evaluation& e : finalists) {
    const double speedup = 1 / e.score;
    out.push_back({e.params,
                   e.score,
                   e.scorePerByte,
                   e.baselinePerByte,
                   RatioEstimate{speedup, speedup, speedup, 1.0},
                   e.bytes,
                   {}});
  }
  return out;  // in the order given: topEvaluations() ranks by the recorded score
}

const Evaluation* ReplayMeasurer::optimum() const {
  return bestOf(table_);
}

std::size_t ReplayMeasurer::rankOf(double score) const {
  std::size_t rank = 1;
  for (const Evaluation& e : table_) rank += e.status == EvalStatus::Ok && e.score < score;
  return rank;
}

}  // namespace csumtune::tuner
