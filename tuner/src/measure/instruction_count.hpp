// How many instructions one call executes, length by length: counted exactly by single-stepping
// the call in a forked child under ptrace. A short call's cost is mostly its instruction count,
// and with each buffer at a random DRAM position the count also bounds how many calls' misses
// the reorder buffer can keep in flight, so the count is measured, not guessed from the listing.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "measure/harness.hpp"

namespace csumtune::tuner {

// ptrace is not permitted here (a seccomp profile, Yama's ptrace_scope 3), or the child died.
struct InstructionCountError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct InstructionCountRequest {
  std::vector<int> sizes;
  int offset = 0;  // buf mod 64, as bench's --offset
  std::uint32_t sum = 0;
  std::uint64_t seed = 1;  // the buffer's bytes (the count of a checksum does not depend on them)
};

// What one call executes.
struct CallCount {
  std::uint64_t instructions = 0;
  // Jumps taken, calls and returns: each a redirect of the front end, which a hot call can
  // pay for whatever its instruction count. A jump to the next instruction is not counted.
  std::uint64_t takenBranches = 0;
};

// One count per size, in request order: the call itself, its final `ret` included (the
// caller's set-up and the `call` are subtracted, measured with an empty function). A
// `rep`-prefixed string instruction counts once per iteration (as single-stepping sees it).
std::vector<CallCount> countCalls(const TimedKernel& kernel,
                                  const InstructionCountRequest& request);
// The instructions alone.
std::vector<std::uint64_t> countInstructions(const TimedKernel& kernel,
                                             const InstructionCountRequest& request);

}  // namespace csumtune::tuner
