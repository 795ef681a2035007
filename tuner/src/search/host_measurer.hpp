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
  int repeat = 31;                 // paired samples per size
  double targetBatchTicks = 60000; // per sample
  std::uint64_t seed = 1;
};

class HostMeasurer : public CandidateMeasurer {
 public:
  HostMeasurer(const Profile& profile, Timer& timer, Workload& workload,
               HostMeasureSettings settings);
  Evaluation measure(const gen::Params& params) override;
  const Kernel& reference() const { return reference_; }

 private:
  const Profile& profile_;
  Timer& timer_;
  Workload& workload_;
  HostMeasureSettings settings_;
  Kernel reference_;
  VerifyFixture fixture_;
};

}  // namespace csumtune::tuner
