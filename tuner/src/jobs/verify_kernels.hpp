// csumtune verify as library calls: one kernel, or a whole space on a pool of threads,
// compiled and proven against the plain reference (the quick or the full plan).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "csumtune/gen/params.hpp"

namespace csumtune::tuner {

struct VerifySettings {
  bool quick = false;           // the quick plan: every tail path and loop count, fewer lengths
  std::uint64_t seed = 0x5eed;  // random data, sums and lengths
  unsigned threads = 0;         // for a space; 0: every CPU
};

// One kernel's verdict: `failure` empty when it passed.
struct KernelVerdict {
  std::uint64_t calls = 0;
  std::string failure;
  bool ok() const { return failure.empty(); }
};

// Compiles and verifies one kernel (a kernel this CPU cannot compile or run fails with why).
KernelVerdict verifyOneKernel(const gen::Params& params, const VerifySettings& settings);

// Which kernels of a space: every parameter point, or every short-path variant of every loop
// shape (each shape once, at a prefetch setting of its own, with exact paths for a spread of
// lengths); as summing kernels or, for kind=copy, the ones that can copy.
struct SpaceRequest {
  bool kernelSafe = false;
  bool frames = false;
  gen::Kind kind = gen::Kind::Sum;
};

struct SpaceVerification {
  std::size_t points = 0;   // parameter points (every prefetch hint counted)
  std::size_t kernels = 0;  // distinct kernels
  std::size_t skipped = 0;  // needing a feature this CPU lacks
  std::uint64_t calls = 0;
  double seconds = 0;
  unsigned threads = 0;
  std::vector<std::string> failures;  // "FAIL  <params>: why", one per failed kernel
};

// `progress(done, total, failed)` is called now and then from the worker threads (serialised).
SpaceVerification verifySpace(
    const SpaceRequest& space, const VerifySettings& settings,
    const std::function<void(std::size_t, std::size_t, std::size_t)>& progress);

}  // namespace csumtune::tuner
