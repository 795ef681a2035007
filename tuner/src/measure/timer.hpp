// The clock the tuner times kernels with: hardware cycles from perf_event_open where the
// kernel gives them, else the TSC read with fenced rdtsc/rdtscp. Every figure carries the
// unit's name, so a "cycles" number is never confused with "tsc-ticks".
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace csumtune::tuner {

class Timer {
 public:
  virtual ~Timer() = default;
  virtual std::uint64_t start() = 0;       // call before the timed code
  virtual std::uint64_t stop() = 0;        // call after it
  virtual std::string unit() const = 0;    // "cycles" or "tsc-ticks"
  virtual std::string source() const = 0;  // how it reads the clock, for reports

  // Median cost of an empty start/stop pair, measured once at creation; harnesses subtract
  // it from every sample.
  double overhead() const { return overhead_; }

 protected:
  void measureOverhead();
  double overhead_ = 0;
};

// perf hardware cycles when available and not `forceTsc`, otherwise the TSC. `why` (when not
// null) receives the reason a perf counter was not used.
std::unique_ptr<Timer> makeTimer(bool forceTsc = false, std::string* why = nullptr);

// The perf_event_open timer makeTimer() uses for cycles, on any event (type and config as in
// linux/perf_event.h); nullptr (and `why`) when the kernel refuses it. Tests drive the cycle
// path with a software event where there is no PMU.
std::unique_ptr<Timer> makePerfTimer(std::uint32_t type, std::uint64_t config, std::string unit,
                                     std::string* why = nullptr);

}  // namespace csumtune::tuner
