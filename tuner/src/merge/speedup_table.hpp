// One CPU's speed-ups over the tuner's reference (linux-v6.8; linux-csum-copy for copying
// kernels) for a list of kernels on one workload profile: what `merge` compares across CPUs.
// bench --candidates writes such tables (one per profile) and a tune run's results.json holds
// one (its evaluations); both are read into this one shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "csumtune/gen/params.hpp"
#include "csumtune/results/profiles.hpp"

namespace csumtune::tuner {

// The CPU identity a table records: the key and the fields it is made from, so a reader can
// recompute the key (cpuKeyOf) and refuse a file whose key was edited.
struct TableCpu {
  std::string key;
  std::string vendor;
  std::string brand;
  std::uint32_t family = 0, model = 0, stepping = 0;
  std::map<std::string, bool> features;
};

struct KernelSpeedup {
  std::string params;     // canonical: equal kernels of two files have equal strings
  std::size_t bytes = 0;  // code size (0: not recorded)
  double speedup = 0;     // reference time / kernel time on the profile: > 1 is faster
};

struct SpeedupTable {
  std::string source;            // the file it was read from, for messages ("" when measured)
  std::string origin;            // "bench --candidates" or "tune"
  std::string generatorVersion;  // the generator (and so the space) the kernels came from
  TableCpu cpu;
  std::string profile;  // a profile name, or "custom"
  std::vector<results::ProfileEntry> sizes;
  std::string cache;  // "hot" or "cold"
  gen::Kind kind = gen::Kind::Sum;
  std::string reference;  // "linux-v6.8" or "linux-csum-copy"
  std::vector<KernelSpeedup> kernels;
  // Why its figures may not be trusted ("" when they may): a busy machine, a wide spread.
  std::string unreliable;
};

// The reference the tuner races kernels of this kind against.
std::string referenceFor(gen::Kind kind);

// The canonical string a params string stands for (Params::canonical), so the same kernel
// written two ways meets itself across files. Throws gen::ParamsError.
std::string canonicalParams(const std::string& text);

}  // namespace csumtune::tuner
