// A measurer that answers from a recorded table (an exhaustive run's results.json) instead
// of the CPU: search strategies can be compared on the same ground truth, many seeds each,
// in seconds and without measurement noise between them, and whole tunes can be tested.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tune/tune_measurer.hpp"

namespace csumtune::tuner {

class ReplayMeasurer : public TuneMeasurer {
 public:
  // `maxBytes`: --max-bytes applied to the recorded kernels (0 = none).
  explicit ReplayMeasurer(const std::vector<Evaluation>& table, std::size_t maxBytes = 0);
  Evaluation measure(const gen::Params& params) override;
  // The recorded figures again (a recorded table has no noise): the speedup is the
  // reciprocal of the recorded score, exact.
  std::vector<FinalistResult> remeasureFinalists(const std::vector<Evaluation>& finalists) override;
  // A recorded table has no figures at other lengths: every candidate passes.
  std::vector<GuardResult> guard(const std::vector<gen::Params>& candidates,
                                 const std::vector<int>&) override {
    std::vector<GuardResult> out;
    for (const auto& p : candidates) {
      GuardResult g;
      g.params = p;
      out.push_back(std::move(g));
    }
    return out;
  }
  // Recorded kernels were verified when they were recorded.
  std::optional<std::string> failsFullPlan(const gen::Params&) override { return std::nullopt; }
  std::vector<SweepPoint> sweep(const gen::Params&) override { return {}; }
  std::size_t noiseRetries() const override { return 0; }

  // The best correct entry of the table (the ground-truth optimum).
  const Evaluation* optimum() const;
  // 1-based rank of a score among the table's correct entries.
  std::size_t rankOf(double score) const;
  std::size_t size() const { return table_.size(); }

 private:
  std::vector<Evaluation> table_;             // first entry of each distinct kernel
  std::map<std::string, std::size_t> index_;  // code key -> table_ index
};

}  // namespace csumtune::tuner
