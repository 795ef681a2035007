// Does calling a kernel through the JIT pointer cost more than calling the same shape
// assembled from our .S and linked in? Measures both interleaved (hot, 40 B and 1500 B, the
// bench harness) for a few shapes and prints the ratio with its confidence interval.
//
//   build/tests/call_cost [--repeat N]
#include <cstdio>
#include <cstring>
#include <string>

#include "csumtune/jit.hpp"
#include "linked_kernels.hpp"
#include "measure/harness.hpp"
#include "measure/placement.hpp"
#include "measure/stats.hpp"
#include "measure/timer.hpp"
#include "measure/workload.hpp"

using namespace csumtune;

int main(int argc, char** argv) {
  int repeat = 2001;
  if (argc == 3 && std::strcmp(argv[1], "--repeat") == 0) repeat = std::atoi(argv[2]);
  tuner::pinToCpu(tuner::defaultBenchCpu());
  auto timer = tuner::makeTimer();
  tuner::Workload workload({}, 65536);
  const char* wanted[] = {"carry=adc,chains=2,unroll=10,", "carry=adc,chains=4,unroll=32,",
                          "carry=adcx,chains=6,unroll=30,", "carry=cmov,chains=8,unroll=32,"};
  std::printf("%-52s %6s %12s %12s %s\n", "shape (linked .S vs JIT, hot)", "bytes", ".S/call",
              "JIT/call", "JIT time / .S time [95% CI]");
  for (const char* prefix : wanted) {
    for (const LinkedKernel& linked : linkedKernels()) {
      if (std::strncmp(linked.params, prefix, std::strlen(prefix)) != 0) continue;
      const Kernel jit = Jit::compile(std::string_view(linked.params));
      tuner::MeasureConfig config;
      config.sizes = {40, 1500};
      config.repeat = repeat;
      const auto samples =
          tuner::measureInterleaved({{"linked", "", tuner::TimedKind::Linked, linked.fn},
                                     {"jit", "", tuner::TimedKind::Jit, jit.fn()}},
                                    config, *timer, workload);
      for (std::size_t i = 0; i < config.sizes.size(); ++i) {
        const auto& s = samples[0].sizes[i].perCall;
        const auto& j = samples[1].sizes[i].perCall;
        const auto ratio = tuner::pairedRatio(j, s);
        std::printf("%-52s %6d %12.2f %12.2f %.4f [%.4f, %.4f]%s\n", linked.params, config.sizes[i],
                    tuner::summarize(s).median, tuner::summarize(j).median, ratio.median, ratio.low,
                    ratio.high, ratio.significant() ? "" : "  no significant difference");
      }
    }
  }
  std::printf("(%s per call, median of %d interleaved batches)\n", timer->unit().c_str(), repeat);
  return 0;
}
