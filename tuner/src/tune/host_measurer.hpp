// Measures on this CPU: refuse what the CPU cannot run, verify (quick plan) what it can, and
// time the correct ones interleaved with the baseline kernel (linux-v6.8), so the
// score is a ratio that machine-wide drift cancels out of. One noise guard watches the
// baseline through the search and the finalists.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "csumtune/jit.hpp"
#include "measure/baselines.hpp"
#include "measure/contention.hpp"
#include "measure/harness.hpp"
#include "search/profile.hpp"
#include "tune/measure_settings.hpp"
#include "tune/noise_guard.hpp"
#include "tune/tune_measurer.hpp"
#include "verify/verify.hpp"

namespace csumtune::tuner {

class HostMeasurer : public TuneMeasurer {
 public:
  // `otherCache` (optional): a workload of the other cache state, for the winner's sweep.
  // `baseline`: what every candidate is timed against (linux-v6.8 by default).
  // `monitor` (optional): watches for contention around every measurement and, with
  // --wait-quiet, waits for quiet before measuring again what was measured while busy.
  HostMeasurer(const Profile& profile, const Baseline& baseline, Timer& timer, Workload& workload,
               HostMeasureSettings settings, FinalSettings final,
               std::function<void(const std::string&)> note = {}, Workload* otherCache = nullptr,
               ContentionMonitor* monitor = nullptr);
  Evaluation measure(const gen::Params& params) override;
  std::vector<FinalistResult> remeasureFinalists(const std::vector<Evaluation>& finalists) override;
  std::vector<GuardResult> guard(const std::vector<gen::Params>& candidates,
                                 const std::vector<int>& lengths) override;
  std::vector<GuardResult> guardTogether(const std::vector<gen::Params>& candidates,
                                         const std::vector<int>& lengths) override;
  std::vector<GuardResult> guardPlacements(const std::vector<gen::Params>& placed,
                                           const std::vector<int>& lengths) override;
  std::optional<std::string> failsFullPlan(const gen::Params& winner) override;
  std::vector<SweepPoint> sweep(const gen::Params& winner) override;
  std::size_t noiseRetries() const override { return guard_.retries(); }
  // The reference (a tree's file) at each of its placements: the sweep measures them too.
  void sweepAgainstPlacements(std::vector<Baseline> placed) { placed_ = std::move(placed); }
  // Every measurement from now on times the baseline (whose code must be movable) and each
  // kernel at the addresses its rounds draw; the placement stage then measures the winner's
  // targets only (each round puts the code at a new address, 16-byte aligned).
  void shareAddresses(SharedAddresses* addresses) { addresses_ = addresses; }
  bool sharesAddresses() const override { return addresses_ != nullptr; }
  void beginPhase(const std::string& name) override;
  ContentionReport contention() override;

 private:
  // The guard's verdict on `candidates`, each group of them timed together with the
  // baseline at `lengths` (those each workload holds), hot and cold.
  std::vector<GuardResult> guardInGroups(const std::vector<gen::Params>& candidates,
                                         const std::vector<int>& lengths, std::size_t groupSize,
                                         int repeat);
  // Times candidate and baseline once; returns the baseline's profile figure.
  double timeOnce(const Kernel& candidate, Evaluation& e);
  // Records one measurement's window (true when disturbed); nothing without a monitor.
  Window openWindow();
  ClosedWindow closeWindow(const Window& window, bool baselineSlow);
  // The gate a long measurement keeps only quiet rounds through (nullptr unless waiting).
  RoundGate* quietRounds();
  const Profile& profile_;
  Timer& timer_;
  Workload& workload_;
  Workload* otherCache_;
  HostMeasureSettings settings_;
  FinalSettings final_;
  std::function<void(const std::string&)> note_;
  Baseline baseline_;
  std::vector<Baseline> placed_;
  SharedAddresses* addresses_ = nullptr;
  VerifyFixture fixture_;
  NoiseGuard guard_;
  ContentionMonitor* monitor_;
  std::unique_ptr<RoundGate> gate_;
};

}  // namespace csumtune::tuner
