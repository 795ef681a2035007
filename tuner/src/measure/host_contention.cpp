#include "measure/host_contention.hpp"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>

namespace csumtune::tuner {
namespace {

constexpr int kProbeLength = 1500;  // the baseline on one MTU-sized hot buffer
constexpr int kProbeCalls = 32;
constexpr int kChainLength = 4096;
// Long enough that the timer's granularity stays near 1 % of the time, short enough to sit
// in any L1 data cache.
constexpr int kLoadsBytes = 4096;
constexpr int kLoadsPasses = 16;

// Nanoseconds this thread waited on a run queue: the second field of schedstat.
bool readWait(double& seconds) {
  std::ifstream in("/proc/thread-self/schedstat");
  std::uint64_t running = 0, waiting = 0;
  if (!(in >> running >> waiting)) return false;
  seconds = static_cast<double>(waiting) * 1e-9;
  return true;
}

// The steal column (the 8th number) of "cpuN" in /proc/stat, in clock ticks.
bool readSteal(int cpu, double& ticks) {
  std::ifstream in("/proc/stat");
  const std::string name = "cpu" + std::to_string(cpu);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, name.size() + 1, name + " ") != 0) continue;
    std::istringstream fields(line.substr(name.size()));
    std::uint64_t value = 0;
    for (int column = 1; column <= 8; ++column) {
      if (!(fields >> value)) return false;
    }
    ticks = static_cast<double>(value);
    return true;
  }
  return false;
}

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

HostContentionSource::HostContentionSource(int cpu, Timer& timer, KernelFn baseline)
    : cpu_(cpu),
      timer_(timer),
      baseline_(baseline),
      buffer_(kProbeLength + 64),
      loadsBuffer_(kLoadsBytes + 64),
      ticksPerSecondOfSteal_(static_cast<double>(std::max(sysconf(_SC_CLK_TCK), 1L))) {
  for (std::size_t i = 0; i < buffer_.size(); ++i) buffer_[i] = static_cast<std::uint8_t>(i * 31);
  for (std::size_t i = 0; i < loadsBuffer_.size(); ++i)
    loadsBuffer_[i] = static_cast<std::uint8_t>(i * 17);
  double value = 0;
  if (!readWait(value)) unavailable_ = "no /proc/thread-self/schedstat (run-queue wait unknown)";
  if (cpu_ >= 0 && !readSteal(cpu_, value)) {
    unavailable_ +=
        std::string(unavailable_.empty() ? "" : "; ") + "no steal time for this CPU in /proc/stat";
  }
}

SchedReading HostContentionSource::read() {
  SchedReading r;
  r.wall = nowSeconds();
  readWait(r.wait);
  double steal = 0;
  if (cpu_ >= 0 && readSteal(cpu_, steal)) r.steal = steal / ticksPerSecondOfSteal_;
  return r;
}

// Plain `add r64, m64` into eight independent sums, 128 bytes a step: nothing but the load
// ports bounds it. The whole loop is one asm block, so that the compiler and its options
// cannot change what is timed (the ratio it gives is remembered between builds).
double HostContentionSource::timeLoads() {
  const std::uint8_t* begin =
      loadsBuffer_.data() + (64 - reinterpret_cast<std::uintptr_t>(loadsBuffer_.data()) % 64) % 64;
  const std::uint8_t* end = begin + kLoadsBytes;
  const std::uint8_t* cursor = nullptr;
  std::uint64_t passes = kLoadsPasses;
  std::uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  const std::uint64_t start = timer_.start();
  asm volatile(
      "1:\n\t"
      "mov %[begin], %[cursor]\n\t"
      ".p2align 4\n"
      "2:\n\t"
      "add 0(%[cursor]), %[s0]\n\tadd 8(%[cursor]), %[s1]\n\t"
      "add 16(%[cursor]), %[s2]\n\tadd 24(%[cursor]), %[s3]\n\t"
      "add 32(%[cursor]), %[s4]\n\tadd 40(%[cursor]), %[s5]\n\t"
      "add 48(%[cursor]), %[s6]\n\tadd 56(%[cursor]), %[s7]\n\t"
      "add 64(%[cursor]), %[s0]\n\tadd 72(%[cursor]), %[s1]\n\t"
      "add 80(%[cursor]), %[s2]\n\tadd 88(%[cursor]), %[s3]\n\t"
      "add 96(%[cursor]), %[s4]\n\tadd 104(%[cursor]), %[s5]\n\t"
      "add 112(%[cursor]), %[s6]\n\tadd 120(%[cursor]), %[s7]\n\t"
      "add $128, %[cursor]\n\t"
      "cmp %[end], %[cursor]\n\t"
      "jb 2b\n\t"
      "dec %[passes]\n\t"
      "jnz 1b"
      : [s0] "+r"(s0), [s1] "+r"(s1), [s2] "+r"(s2), [s3] "+r"(s3), [s4] "+r"(s4), [s5] "+r"(s5),
        [s6] "+r"(s6), [s7] "+r"(s7), [cursor] "=&r"(cursor), [passes] "+r"(passes)
      : [begin] "r"(begin), [end] "r"(end)
      : "cc", "memory");
  const std::uint64_t stop = timer_.stop();
  asm volatile("" ::"r"(s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7));
  return withoutTimer(stop - start);
}

// The timer's own cost is taken off: it differs between timers, and a ratio of two figures
// that both carry it would differ too.
double HostContentionSource::withoutTimer(std::uint64_t elapsed) const {
  return std::max(1.0, static_cast<double>(elapsed) - timer_.overhead());
}

ProbeFigures HostContentionSource::probe() {
  ProbeFigures f;
  // A dependent add chain: the core's latency, whatever the caches hold. One asm block, like
  // the loads, so that their ratio does not depend on the compiler.
  std::uint64_t x = 1;
  std::uint64_t steps = kChainLength / 8;
  std::uint64_t start = timer_.start();
  asm volatile(
      "1:\n\t"
      "add %[three], %[x]\n\tadd %[three], %[x]\n\tadd %[three], %[x]\n\t"
      "add %[three], %[x]\n\tadd %[three], %[x]\n\tadd %[three], %[x]\n\t"
      "add %[three], %[x]\n\tadd %[three], %[x]\n\t"
      "dec %[steps]\n\t"
      "jnz 1b"
      : [x] "+r"(x), [steps] "+r"(steps)
      : [three] "r"(std::uint64_t{3})
      : "cc");
  std::uint64_t stop = timer_.stop();
  f.chain = withoutTimer(stop - start);
  // The baseline kernel, hot, chained through its sum: the core's throughput.
  const std::uint8_t* buf =
      buffer_.data() + (64 - reinterpret_cast<std::uintptr_t>(buffer_.data()) % 64) % 64;
  std::uint32_t sum = 0;
  start = timer_.start();
  for (int i = 0; i < kProbeCalls; ++i) sum = baseline_(buf, kProbeLength, sum);
  stop = timer_.stop();
  asm volatile("" ::"r"(sum));
  f.baseline = withoutTimer(stop - start);
  f.loads = timeLoads();
  return f;
}

void HostContentionSource::sleep(double seconds) {
  timespec t{static_cast<time_t>(seconds),
             static_cast<long>((seconds - std::floor(seconds)) * 1e9)};
  while (nanosleep(&t, &t) != 0) {
  }
}

}  // namespace csumtune::tuner
