#include "tune/finalists.hpp"

#include <algorithm>
#include <tuple>

#include "csumtune/jit.hpp"
#include "measure/baselines.hpp"
#include "measure/timed_kernels.hpp"

namespace csumtune::tuner {

const GuardResult* findGuardResult(const std::vector<GuardResult>& results,
                                   const gen::Params& params) {
  const auto it = std::find_if(results.begin(), results.end(),
                               [&](const GuardResult& g) { return g.params == params; });
  return it != results.end() ? &*it : nullptr;
}

const GuardResult& leastLosing(const std::vector<GuardResult>& results) {
  return *std::min_element(results.begin(), results.end(),
                           [](const GuardResult& a, const GuardResult& b) {
                             return std::tuple{a.excess, a.meanRatio, a.worstRatio} <
                                    std::tuple{b.excess, b.meanRatio, b.worstRatio};
                           });
}

const FinalistResult* resultOf(const std::vector<FinalistResult>& measured,
                               const gen::Params& params) {
  const auto it = std::find_if(measured.begin(), measured.end(),
                               [&](const FinalistResult& f) { return f.params == params; });
  return it != measured.end() ? &*it : nullptr;
}

std::optional<std::vector<FinalistResult>> remeasuredInOrder(
    const std::vector<FinalistResult>& finalists, const std::vector<FinalistResult>& measured) {
  std::vector<FinalistResult> out;
  for (const FinalistResult& f : finalists) {
    const FinalistResult* r = resultOf(measured, f.params);
    if (!r) return std::nullopt;
    out.push_back(*r);
    out.back().searchScore = f.searchScore;
  }
  return out;
}

Evaluation evaluationOf(const std::vector<Evaluation>& all, const gen::Params& params) {
  const auto it =
      std::find_if(all.begin(), all.end(), [&](const Evaluation& e) { return e.params == params; });
  if (it != all.end()) return *it;
  Evaluation e;
  e.params = params;
  return e;
}

std::vector<Evaluation> topEvaluations(const std::vector<Evaluation>& all, std::size_t count) {
  std::vector<Evaluation> ok;
  for (const Evaluation& e : all) {
    if (e.status == EvalStatus::Ok) ok.push_back(e);
  }
  std::sort(ok.begin(), ok.end(), [](const auto& a, const auto& b) { return a.score < b.score; });
  if (ok.size() > count) ok.resize(count);
  return ok;
}

gen::Params loopOf(const gen::Params& p) {
  return gen::loopKeysOf(p).canonical();
}

std::vector<Evaluation> guardCandidates(const std::vector<Evaluation>& all, std::size_t count) {
  const auto ranked = topEvaluations(all, all.size());
  std::vector<Evaluation> out(
      ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(std::min(count, ranked.size())));
  if (out.empty()) return out;
  const gen::Params bestLoop = loopOf(out.front().params);
  const auto sameLoop = [&](const gen::Params& p) { return loopOf(p) == bestLoop; };
  using SameGroup = bool (*)(const gen::Params&, const gen::Params&);
  // The per-call form (how a call enters, where the sum goes in, how many chains end the tail
  // and sum entry=forty's 80-byte block) and
  // the size class (the short and middle bounds) under each entry test: a profile of a few lengths
  // cannot rank either, and where the short path starts decides which entry wins.
  const SameGroup sameForm = [](const gen::Params& a, const gen::Params& b) {
    return a.entry == b.entry && a.sum == b.sum && a.tailChains == b.tailChains &&
           a.block80 == b.block80;
  };
  const SameGroup sameSizeClass = [](const gen::Params& a, const gen::Params& b) {
    return a.entry == b.entry && a.shortBelow == b.shortBelow && a.mid == b.mid;
  };
  // And how the last bytes load (bounds, byteload): a profile without lengths under 8 cannot
  // rank them at all, and cold a load that waits on its address costs a tenth of a short call.
  const SameGroup sameByteLoad = [](const gen::Params& a, const gen::Params& b) {
    return a.bounds == b.bounds && a.byteLoad == b.byteLoad;
  };
  // Then each per-call form again without an exact path: the profile weighs the length an
  // exact path is for and ranks it first in its form, while every other length pays its
  // compare.
  struct Grouping {
    SameGroup same;
    bool withoutExact;
  };
  for (const Grouping& grouping : {Grouping{sameForm, false}, Grouping{sameSizeClass, false},
                                   Grouping{sameByteLoad, false}, Grouping{sameForm, true}}) {
    const SameGroup sameGroup = grouping.same;
    const bool withoutExact = grouping.withoutExact;
    // `ranked` is best first: the first of each group is its best.
    std::vector<gen::Params> groups;
    for (const Evaluation& e : ranked) {
      if (!sameLoop(e.params) || (withoutExact && e.params.exact != 0)) continue;
      if (std::any_of(groups.begin(), groups.end(),
                      [&](const gen::Params& g) { return sameGroup(g, e.params); }))
        continue;
      groups.push_back(e.params);
      const bool listed = std::any_of(out.begin(), out.end(),
                                      [&](const Evaluation& o) { return o.params == e.params; });
      if (!listed) out.push_back(e);
    }
  }
  // And the best of each carry family: a search ranked under a neighbour's load can put a
  // narrow loop first (a wide one loses more to a shared core), and the guard and the
  // finalists then compare only its frames.
  for (const gen::CarryTraits* traits : gen::allCarryTraits()) {
    const auto best = std::find_if(ranked.begin(), ranked.end(), [&](const Evaluation& e) {
      return e.params.carry == traits->carry;
    });
    if (best == ranked.end()) continue;
    if (std::none_of(out.begin(), out.end(),
                     [&](const Evaluation& o) { return o.params == best->params; }))
      out.push_back(*best);
  }
  return out;
}

std::vector<FinalistResult> remeasureFinalists(const std::vector<Evaluation>& finalists,
                                               const Baseline& baseline, const Profile& profile,
                                               Timer& timer, Workload& workload,
                                               const FinalSettings& settings,
                                               const ProgressFn& progress, RoundGate* gate,
                                               SharedAddresses* addresses) {
  std::vector<Kernel> kernels;
  std::vector<TimedKernel> timed;
  kernels.reserve(finalists.size());  // timed keeps pointers into the kernels' code
  timed.push_back(timedBaseline(baseline, addresses != nullptr));
  for (const Evaluation& e : finalists) {
    kernels.push_back(Jit::compile(e.params));
    timed.push_back(timedKernel(kernels.back(), e.params.toString()));
  }
  MeasureConfig config;
  config.addresses = addresses;
  config.sizes = profile.sizes();
  config.repeat = settings.repeat;
  config.targetBatchTicks = settings.targetBatchTicks;
  config.gate = gate;
  const auto samples = measureInterleaved(timed, config, timer, workload, progress);

  // Profile time per round: the weighted sum over sizes of that round's samples.
  auto roundTotals = [&](const KernelSamples& k) {
    std::vector<double> totals(static_cast<std::size_t>(settings.repeat), 0.0);
    for (std::size_t i = 0; i < config.sizes.size(); ++i) {
      for (std::size_t r = 0; r < totals.size(); ++r) {
        totals[r] += profile.entries[i].weight * k.sizes[i].perCall[r];
      }
    }
    return totals;
  };
  double bytes = 0;
  for (const auto& e : profile.entries) bytes += e.weight * e.size;
  const auto baselineTotals = roundTotals(samples[0]);

  std::vector<FinalistResult> results;
  for (std::size_t f = 0; f < finalists.size(); ++f) {
    const KernelSamples& k = samples[f + 1];
    FinalistResult r;
    r.params = finalists[f].params;
    r.searchScore = finalists[f].score;
    r.bytes = kernels[f].size();
    const auto totals = roundTotals(k);
    r.scorePerByte = summarize(totals).median / bytes;
    r.baselinePerByte = summarize(baselineTotals).median / bytes;
    r.speedup = pairedRatio(baselineTotals, totals);
    for (std::size_t i = 0; i < config.sizes.size(); ++i) {
      const int size = config.sizes[i];
      r.sizes.push_back({size, summarize(k.sizes[i].perCall).median / size,
                         summarize(samples[0].sizes[i].perCall).median / size,
                         pairedRatio(samples[0].sizes[i].perCall, k.sizes[i].perCall)});
    }
    results.push_back(std::move(r));
  }
  std::sort(results.begin(), results.end(),
            [](const auto& a, const auto& b) { return a.scorePerByte < b.scorePerByte; });
  return results;
}

std::vector<int> sweepSizes() {
  std::vector<int> sizes;
  for (int size = 1; size <= 256; ++size) sizes.push_back(size);
  for (int size : {384, 512, 576, 1024, 1500, 2048, 4096, 9000, 16384, 32768, 65536})
    sizes.push_back(size);
  return sizes;
}

std::vector<SweepPoint> sweepLengths(const gen::Params& winner, const Baseline& baseline,
                                     Timer& timer, Workload& workload, int repeat,
                                     const ProgressFn& progress, RoundGate* gate,
                                     const std::vector<Baseline>& placed,
                                     SharedAddresses* addresses) {
  const Kernel kernel = Jit::compile(winner);
  MeasureConfig config;
  config.addresses = addresses;
  for (int size : sweepSizes()) {
    if (static_cast<std::size_t>(size) <= workload.maxLength()) config.sizes.push_back(size);
  }
  config.repeat = repeat;
  config.targetBatchTicks = 200000;
  config.gate = gate;
  std::vector<TimedKernel> timed{timedBaseline(baseline, addresses != nullptr),
                                 timedKernel(kernel, "winner")};
  for (const Baseline& b : placed) timed.push_back(timedBaseline(b));
  const auto samples = measureInterleaved(timed, config, timer, workload, progress);
  std::vector<SweepPoint> points;
  for (std::size_t i = 0; i < config.sizes.size(); ++i) {
    const int size = config.sizes[i];
    SweepPoint point{size,
                     workload.config().cache,
                     summarize(samples[1].sizes[i].perCall).median / size,
                     summarize(samples[0].sizes[i].perCall).median / size,
                     {},
                     pairedRatio(samples[1].sizes[i].perCall, samples[0].sizes[i].perCall)};
    for (std::size_t k = 2; k < samples.size(); ++k)
      point.placedPerByte.push_back(summarize(samples[k].sizes[i].perCall).median / size);
    points.push_back(std::move(point));
  }
  return points;
}

}  // namespace csumtune::tuner
