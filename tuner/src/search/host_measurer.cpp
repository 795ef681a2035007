#include "search/host_measurer.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "csumtune/cpu.hpp"
#include "measure/baselines.hpp"
#include "measure/stats.hpp"

namespace csumtune::tuner {

HostMeasurer::HostMeasurer(const Profile& profile, Timer& timer, Workload& workload,
                           HostMeasureSettings settings)
    : profile_(profile),
      timer_(timer),
      workload_(workload),
      settings_(settings),
      reference_(Jit::compile(linuxLikeParams())),
      fixture_(settings.seed) {}

Evaluation HostMeasurer::measure(const gen::Params& params) {
  const auto start = std::chrono::steady_clock::now();
  Evaluation e;
  e.params = params;
  auto finish = [&] {
    e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return e;
  };
  if (auto missing = missingFeatures(params); !missing.empty()) {
    e.status = EvalStatus::Refused;
    e.message = std::string("CPU lacks ") + std::string(gen::toString(missing.front()));
    return finish();
  }
  std::optional<Kernel> kernel;
  try {
    kernel.emplace(Jit::compile(params));
  } catch (const Error& error) {
    e.status = EvalStatus::Refused;
    e.message = error.what();
    return finish();
  }
  // Verified before timed: a wrong kernel is recorded as such and can never win.
  const auto verdict =
      verifyKernel(kernel->fn(), fixture_, quickPlan(params.blockBytes(), settings_.seed));
  if (!verdict.ok()) {
    e.status = EvalStatus::Wrong;
    e.message = *verdict.failure;
    return finish();
  }
  for (int attempt = 0;; ++attempt) {
    const double reference = timeOnce(kernel->fn(), e);
    const double usual = usualReference();
    referenceHistory_.push_back(reference);
    if (usual == 0 || reference <= usual * (1 + settings_.noiseTolerance) ||
        attempt >= settings_.maxRetries) {
      if (attempt > 0) e.message = fmt::format("measured {} times (noise guard)", attempt + 1);
      break;
    }
    ++retries_;
  }
  return finish();
}

double HostMeasurer::timeOnce(KernelFn candidate, Evaluation& e) {
  MeasureConfig config;
  config.sizes = profile_.sizes();
  config.repeat = settings_.repeat;
  config.targetBatchTicks = settings_.targetBatchTicks;
  config.warmupBatches = 2;
  const auto samples = measureInterleaved(
      {{"reference", "", "baseline-linux", reference_.fn()}, {"candidate", "", "jit", candidate}},
      config, timer_, workload_);
  std::vector<double> reference, measured;
  for (std::size_t i = 0; i < config.sizes.size(); ++i) {
    reference.push_back(summarize(samples[0].sizes[i].perCall).median);
    measured.push_back(summarize(samples[1].sizes[i].perCall).median);
  }
  e.perCall = measured;
  e.scorePerByte = profile_.score(measured);
  e.referencePerByte = profile_.score(reference);
  e.score = e.scorePerByte / e.referencePerByte;
  return e.referencePerByte;
}

double HostMeasurer::usualReference() const {
  // The 20th percentile of the last 200 reference figures: what the reference measures when
  // the core is quiet. Until there are a few, there is no judgement.
  if (referenceHistory_.size() < 5) return 0;
  const std::size_t n = std::min<std::size_t>(referenceHistory_.size(), 200);
  std::vector<double> recent(referenceHistory_.end() - static_cast<std::ptrdiff_t>(n),
                             referenceHistory_.end());
  std::sort(recent.begin(), recent.end());
  return quantileSorted(recent, 0.2);
}

}  // namespace csumtune::tuner
