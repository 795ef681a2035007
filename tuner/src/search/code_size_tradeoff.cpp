#include "search/code_size_tradeoff.hpp"

#include <algorithm>

#include "csumtune/gen/kernel_program.hpp"

namespace csumtune::tuner {

std::vector<ParetoPoint> paretoFront(const std::vector<Evaluation>& evaluations) {
  std::vector<ParetoPoint> points;
  for (const Evaluation& e : evaluations) {
    if (e.status == EvalStatus::Ok && e.bytes > 0) points.push_back({e.params, e.bytes, e.score});
  }
  std::sort(points.begin(), points.end(), [](const ParetoPoint& a, const ParetoPoint& b) {
    return a.bytes != b.bytes ? a.bytes < b.bytes : a.score < b.score;
  });
  std::vector<ParetoPoint> front;
  for (const ParetoPoint& p : points) {
    if (front.empty() || p.score < front.back().score) {
      if (!front.empty() && front.back().bytes == p.bytes) front.pop_back();
      front.push_back(p);
    }
  }
  return front;
}

std::optional<ParetoPoint> bestWithin(const std::vector<ParetoPoint>& front, std::size_t limit) {
  std::optional<ParetoPoint> best;
  for (const ParetoPoint& p : front) {
    if (p.bytes <= limit) best = p;
  }
  return best;
}

SmallestKernel smallestKernel(bool kernelSafeOnly, gen::Kind kind) {
  SmallestKernel smallest;
  for (const gen::CarryTraits* traits : gen::allCarryTraits()) {
    if (kernelSafeOnly && !traits->kernelSafe()) continue;
    for (int chains = 1; chains <= 2; ++chains) {
      for (int unroll = chains; unroll <= 2; unroll += chains) {
        gen::Params loop = gen::searchedForm({traits->carry, chains, unroll, 0, gen::Hint::T0});
        loop.kind = kind;
        if (!gen::validationError(loop).empty()) continue;
        for (const gen::Params& p : gen::frameVariants(loop, {})) {
          const std::size_t bytes = gen::KernelProgram(p).bytes().size();
          if (smallest.bytes == 0 || bytes < smallest.bytes) smallest = {p, bytes};
        }
      }
    }
  }
  return smallest;
}

}  // namespace csumtune::tuner
