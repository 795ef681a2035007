#include "patch/patch_figures.hpp"

#include <fmt/format.h>

#include "csumtune/cpu.hpp"
#include "measure/clock_rates.hpp"
#include "measure/placement.hpp"
#include "measure/stats.hpp"
#include "measure/timer.hpp"
#include "measure/workload.hpp"
#include "one_line.hpp"
#include "patch/kernel_patch.hpp"
#include "patch/make_patch.hpp"

namespace csumtune::tuner {

std::string measureFigures(int cpu, const TimedKernel& before, const TimedKernel& after,
                           std::string_view file) {
  if (cpu < 0) cpu = defaultBenchCpu();
  if (auto error = pinToCpu(cpu)) throw FiguresError(*error);
  auto timer = makeTimer();
  const ClockRates clock = measureClockRates(*timer);
  const bool cycles = timer->unit() == "cycles";
  const double perUnit = cycles ? 1.0 : clock.cyclesPerUnit;
  MeasureConfig config;
  config.sizes = {40, 1500, 9000, 65536};
  config.repeat = 101;
  std::string table = fmt::format("  {:>6} | {:>10} | {:>8} | {:>8} | {}\n", "length", "Set Sz",
                                  "before", "after", "speedup [95% CI]");
  for (auto cache : {CacheState::Hot, CacheState::Cold}) {
    WorkloadConfig wc;
    wc.cache = cache;
    Workload workload(wc, 65536);
    const auto samples = measureInterleaved({before, after}, config, *timer, workload);
    for (std::size_t i = 0; i < config.sizes.size(); ++i) {
      const int size = config.sizes[i];
      const double was = summarize(samples[0].sizes[i].perCall).median / size;
      const double is = summarize(samples[1].sizes[i].perCall).median / size;
      const auto speedup = pairedRatio(samples[0].sizes[i].perCall, samples[1].sizes[i].perCall);
      table +=
          fmt::format("  {:>6} | {:>10} | {:>8.3f} | {:>8.3f} | {:.2f}x [{:.2f}, {:.2f}]\n", size,
                      cache == CacheState::Hot ? fmt::format("{}B hot", size)
                                               : fmt::format("{}M", workload.setSize() >> 20),
                      was * perUnit, is * perUnit, speedup.median, speedup.low, speedup.high);
    }
  }
  return wrapParagraph(fmt::format(
             "Measured in user space on {} (CPU {} pinned), the tree's own {} {} "
             "against the new code, calls chained through the sum, median of "
             "{} interleaved samples, {} per byte{}:",
             oneLine(hostCpu().brand), cpu, file,
             file.ends_with(".S") ? "assembled for user space" : "built for user space (gcc -O2)",
             config.repeat, cycles ? "cycles" : "core cycles",
             cycles ? ""
                    : fmt::format(" (TSC ticks x {:.3f} core cycles per tick, measured)",
                                  clock.cyclesPerUnit))) +
         "\n\n" + table;
}

}  // namespace csumtune::tuner
