// What tune() needs measured: candidates (verified, then timed against the baseline), the
// finalists again, the winner against the full correctness plan, and the winner's sweep.
// HostMeasurer measures on this CPU; ReplayMeasurer answers from a recorded table, so whole
// tunes can be tested and search strategies compared without timing anything.
#pragma once

#include <atomic>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "measure/contention.hpp"
#include "search/evaluator.hpp"
#include "tune/finalist_results.hpp"

namespace csumtune::tuner {

// Thrown out of a measuring phase when the run is interrupted (Ctrl-C, SIGTERM) in the middle
// of it: the phase's figures are dropped, the run ends as interrupted and stays resumable.
struct PhaseInterrupted : std::exception {
  const char* what() const noexcept override { return "interrupted"; }
};

class TuneMeasurer : public CandidateMeasurer {
 public:
  // Measuring phases check this flag between samples and throw PhaseInterrupted.
  void setInterruptFlag(const std::atomic<bool>* flag) { interrupted_ = flag; }
  // The finalists measured again against the baseline; best (lowest score) first.
  virtual std::vector<FinalistResult> remeasureFinalists(
      const std::vector<Evaluation>& finalists) = 0;
  // Each candidate's worst time ratio to the baseline over `lengths` (worstRatio 0 when the
  // measurer cannot tell: a replayed table).
  virtual std::vector<GuardResult> guard(const std::vector<gen::Params>& candidates,
                                         const std::vector<int>& lengths) = 0;
  // The same verdict with every candidate and the baseline measured together, round by
  // round in one interleaved run, so that the candidates' figures can be compared with each
  // other (the guard measures each one beside the baseline alone, at its own time). A
  // measurer without timing answers as guard() does.
  virtual std::vector<GuardResult> guardTogether(const std::vector<gen::Params>& candidates,
                                                 const std::vector<int>& lengths) {
    return guard(candidates, lengths);
  }
  // The same kernel in each of its layouts (params that differ in `place` and `targets` only),
  // timed together with the baseline as guardTogether does. A measurer without timing has nothing
  // to tell them apart by and answers nothing: the placement stage then keeps the winner's.
  virtual std::vector<GuardResult> guardPlacements(const std::vector<gen::Params>& placed,
                                                   const std::vector<int>& lengths) {
    (void)placed;
    (void)lengths;
    return {};
  }
  // Why the winner fails the full correctness plan, or nothing when it passes.
  virtual std::optional<std::string> failsFullPlan(const gen::Params& winner) = 0;
  // The winner and the baseline across lengths (may be empty).
  virtual std::vector<SweepPoint> sweep(const gen::Params& winner) = 0;
  // Measurements the noise guard repeated.
  virtual std::size_t noiseRetries() const = 0;
  // Whether every kernel is timed at the addresses each round draws (a kernel's place is then
  // the round's, and the placement stage chooses its targets only).
  virtual bool sharesAddresses() const { return false; }
  // The run's phases ("search", "guard", "finalists", "sweep"): a measurer that watches for
  // contention probes the machine between them and records each phase's disturbance.
  virtual void beginPhase(const std::string& /*name*/) {}
  // How busy the machine was, phase by phase (after the last phase; empty when not watched).
  virtual ContentionReport contention() { return {}; }

 protected:
  void throwIfInterrupted() const {
    if (interrupted_ && interrupted_->load()) throw PhaseInterrupted();
  }
  // A measuring loop's progress callback that throws PhaseInterrupted between samples.
  std::function<void(std::size_t, std::size_t)> stopOnInterrupt() const {
    return [this](std::size_t, std::size_t) { throwIfInterrupted(); };
  }

 private:
  const std::atomic<bool>* interrupted_ = nullptr;
};

}  // namespace csumtune::tuner
