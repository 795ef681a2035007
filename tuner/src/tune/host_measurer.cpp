#include "tune/host_measurer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "measure/baselines.hpp"
#include "measure/stats.hpp"
#include "measure/timed_kernels.hpp"
#include "tune/finalists.hpp"
#include "tune/guard_tally.hpp"
#include "tune/watched_measurement.hpp"

namespace csumtune::tuner {

HostMeasurer::HostMeasurer(const Profile& profile, const Baseline& baseline, Timer& timer,
                           Workload& workload, HostMeasureSettings settings, FinalSettings final,
                           std::function<void(const std::string&)> note, Workload* otherCache,
                           ContentionMonitor* monitor)
    : profile_(profile),
      timer_(timer),
      workload_(workload),
      otherCache_(otherCache),
      settings_(settings),
      final_(final),
      note_(std::move(note)),
      baseline_(baseline),
      fixture_(settings.seed),
      guard_(settings.noiseTolerance, settings.maxRetries),
      monitor_(monitor) {}

namespace {

// Rounds of a long measurement kept only when the monitor found them quiet.
class QuietRounds : public RoundGate {
 public:
  explicit QuietRounds(ContentionMonitor& monitor) : monitor_(monitor) {}
  void roundStarts() override { window_ = monitor_.open(); }
  bool keepRound() override { return monitor_.keepRound(window_); }

 private:
  ContentionMonitor& monitor_;
  Window window_;
};

}  // namespace

Window HostMeasurer::openWindow() {
  return monitor_ ? monitor_->open() : Window{};
}

ClosedWindow HostMeasurer::closeWindow(const Window& window, bool baselineSlow) {
  return monitor_ ? monitor_->close(window, baselineSlow) : ClosedWindow{baselineSlow, 0};
}

RoundGate* HostMeasurer::quietRounds() {
  if (!monitor_ || !monitor_->waiting()) return nullptr;
  if (!gate_) gate_ = std::make_unique<QuietRounds>(*monitor_);
  return gate_.get();
}

void HostMeasurer::beginPhase(const std::string& name) {
  if (monitor_) monitor_->beginPhase(name);
}

ContentionReport HostMeasurer::contention() {
  return monitor_ ? monitor_->finish() : ContentionReport{};
}

Evaluation HostMeasurer::measure(const gen::Params& params) {
  const auto start = std::chrono::steady_clock::now();
  Evaluation e;
  e.params = params;
  auto finish = [&] {
    e.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return e;
  };
  std::optional<Kernel> kernel;
  try {
    // Jit::compile refuses a kernel this CPU lacks a feature for (never runs it).
    kernel.emplace(Jit::compile(params));
  } catch (const Error& error) {
    e.status = EvalStatus::Refused;
    e.message = error.what();
    return finish();
  }
  e.bytes = kernel->size();
  // Verified before timed: a wrong kernel is recorded as such and can never win.
  const auto verdict = verifyCompiled(*kernel, fixture_, quickPlan(params, settings_.seed));
  if (!verdict.ok()) {
    e.status = EvalStatus::Wrong;
    e.message = *verdict.failure;
    return finish();
  }
  if (applySizeLimit(e, settings_.maxBytes)) return finish();
  // An interrupt is seen by the search between candidates (this one is kept).
  const int attempts = measureWatched(guard_, monitor_, [&] { return timeOnce(*kernel, e); });
  if (attempts > 1) e.message = fmt::format("measured {} times (noise guard)", attempts);
  return finish();
}

double HostMeasurer::timeOnce(const Kernel& candidate, Evaluation& e) {
  MeasureConfig config;
  config.sizes = profile_.sizes();
  config.repeat = settings_.repeat;
  config.targetBatchTicks = settings_.targetBatchTicks;
  config.warmupBatches = 2;
  config.addresses = addresses_;
  const auto samples = measureInterleaved(
      {timedBaseline(baseline_, addresses_ != nullptr), timedKernel(candidate, "candidate")},
      config, timer_, workload_);
  std::vector<double> baselineTimes, measured;
  for (std::size_t i = 0; i < config.sizes.size(); ++i) {
    baselineTimes.push_back(summarize(samples[0].sizes[i].perCall).median);
    measured.push_back(summarize(samples[1].sizes[i].perCall).median);
  }
  e.perCall = measured;
  e.scorePerByte = profile_.score(measured);
  e.baselinePerByte = profile_.score(baselineTimes);
  e.score = e.scorePerByte / e.baselinePerByte;
  return e.baselinePerByte;
}

std::vector<FinalistResult> HostMeasurer::remeasureFinalists(
    const std::vector<Evaluation>& finalists) {
  // While the baseline measures clearly slower than it usually did during the search, the
  // core is shared with something else: measure again and keep the quietest attempt.
  std::vector<FinalistResult> kept;
  ClosedWindow keptWindow;
  for (int attempt = 0; attempt <= guard_.maxRetries(); ++attempt) {
    const Window window = openWindow();
    auto results = tuner::remeasureFinalists(finalists, baseline_, profile_, timer_, workload_,
                                             final_, stopOnInterrupt(), quietRounds(), addresses_);
    const ClosedWindow closed =
        closeWindow(window, guard_.disturbed(results.front().baselinePerByte));
    // Only the attempt kept counts towards the contention figure.
    const bool better =
        kept.empty() || results.front().baselinePerByte < kept.front().baselinePerByte;
    if (monitor_ && !kept.empty()) monitor_->measuredAgain(better ? keptWindow : closed);
    if (better) {
      kept = std::move(results);
      keptWindow = closed;
    }
    if (!guard_.disturbed(kept.front().baselinePerByte)) break;
    guard_.countRetry();
    if (note_) note_("the baseline measured slow (noisy core); measuring the finalists again");
  }
  return kept;
}

namespace {
// The fewest rounds of the guard's cold measurements (the sweep's count).
constexpr int kColdGuardRounds = 41;
}  // namespace

std::vector<GuardResult> HostMeasurer::guard(const std::vector<gen::Params>& candidates,
                                             const std::vector<int>& lengths) {
  // Each candidate with the baseline alone, as during the search.
  return guardInGroups(candidates, lengths, 1, 21);
}

std::vector<GuardResult> HostMeasurer::guardTogether(const std::vector<gen::Params>& candidates,
                                                     const std::vector<int>& lengths) {
  return guardInGroups(candidates, lengths, candidates.size(), 31);
}

std::vector<GuardResult> HostMeasurer::guardPlacements(const std::vector<gen::Params>& placed,
                                                       const std::vector<int>& lengths) {
  return guardInGroups(placed, lengths, placed.size(), 31);
}

std::vector<GuardResult> HostMeasurer::guardInGroups(const std::vector<gen::Params>& candidates,
                                                     const std::vector<int>& lengths,
                                                     std::size_t groupSize, int repeat) {
  // Hot and cold both: a short path that wins hot can lose cold, where each call waits on
  // its own miss and the instructions around it decide how many misses overlap.
  std::vector<Workload*> workloads{&workload_};
  if (otherCache_) workloads.push_back(otherCache_);
  std::vector<GuardTally> tallies;
  for (const gen::Params& p : candidates) tallies.emplace_back(p, workload_.config().cache);
  if (candidates.empty()) return {};
  std::vector<Kernel> kernels;
  for (const gen::Params& p : candidates) kernels.push_back(Jit::compile(p));
  for (Workload* workload : workloads) {
    MeasureConfig config;
    for (int length : lengths) {
      if (static_cast<std::size_t>(length) <= workload->maxLength()) config.sizes.push_back(length);
    }
    // Cold samples spread far wider than hot ones: with the hot count of rounds, a short path
    // whose median was well above 1 at one length kept its interval's lower end under the
    // tolerance, and the sweep then found it surely slower there (a tune of 2026-12-04 in
    // short-paths.md). Cold takes at least the sweep's rounds.
    config.repeat =
        workload->config().cache == CacheState::Cold ? std::max(repeat, kColdGuardRounds) : repeat;
    config.targetBatchTicks = settings_.targetBatchTicks;
    config.warmupBatches = 2;
    config.gate = quietRounds();
    config.addresses = addresses_;
    for (std::size_t first = 0; first < candidates.size(); first += groupSize) {
      const std::size_t last = std::min(candidates.size(), first + groupSize);
      std::vector<TimedKernel> timed{timedBaseline(baseline_, addresses_ != nullptr)};
      for (std::size_t k = first; k < last; ++k)
        timed.push_back(timedKernel(kernels[k], candidates[k].toString()));
      const Window window = openWindow();
      const auto samples = measureInterleaved(timed, config, timer_, *workload, stopOnInterrupt());
      closeWindow(window, false);
      for (std::size_t k = first; k < last; ++k) {
        for (std::size_t i = 0; i < config.sizes.size(); ++i) {
          tallies[k].add(
              pairedRatio(samples[k - first + 1].sizes[i].perCall, samples[0].sizes[i].perCall),
              config.sizes[i], workload->config().cache);
        }
      }
    }
  }
  std::vector<GuardResult> out;
  for (const GuardTally& tally : tallies) out.push_back(tally.result());
  return out;
}

std::optional<std::string> HostMeasurer::failsFullPlan(const gen::Params& winner) {
  const Kernel kernel = Jit::compile(winner);
  return verifyCompiled(kernel, fixture_, forParams(fullPlan(settings_.seed), winner)).failure;
}

std::vector<SweepPoint> HostMeasurer::sweep(const gen::Params& winner) {
  // Hot first, then cold, whichever the run was tuned for.
  std::vector<Workload*> workloads{&workload_};
  if (otherCache_) workloads.push_back(otherCache_);
  std::sort(workloads.begin(), workloads.end(), [](const Workload* a, const Workload* b) {
    return a->config().cache < b->config().cache;
  });
  std::vector<SweepPoint> points;
  for (Workload* workload : workloads) {
    const Window window = openWindow();
    auto part = sweepLengths(winner, baseline_, timer_, *workload, 41, stopOnInterrupt(),
                             quietRounds(), placed_, addresses_);
    closeWindow(window, false);
    points.insert(points.end(), part.begin(), part.end());
  }
  return points;
}

}  // namespace csumtune::tuner
