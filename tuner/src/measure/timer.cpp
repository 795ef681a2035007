#include "measure/timer.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace csumtune::tuner {
namespace {

// lfence before rdtsc keeps earlier instructions from drifting past the read; rdtscp waits
// for the timed code to finish, and the lfence after it keeps later code from starting early.
class TscTimer : public Timer {
 public:
  TscTimer() { measureOverhead(); }
  std::uint64_t start() override {
    _mm_lfence();
    const std::uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
  }
  std::uint64_t stop() override {
    unsigned aux;
    const std::uint64_t t = __rdtscp(&aux);
    _mm_lfence();
    return t;
  }
  std::string unit() const override { return "tsc-ticks"; }
  std::string source() const override { return "rdtsc/rdtscp with lfence"; }
};

class PerfCyclesTimer : public Timer {
 public:
  explicit PerfCyclesTimer(int fd) : fd_(fd) { measureOverhead(); }
  ~PerfCyclesTimer() override { close(fd_); }
  std::uint64_t start() override { return read(); }
  std::uint64_t stop() override { return read(); }
  std::string unit() const override { return "cycles"; }
  std::string source() const override { return "perf_event_open hardware cycles (user only)"; }

 private:
  std::uint64_t read() {
    std::uint64_t value = 0;
    if (::read(fd_, &value, sizeof value) != sizeof value) return 0;
    return value;
  }
  int fd_;
};

int openCycleCounter(std::string* why) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_CPU_CYCLES;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
  if (fd < 0 && why) *why = std::string("perf_event_open(cycles): ") + std::strerror(errno);
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

std::unique_ptr<Timer> makeTimer(bool forceTsc, std::string* why) {
  if (!forceTsc) {
    const int fd = openCycleCounter(why);
    if (fd >= 0) return std::make_unique<PerfCyclesTimer>(fd);
  } else if (why) {
    *why = "TSC requested";
  }
  return std::make_unique<TscTimer>();
}

}  // namespace csumtune::tuner
