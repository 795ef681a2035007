// The timer paths. This guest has no PMU, so the perf_event_open path a user with hardware
// cycles takes is driven with a software event (task-clock, nanoseconds) through the very same
// code: open, overhead, reads, and a real interleaved measurement with it.
#include <gtest/gtest.h>

#include <linux/perf_event.h>

#include "measure/baselines.hpp"
#include "measure/harness.hpp"
#include "measure/timer.hpp"

namespace csumtune::tuner {
namespace {

TEST(Timer, ThePerfCounterPathMeasures) {
  std::string why;
  auto timer = makePerfTimer(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "task-clock-ns", &why);
  if (!timer) GTEST_SKIP() << "perf_event_open refused even a software event: " << why;
  EXPECT_EQ(timer->unit(), "task-clock-ns");
  EXPECT_NE(timer->source().find("perf_event_open"), std::string::npos);
  EXPECT_GE(timer->overhead(), 0.0);
  const std::uint64_t a = timer->start();
  volatile std::uint64_t spin = 0;
  for (int i = 0; i < 2000000; ++i) spin = spin + static_cast<std::uint64_t>(i);
  const std::uint64_t b = timer->stop();
  EXPECT_GT(b, a) << "the counter did not advance over 2 million additions";

  // A measurement with it: both kernels take positive, finite time per call.
  WorkloadConfig config;
  Workload workload(config, 4096);
  MeasureConfig measure;
  measure.sizes = {1500};
  measure.repeat = 5;
  measure.targetBatchTicks = 200000;  // nanoseconds here: 0.2 ms per batch
  const auto samples =
      measureInterleaved({{"plain-c", "", TimedKind::BaselineC, plainCChecksum},
                          {"linux-v6.8", "", TimedKind::BaselineLinux, linuxV68Checksum}},
                         measure, *timer, workload);
  for (const auto& k : samples) {
    for (double perCall : k.sizes.front().perCall) EXPECT_GT(perCall, 0.0) << k.kernel.name;
  }
}

TEST(Timer, TheDefaultTimerSaysWhatItCounts) {
  std::string why;
  auto timer = makeTimer(false, &why);
  EXPECT_TRUE(timer->unit() == "cycles" || timer->unit() == "tsc-ticks");
  if (timer->unit() == "tsc-ticks") {
    EXPECT_FALSE(why.empty()) << "no reason for not using cycles";
  }
  auto tsc = makeTimer(true, &why);
  EXPECT_EQ(tsc->unit(), "tsc-ticks");
  EXPECT_EQ(why, "TSC requested");
}

}  // namespace
}  // namespace csumtune::tuner
