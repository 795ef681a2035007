#include "measure/clock_rates.hpp"

#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace csumtune::tuner {
namespace {

// 1000 dependent `add $1`: one core cycle each on every x86-64 core since the 1990s.
__attribute__((noinline)) std::uint64_t addChain(std::uint64_t x, int rounds) {
  for (int r = 0; r < rounds; ++r) {
    asm volatile(
        ".rept 1000\n\t"
        "add $1, %0\n\t"
        ".endr"
        : "+r"(x));
  }
  return x;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

ClockRates measureClockRates(Timer& timer) {
  ClockRates rates;
  std::vector<double> hz;
  for (int i = 0; i < 3; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t c0 = __rdtsc();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(10)) {
    }
    const std::uint64_t c1 = __rdtsc();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    hz.push_back(static_cast<double>(c1 - c0) / seconds);
  }
  rates.tscHz = median(hz);
  constexpr int kRounds = 200;  // 200,000 cycles a sample
  addChain(0, kRounds);         // warm up (frequency ramp, instruction cache)
  std::vector<double> perUnit;
  for (int i = 0; i < 15; ++i) {
    const std::uint64_t start = timer.start();
    addChain(static_cast<std::uint64_t>(i), kRounds);
    const std::uint64_t stop = timer.stop();
    const double units = static_cast<double>(stop - start) - timer.overhead();
    if (units > 0) perUnit.push_back(1000.0 * kRounds / units);
  }
  // The fastest samples are the undisturbed ones: take a high quantile, not the median.
  std::sort(perUnit.begin(), perUnit.end());
  rates.cyclesPerUnit = perUnit.empty() ? 0 : perUnit[perUnit.size() * 3 / 4];
  return rates;
}

}  // namespace csumtune::tuner
