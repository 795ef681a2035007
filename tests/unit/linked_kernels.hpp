// Kernels printed as .S by csumtune, assembled by GNU as and linked into this test binary.
#pragma once

#include <cstdint>
#include <vector>

struct LinkedKernel {
  const char* params;
  std::uint32_t (*fn)(const void*, int, std::uint32_t);
};

const std::vector<LinkedKernel>& linkedKernels();

// Whether the frame variants were linked too (CSUMTUNE_LINKED_FRAMES), or only the loop
// shapes (the instrumented build, whose run leaves the whole-space suites to the plain one).
bool linkedFramesIncluded();
