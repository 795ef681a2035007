#include "search/host_measurer.hpp"

#include <chrono>

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
  const auto verdict = verifyKernel(kernel->fn(), fixture_, quickPlan(params.blockBytes(), settings_.seed));
  if (!verdict.ok()) {
    e.status = EvalStatus::Wrong;
    e.message = *verdict.failure;
    return finish();
  }
  MeasureConfig config;
  config.sizes = profile_.sizes();
  config.repeat = settings_.repeat;
  config.targetBatchTicks = settings_.targetBatchTicks;
  config.warmupBatches = 2;
  const auto samples = measureInterleaved(
      {{"reference", "", "baseline-linux", reference_.fn()}, {"candidate", "", "jit", kernel->fn()}},
      config, timer_, workload_);
  std::vector<double> reference, candidate;
  for (std::size_t i = 0; i < config.sizes.size(); ++i) {
    reference.push_back(summarize(samples[0].sizes[i].perCall).median);
    candidate.push_back(summarize(samples[1].sizes[i].perCall).median);
  }
  e.perCall = candidate;
  e.scorePerByte = profile_.score(candidate);
  e.referencePerByte = profile_.score(reference);
  e.score = e.scorePerByte / e.referencePerByte;
  return finish();
}

}  // namespace csumtune::tuner
