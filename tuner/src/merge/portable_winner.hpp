// The portable winner: of the kernels measured on every CPU, the one whose worst speed-up over
// the reference across those CPUs is highest (max-min), per profile (and cache state) of one
// kernel kind. A fleet that ships one kernel to every CPU gets at least that speed-up on each
// of them; how far each CPU's own best kernel is ahead of it is the price of shipping one.
//
// Tables from different CPUs are merged only when they are comparable: one kind, one
// generator version (the space the params strings mean), one reference, each profile's name
// and sizes the same everywhere, each profile measured on every CPU key once. Anything else is
// refused (BadRequest), never merged.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "merge/speedup_table.hpp"

namespace csumtune::tuner {

struct MergeOptions {
  bool kernelSafe = false;  // only kernels that may run inside the Linux kernel (no SIMD)
};

// The portable winner on one CPU.
struct CpuVerdict {
  std::string key;
  std::string brand;
  std::string source;          // the file the table came from
  std::string unreliable;      // why its figures may not be trusted ("" when they may)
  double portableSpeedup = 0;  // the portable winner's speed-up over the reference here
  std::string ownBest;         // the fastest common kernel here
  std::size_t ownBestBytes = 0;
  double ownBestSpeedup = 0;
  // The portable winner's speed as a share of the own best kernel's (ownBest time / portable
  // time = portableSpeedup / ownBestSpeedup): 1 when it is the own best, below 1 otherwise.
  double shareOfOwnBest = 0;
  // The fastest kernel this CPU measured at all (kernel-safe with the filter), common or not:
  // a tune run's own winner is rarely among the kernels another CPU's search visited.
  std::string bestMeasured;
  double bestMeasuredSpeedup = 0;
};

struct PortablePick {
  std::string profile;
  std::vector<results::ProfileEntry> sizes;
  std::string cache;
  std::string winner;  // canonical params
  std::size_t winnerBytes = 0;
  double worstSpeedup = 0;  // its speed-up on the CPU where it is smallest
  std::string worstCpu;
  double meanSpeedup = 0;           // over the CPUs: the first tie-break
  std::size_t common = 0;           // kernels measured on every CPU (after the kernel-safe filter)
  std::size_t notEverywhere = 0;    // kernels some CPU did not measure: left out
  std::size_t notKernelSafe = 0;    // common kernels --kernel-safe left out
  bool ownWinnerSomewhere = false;  // the portable winner is some CPU's own best
  std::vector<CpuVerdict> cpus;     // in key order
};

struct MergeReport {
  std::string generatorVersion;
  std::string kind;       // "sum" or "copy"
  std::string reference;  // "linux-v6.8" or "linux-csum-copy"
  bool kernelSafe = false;
  std::vector<PortablePick> picks;  // per profile and cache state, in the order first read
};

// Throws BadRequest with a message naming the files for inconsistent tables, fewer than two
// CPU keys, or a profile where no kernel was measured on every CPU (after the filter).
MergeReport mergeTables(const std::vector<SpeedupTable>& tables, const MergeOptions& options);

}  // namespace csumtune::tuner
