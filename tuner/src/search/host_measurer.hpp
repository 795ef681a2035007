// Measures candidates on this CPU: refuse what the CPU cannot run, verify (quick plan) what
// it can, and time the correct ones interleaved with the reference kernel (the Linux-like
// loop), so the score is a ratio that machine-wide drift cancels out of.
#pragma once

#include <memory>

#include "csumtune/jit.hpp"
#include "measure/harness.hpp"
#include "search/evaluator.hpp"
#include "search/profile.hpp"
#include "verify.hpp"

namespace csumtune::tuner {

struct HostMeasureSettings {
  int repeat = 31;                  // paired samples per size
  double targetBatchTicks = 60000;  // per sample
  std::uint64_t seed = 1;
  // Noise guard: when the reference measured alongside a candidate is this much slower than
  // it usually is in this run, something else is using the core (an SMT sibling, an
  // interrupt storm) and the candidate is measured again, up to `maxRetries` times.
  double noiseTolerance = 0.04;
  int maxRetries = 4;
};

class HostMeasurer : public CandidateMeasurer {
 public:
  HostMeasurer(const Profile& profile, Timer& timer, Workload& workload,
               HostMeasureSettings settings);
  Evaluation measure(const gen::Params& params) override;
  const Kernel& reference() const { return reference_; }
  std::size_t retries() const { return retries_; }
  // What the reference usually measures in this run (a low quantile of what it measured);
  // 0 until there are a few figures.
  double usualReference() const;

 private:
  // Times candidate and reference once; returns the reference's profile figure.
  double timeOnce(KernelFn candidate, Evaluation& e);
  const Profile& profile_;
  Timer& timer_;
  Workload& workload_;
  HostMeasureSettings settings_;
  Kernel reference_;
  VerifyFixture fixture_;
  std::vector<double> referenceHistory_;
  std::size_t retries_ = 0;
};

}  // namespace csumtune::tuner
