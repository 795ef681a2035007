#include "measure/harness.hpp"

#include <algorithm>
#include <cmath>

namespace csumtune::tuner {
namespace {
// Zero, but the compiler cannot know it: `sum & gSerialize` makes each call's buffer
// address depend on the previous call's result.
volatile std::uint32_t gSerialize = 0;

// The timed loop, compiled once per mode so that no mode test sits between the calls.
template <bool Serialize>
double timeBatchIn(KernelFn fn, int len, std::size_t iterations, Timer& timer, Workload& workload,
                   std::size_t& cursor) {
  const std::uint8_t* base = workload.base();
  const std::uint32_t* positions = workload.positions();
  const std::size_t mask = workload.mask();
  const std::uint32_t dependency = Serialize ? gSerialize : 0;
  std::uint32_t sum = 0;
  std::size_t at = cursor;
  const std::uint64_t start = timer.start();
  for (std::size_t i = 0; i < iterations; ++i) {
    // Each result is the next call's initial sum (a caller accumulating a checksum). With
    // Serialize, the next buffer's address also waits for the result, so out-of-order
    // execution cannot overlap calls (or, cold, their cache misses): a call's latency.
    const std::uint8_t* buf = base + positions[at++ & mask];
    if constexpr (Serialize) buf += (sum & dependency);
    sum = fn(buf, len, sum);
  }
  const std::uint64_t stop = timer.stop();
  cursor = at;
  asm volatile("" ::"r"(sum));
  const double elapsed = static_cast<double>(stop - start) - timer.overhead();
  return std::max(elapsed, 0.0) / static_cast<double>(iterations);
}

}  // namespace

double timeBatch(KernelFn fn, int len, std::size_t iterations, Timer& timer, Workload& workload,
                 std::size_t& cursor, bool serialize) {
  return serialize ? timeBatchIn<true>(fn, len, iterations, timer, workload, cursor)
                   : timeBatchIn<false>(fn, len, iterations, timer, workload, cursor);
}

namespace {

// Calls per batch so that the *fastest* kernel's batch lasts the
// target; slower kernels get longer batches, never shorter ones.
std::size_t calibrate(const std::vector<TimedKernel>& kernels, int len, const MeasureConfig& config,
                      Timer& timer, Workload& workload, std::size_t& cursor) {
  double fastest = 1e300;
  for (const TimedKernel& k : kernels) {
    double best = 1e300;
    for (int i = 0; i < 5; ++i)
      best = std::min(best, timeBatch(k.fn, len, 16, timer, workload, cursor, config.serialize));
    fastest = std::min(fastest, best);
  }
  const double iterations = std::ceil(config.targetBatchTicks / std::max(fastest, 1.0));
  return static_cast<std::size_t>(std::clamp(iterations, 1.0, 1e7));
}

}  // namespace

std::vector<KernelSamples> measureInterleaved(const std::vector<TimedKernel>& kernels,
                                              const MeasureConfig& config, Timer& timer,
                                              Workload& workload, const ProgressFn& progress) {
  std::vector<KernelSamples> results;
  for (const TimedKernel& k : kernels) {
    KernelSamples r{k, {}};
    for (int size : config.sizes) r.sizes.push_back({size, 0, {}});
    results.push_back(std::move(r));
  }
  std::size_t cursor = 0;
  std::vector<std::size_t> iterations;
  for (int size : config.sizes) {
    iterations.push_back(calibrate(kernels, size, config, timer, workload, cursor));
  }
  for (std::size_t s = 0; s < config.sizes.size(); ++s) {
    for (auto& r : results) {
      r.sizes[s].iterations = iterations[s];
      for (int w = 0; w < config.warmupBatches; ++w) {
        timeBatch(r.kernel.fn, config.sizes[s], iterations[s], timer, workload, cursor,
                  config.serialize);
      }
    }
  }
  const std::size_t total =
      static_cast<std::size_t>(config.repeat) * config.sizes.size() * kernels.size();
  std::size_t done = 0;
  for (int round = 0; round < config.repeat; ++round) {
    if (config.gate) config.gate->roundStarts();
    for (std::size_t s = 0; s < config.sizes.size(); ++s) {
      // Rotate the order each round: no kernel always runs right after the same other one.
      for (std::size_t j = 0; j < results.size(); ++j) {
        auto& r = results[(j + static_cast<std::size_t>(round)) % results.size()];
        r.sizes[s].perCall.push_back(timeBatch(r.kernel.fn, config.sizes[s], iterations[s], timer,
                                               workload, cursor, config.serialize));
        ++done;
      }
      if (progress) progress(done, total);
    }
    if (config.gate && !config.gate->keepRound()) {
      // Measured while busy: drop the round's samples and measure it again.
      for (auto& r : results) {
        for (auto& size : r.sizes) size.perCall.pop_back();
      }
      done -= config.sizes.size() * results.size();
      --round;
    }
  }
  return results;
}

}  // namespace csumtune::tuner
