// Timing kernels the way the 2013 thread learned to: pinned, warmed up, many samples of
// batches long enough to dwarf the clock's own cost (which is measured and subtracted), and
// all kernels interleaved round by round so that drift hits every kernel alike and two
// kernels can be compared sample by sample.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "csumtune/kernel_fn.hpp"
#include "measure/timed_kind.hpp"
#include "measure/timer.hpp"
#include "measure/workload.hpp"

namespace csumtune::tuner {

struct TimedKernel {
  std::string name;    // "linux-v6.8", "plain-c", or the canonical params
  std::string params;  // canonical params (empty for the C baseline)
  TimedKind kind = TimedKind::Jit;
  KernelFn fn = nullptr;
  std::size_t bytes = 0;  // code size (0: unknown)
  // How a call goes: fn(buf, len, sum); copyFn(buf, dst, len, sum) for a copying kernel; or
  // memcpy(dst, buf, len) and then fn(dst, len, sum) — copy and sum in two passes. dst is
  // the workload's destination.
  enum class Call { Sum, Copy, MemcpyThenSum } call = Call::Sum;
  CopyFn copyFn = nullptr;
  // [fn, fn + bytes) runs the same from any address (checked: SharedAddresses::whyNotMovable),
  // so that it can be timed where the other kernels are timed.
  bool movable = false;
};

class SharedAddresses;

// Under --wait-quiet a long measurement keeps only the rounds measured while the machine was
// quiet: the gate is told when a round starts and, after it, says whether to keep it (a busy
// round's samples are dropped and the round is measured again once the gate has waited).
class RoundGate {
 public:
  virtual ~RoundGate() = default;
  virtual void roundStarts() = 0;
  virtual bool keepRound() = 0;
};

struct MeasureConfig {
  std::vector<int> sizes;
  int repeat = 101;                  // samples per kernel and size
  double targetBatchTicks = 100000;  // a batch of calls lasts at least this long
  int warmupBatches = 3;
  bool serialize = false;  // latency: each call's buffer address waits for the previous result
  RoundGate* gate = nullptr;
  // When set, each round times every movable summing kernel at the round's address (copied
  // there, warmed up, then timed); the others where they are.
  SharedAddresses* addresses = nullptr;
};

struct SizeSamples {
  int size = 0;
  std::size_t iterations = 0;   // calls per batch (the same for every kernel at this size)
  std::vector<double> perCall;  // timer units per call, timer overhead subtracted
};

struct KernelSamples {
  TimedKernel kernel;
  std::vector<SizeSamples> sizes;  // in MeasureConfig::sizes order
};

// Progress: (samples done, samples total).
using ProgressFn = std::function<void(std::size_t, std::size_t)>;

std::vector<KernelSamples> measureInterleaved(const std::vector<TimedKernel>& kernels,
                                              const MeasureConfig& config, Timer& timer,
                                              Workload& workload, const ProgressFn& progress = {});

// One batch: `iterations` calls of the kernel on consecutive workload buffers, chained through the
// sum (and, with `serialize`, through the next buffer's address); returns timer units per
// call with the overhead subtracted.
double timeBatch(const TimedKernel& kernel, int len, std::size_t iterations, Timer& timer,
                 Workload& workload, std::size_t& cursor, bool serialize);

}  // namespace csumtune::tuner
