#include "measure/harness.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "measure/shared_addresses.hpp"

namespace csumtune::tuner {
namespace {
// Zero, but the compiler cannot know it: `sum & gSerialize` makes each call's buffer
// address depend on the previous call's result.
volatile std::uint32_t gSerialize = 0;

// The timed loop, compiled once per mode and call shape so that no test sits between calls.
template <bool Serialize, TimedKernel::Call Call>
double timeBatchIn(const TimedKernel& kernel, int len, std::size_t iterations, Timer& timer,
                   Workload& workload, std::size_t& cursor) {
  const std::uint8_t* base = workload.base();
  const std::uint32_t* positions = workload.positions();
  const std::size_t mask = workload.mask();
  std::uint8_t* dst = Call == TimedKernel::Call::Sum ? nullptr : workload.destination();
  const KernelFn fn = kernel.fn;
  const CopyFn copyFn = kernel.copyFn;
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
    if constexpr (Call == TimedKernel::Call::Sum) {
      sum = fn(buf, len, sum);
    } else if constexpr (Call == TimedKernel::Call::Copy) {
      sum = copyFn(buf, dst, len, sum);
    } else {
      std::memcpy(dst, buf, static_cast<std::size_t>(len));
      sum = fn(dst, len, sum);
    }
  }
  const std::uint64_t stop = timer.stop();
  cursor = at;
  asm volatile("" ::"r"(sum));
  const double elapsed = static_cast<double>(stop - start) - timer.overhead();
  return std::max(elapsed, 0.0) / static_cast<double>(iterations);
}

template <bool Serialize>
double timeBatchAs(const TimedKernel& kernel, int len, std::size_t iterations, Timer& timer,
                   Workload& workload, std::size_t& cursor) {
  using C = TimedKernel::Call;
  switch (kernel.call) {
    case C::Copy:
      return timeBatchIn<Serialize, C::Copy>(kernel, len, iterations, timer, workload, cursor);
    case C::MemcpyThenSum:
      return timeBatchIn<Serialize, C::MemcpyThenSum>(kernel, len, iterations, timer, workload,
                                                      cursor);
    case C::Sum:
      break;
  }
  return timeBatchIn<Serialize, C::Sum>(kernel, len, iterations, timer, workload, cursor);
}

}  // namespace

double timeBatch(const TimedKernel& kernel, int len, std::size_t iterations, Timer& timer,
                 Workload& workload, std::size_t& cursor, bool serialize) {
  return serialize ? timeBatchAs<true>(kernel, len, iterations, timer, workload, cursor)
                   : timeBatchAs<false>(kernel, len, iterations, timer, workload, cursor);
}

namespace {

// Calls per batch so that the *fastest* kernel's batch lasts the
// target; slower kernels get longer batches, never shorter ones. Estimated twice: from
// batches of 16 calls, then from batches of the first estimate's length (the larger count
// stands), since 16 cold calls that land in a slow moment (a neighbour's burst on a shared
// memory system) would otherwise shrink every sample of that length to a few dozen calls.
std::size_t calibrate(const std::vector<TimedKernel>& kernels, int len, const MeasureConfig& config,
                      Timer& timer, Workload& workload, std::size_t& cursor) {
  const auto callsFor = [&](std::size_t calls, int tries) {
    double fastest = 1e300;
    for (const TimedKernel& k : kernels) {
      for (int i = 0; i < tries; ++i)
        fastest =
            std::min(fastest, timeBatch(k, len, calls, timer, workload, cursor, config.serialize));
    }
    const double iterations = std::ceil(config.targetBatchTicks / std::max(fastest, 1.0));
    return static_cast<std::size_t>(std::clamp(iterations, 1.0, 1e7));
  };
  const std::size_t first = callsFor(16, 5);
  // The longer batches can meet a slow moment too: the larger estimate stands.
  return first <= 16 ? first : std::max(first, callsFor(first, 3));
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
  // The positions calibration and the first rounds read (the pool was settled when made).
  workload.settle(std::size_t{1} << 16);
  std::size_t cursor = 0;
  std::vector<std::size_t> iterations;
  for (int size : config.sizes) {
    iterations.push_back(calibrate(kernels, size, config, timer, workload, cursor));
  }
  for (std::size_t s = 0; s < config.sizes.size(); ++s) {
    for (auto& r : results) {
      r.sizes[s].iterations = iterations[s];
      for (int w = 0; w < config.warmupBatches; ++w) {
        timeBatch(r.kernel, config.sizes[s], iterations[s], timer, workload, cursor,
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
        TimedKernel kernel = r.kernel;
        if (config.addresses && kernel.movable && kernel.call == TimedKernel::Call::Sum) {
          kernel.fn = config.addresses->install(r.kernel, round);
          // New bytes at this address: the front end and predictors have seen none of them.
          timeBatch(kernel, config.sizes[s], std::max<std::size_t>(1, iterations[s] / 8), timer,
                    workload, cursor, config.serialize);
        }
        r.sizes[s].perCall.push_back(timeBatch(kernel, config.sizes[s], iterations[s], timer,
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
