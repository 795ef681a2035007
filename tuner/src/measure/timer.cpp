#include "measure/timer.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>

#include <asmjit/core.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace csumtune::tuner {
namespace {

// lfence before rdtsc keeps earlier instructions from drifting past the read; rdtscp waits
// for the timed code to finish, and the lfence after it keeps later code from starting early.
// A CPU without RDTSCP (some x86-64 CPUs lack it; qemu's Westmere model does) gets
// lfence; rdtsc; lfence at the stop as well, instead of an illegal instruction.
class TscTimer : public Timer {
 public:
  TscTimer() : rdtscp_(asmjit::CpuInfo::host().features().x86().hasRDTSCP()) { measureOverhead(); }
  std::uint64_t start() override {
    _mm_lfence();
    const std::uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
  }
  std::uint64_t stop() override {
    if (!rdtscp_) return start();
    unsigned aux;
    const std::uint64_t t = __rdtscp(&aux);
    _mm_lfence();
    return t;
  }
  std::string unit() const override { return "tsc-ticks"; }
  std::string source() const override {
    return rdtscp_ ? "rdtsc/rdtscp with lfence" : "rdtsc with lfence (no RDTSCP on this CPU)";
  }

 private:
  bool rdtscp_;
};

// A perf_event_open counter read with read(2): hardware cycles on a machine with a PMU. The
// same class serves any event, which is how the path is tested where there is no PMU.
class PerfCounterTimer : public Timer {
 public:
  PerfCounterTimer(int fd, std::string unit, std::string source)
      : fd_(fd), unit_(std::move(unit)), source_(std::move(source)) {
    measureOverhead();
  }
  ~PerfCounterTimer() override { close(fd_); }
  std::uint64_t start() override { return read(); }
  std::uint64_t stop() override { return read(); }
  std::string unit() const override { return unit_; }
  std::string source() const override { return source_; }

 private:
  std::uint64_t read() {
    std::uint64_t value = 0;
    if (::read(fd_, &value, sizeof value) != sizeof value) return 0;
    return value;
  }
  int fd_;
  std::string unit_, source_;
};

int openCounter(std::uint32_t type, std::uint64_t config, const char* name, std::string* why) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = type;
  attr.config = config;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
  if (fd < 0 && why) *why = std::string("perf_event_open(") + name + "): " + std::strerror(errno);
  return fd;
}

}  // namespace

void Timer::measureOverhead() {
  std::vector<std::uint64_t> samples(1001);
  for (auto& s : samples) {
    const std::uint64_t a = start();
    const std::uint64_t b = stop();
    s = b - a;
  }
  std::nth_element(samples.begin(), samples.begin() + 500, samples.end());
  overhead_ = static_cast<double>(samples[500]);
}

std::unique_ptr<Timer> makePerfTimer(std::uint32_t type, std::uint64_t config, std::string unit,
                                     std::string* why) {
  const int fd = openCounter(type, config, unit.c_str(), why);
  if (fd < 0) return nullptr;
  return std::make_unique<PerfCounterTimer>(fd, unit, "perf_event_open " + unit + " (user only)");
}

std::unique_ptr<Timer> makeTimer(bool forceTsc, std::string* why) {
  if (!forceTsc) {
    if (auto timer = makePerfTimer(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles", why))
      return timer;
  } else if (why) {
    *why = "TSC requested";
  }
  return std::make_unique<TscTimer>();
}

}  // namespace csumtune::tuner
