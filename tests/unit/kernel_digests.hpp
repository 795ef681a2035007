// Digests of the generated machine code, one line per loop shape (carry, chains, unroll):
// the FNV-1a hash of the bytes of every distinct kernel of that shape (each prefetch
// distance and hint) in enumeration order. The committed golden file pins them, so any change
// of the bytes an existing canonical string produces is seen (the space grows by extension
// only: old strings keep meaning the same code).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <fmt/format.h>

#include "csumtune/gen/kernel_program.hpp"
#include "csumtune/gen/params.hpp"

namespace csumtune::testing {

struct ShapeDigest {
  std::uint64_t hash = 14695981039346656037ull;
  std::size_t kernels = 0;
  std::size_t firstSize = 0;  // code bytes of the shape's prefetch=0 kernel
};

inline std::map<std::string, ShapeDigest> kernelDigests(int prefetchStride = 1) {
  std::map<std::string, ShapeDigest> out;
  for (const gen::Params& p : gen::enumerateSpace({false, true})) {
    if ((p.prefetch / gen::ParamLimits::kPrefetchStep) % prefetchStride != 0) continue;
    const std::string shape =
        fmt::format("carry={},chains={},unroll={}", gen::toString(p.carry), p.chains, p.unroll);
    gen::KernelProgram program(p);
    const auto bytes = program.bytes();
    ShapeDigest& d = out[shape];
    if (d.kernels == 0) d.firstSize = bytes.size();
    for (std::uint8_t b : bytes) d.hash = (d.hash ^ b) * 1099511628211ull;
    d.hash = (d.hash ^ 0xff) * 1099511628211ull;  // kernel separator
    ++d.kernels;
  }
  return out;
}

inline std::string formatDigests(const std::map<std::string, ShapeDigest>& digests) {
  std::string text;
  for (const auto& [shape, d] : digests) {
    text += fmt::format("{} {:016x} {} {}\n", shape, d.hash, d.kernels, d.firstSize);
  }
  return text;
}

}  // namespace csumtune::testing
