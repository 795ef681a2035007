#include "measure/placement.hpp"

#include <sched.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

namespace csumtune::tuner {

int defaultBenchCpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
  for (int cpu = CPU_SETSIZE - 1; cpu >= 0; --cpu) {
    if (CPU_ISSET(cpu, &set)) return cpu;
  }
  return 0;
}

std::optional<std::string> pinToCpu(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return fmt::format("CPU {} does not exist", cpu);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) {
    return fmt::format("cannot pin to CPU {}: {}", cpu, std::strerror(errno));
  }
  return std::nullopt;
}

std::vector<std::string> frequencyWarnings(int cpu) {
  const std::string path =
      fmt::format("/sys/devices/system/cpu/cpu{}/cpufreq/scaling_governor", cpu);
  std::ifstream in(path);
  std::string governor;
  if (!in || !std::getline(in, governor)) {
    return {fmt::format("frequency governor of CPU {} unreadable ({}): clock may vary", cpu, path)};
  }
  if (governor != "performance") {
    return {
        fmt::format("CPU {} governor is '{}', not 'performance': clock may vary", cpu, governor)};
  }
  return {};
}

}  // namespace csumtune::tuner
