// The host's contention signals: this thread's run-queue wait (/proc/thread-self/schedstat),
// the measuring CPU's steal time (/proc/stat), and the probe — a fixed dependent add chain,
// the baseline kernel on one hot buffer and a loop of plain loads, timed with the run's timer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "csumtune/kernel_fn.hpp"
#include "measure/contention.hpp"
#include "measure/timer.hpp"

namespace csumtune::tuner {

class HostContentionSource : public ContentionSource {
 public:
  HostContentionSource(int cpu, Timer& timer, KernelFn baseline);
  SchedReading read() override;
  ProbeFigures probe() override;
  void sleep(double seconds) override;
  std::string unavailable() const override { return unavailable_; }

 private:
  double timeLoads();
  double withoutTimer(std::uint64_t elapsed) const;

  int cpu_;
  Timer& timer_;
  KernelFn baseline_;
  std::vector<std::uint8_t> buffer_;
  std::vector<std::uint8_t> loadsBuffer_;
  double ticksPerSecondOfSteal_;
  std::string unavailable_;
};

}  // namespace csumtune::tuner
