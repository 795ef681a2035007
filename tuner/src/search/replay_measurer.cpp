#include "search/replay_measurer.hpp"

#include "search/space.hpp"

namespace csumtune::tuner {

ReplayMeasurer::ReplayMeasurer(const std::vector<Evaluation>& table) {
  for (const Evaluation& e : table) table_.emplace(codeKey(e.params), e);
}

Evaluation ReplayMeasurer::measure(const gen::Params& params) {
  if (auto it = table_.find(codeKey(params)); it != table_.end()) {
    Evaluation e = it->second;
    e.resumed = false;
    return e;
  }
  Evaluation e;
  e.params = params;
  e.status = EvalStatus::Refused;
  e.message = "not in the replayed table";
  return e;
}

const Evaluation* ReplayMeasurer::optimum() const {
  const Evaluation* best = nullptr;
  for (const auto& [key, e] : table_) {
    if (e.status == EvalStatus::Ok && (!best || e.score < best->score)) best = &e;
  }
  return best;
}

std::size_t ReplayMeasurer::rankOf(double score) const {
  std::size_t rank = 1;
  for (const auto& [key, e] : table_) rank += e.status == EvalStatus::Ok && e.score < score;
  return rank;
}

}  // namespace csumtune::tuner
