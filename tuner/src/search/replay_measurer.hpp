// A measurer that answers from a recorded table (an exhaustive run's results.json) instead
// of the CPU: search algorithms can be compared on the same ground truth, many seeds each,
// in seconds and without measurement noise between them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "search/evaluator.hpp"

namespace csumtune::tuner {

class ReplayMeasurer : public CandidateMeasurer {
 public:
  explicit ReplayMeasurer(const std::vector<Evaluation>& table);
  Evaluation measure(const gen::Params& params) override;
  // The best correct entry of the table (the ground-truth optimum).
  const Evaluation* optimum() const;
  // 1-based rank of a score among the table's correct entries.
  std::size_t rankOf(double score) const;
  std::size_t size() const { return table_.size(); }

 private:
  std::map<std::string, Evaluation> table_;
};

}  // namespace csumtune::tuner
