// csumtune bench as one library call: the kernels and baselines prepared and proven correct,
// pinned, timed interleaved on this host, and the report built. The command line parses the
// options into a HostBenchRequest and formats the report; tests call it without a process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "csumtune/gen/params.hpp"
#include "measure/workload.hpp"
#include "report/bench_report.hpp"
#include "report/instruction_table.hpp"

namespace csumtune::tuner {

struct HostBenchRequest {
  std::vector<gen::Params> params;  // empty: the default params, with the baselines
  bool baselines = false;           // also time the built-in baselines
  // Also time the tuner's reference (linux-v6.8; linux-csum-copy for copying kernels), first,
  // without the other baselines: what bench --candidates compares every candidate with.
  bool reference = false;
  std::vector<int> sizes{40, 64, 576, 1500, 4096, 9000, 65536};
  CacheState cache = CacheState::Hot;
  int setSizeMb = 256;  // the cold set
  int offset = 0;       // buffer alignment: buf mod 64
  int repeat = 1001;    // samples per kernel and size
  double batchTicks = 400000;
  int cpu = -1;  // to pin to; -1: defaultBenchCpu()
  bool tsc = false;
  bool latency = false;  // each call's buffer address waits for the previous result
  // Time every kernel whose code can be moved (generated kernels, --baseline-source files) at
  // one address per round, the same for all of them (measure/shared_addresses.hpp).
  bool sameAddress = false;
  std::uint64_t seed = 1;
  std::vector<std::string> baselineSources;  // kernel trees' own files
  // Each of them built once for each of these entry offsets in a line (empty: once, placed
  // as the compiler places it).
  std::vector<int> baselinePlaces;
  std::vector<gen::Params> twoPass;  // copying runs: memcpy + these summing kernels
};

struct HostBenchHooks {
  std::function<void(const std::string&)> note;                       // a note or warning, one line
  std::function<void(std::size_t done, std::size_t total)> progress;  // samples
};

// BadRequest for a request that cannot be carried out (mixed kinds, a set too small, a CPU
// that cannot be pinned, a kernel this CPU cannot run); CheckFailed when a kernel is wrong
// (nothing is timed then).
BenchReport benchOnHost(const HostBenchRequest& request, const HostBenchHooks& hooks);

// bench --count-instructions: the same kernels and baselines, proven correct the same way, and
// for each the instructions one call executes at each size (no timing; the cache, repeat and
// CPU options do not change a count). BadRequest where instructions cannot be counted here.
InstructionTable countOnHost(const HostBenchRequest& request, const HostBenchHooks& hooks);

}  // namespace csumtune::tuner
