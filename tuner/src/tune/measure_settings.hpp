// How candidates and finalists are measured on the host (recorded in results.json).
#pragma once

#include <cstddef>
#include <cstdint>

namespace csumtune::tuner {

struct HostMeasureSettings {
  int repeat = 31;                  // paired samples per size
  double targetBatchTicks = 60000;  // per sample
  std::uint64_t seed = 1;
  // Noise guard (tune/noise_guard.hpp): a measurement whose baseline ran this much slower
  // than it usually does in this run is repeated, up to `maxRetries` times.
  double noiseTolerance = 0.04;
  int maxRetries = 4;
  // --max-bytes: candidates with more code are verified but not timed (0 = no limit).
  std::size_t maxBytes = 0;
};

// The finalists: measured again, longer, interleaved with the baseline.
struct FinalSettings {
  int repeat = 201;
  double targetBatchTicks = 100000;
};

}  // namespace csumtune::tuner
