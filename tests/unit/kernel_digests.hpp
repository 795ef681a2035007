// Digests of the generated machine code, one line per loop shape (carry, chains, unroll):
// the FNV-1a hash of the bytes of every distinct kernel of that shape (each prefetch
// distance and hint) in enumeration order. The committed golden file pins them, so any change
// of the bytes an existing canonical string produces is seen (the space grows by extension
// only: old strings keep meaning the same code).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "csumtune/gen/kernel_program.hpp"
#include "csumtune/gen/params.hpp"

namespace csumtune::testing {

struct ShapeDigest {
  std::uint64_t hash = 14695981039346656037ull;
  std::size_t kernels = 0;
  std::size_t firstSize = 0;  // code bytes of the shape's prefetch=0 kernel
};

// The middle-path kernels (mid=N, SIMD families) the suites pin, check and link: every
// size-class variant (each middle bound with each short bound below it) of four frames —
// the default, tail=overlap, bounds=aligned, and sum=last with a lean entry, one tail chain
// and the word loop — of two loop shapes per SIMD family (a 4-vector and a 32-vector block),
// not crossed with every loop shape: the middle path's code does not depend on the loop's.
inline std::vector<gen::Params> midPathKernels() {
  std::vector<gen::Params> out;
  int i = 0;
  for (const gen::CarryTraits* traits : gen::allCarryTraits()) {
    if (!traits->isVector()) continue;
    for (auto [chains, unroll] : {std::pair{2, 4}, std::pair{4, 32}}) {
      gen::Params loop{traits->carry, chains, unroll, (i * 9 % 65) * 64,
                       static_cast<gen::Hint>(i % gen::kHintCount)};
      ++i;
      for (gen::VectorSum vsum : {gen::VectorSum::Halves, gen::VectorSum::Madd}) {
        loop.vsum = vsum;
        if (!gen::validationError(loop).empty()) continue;  // madd: avx2 only
        std::vector<gen::Params> frames(4, loop);
        frames[1].tail = gen::Tail::Overlap;
        frames[2].bounds = gen::Bounds::Aligned;
        frames[3].sum = gen::SumEntry::Last;
        frames[3].entry = gen::Entry::Lean;
        frames[3].tailChains = 1;
        frames[3].words = gen::Words::Loop;
        for (const gen::Params& frame : frames) {
          for (const gen::Params& p : gen::sizeClassVariants(frame)) {
            if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
          }
        }
      }
    }
  }
  return out;
}

// A digest line's shape: carry, chains, unroll, and the vector sum where it is not the default.
inline std::string shapeKey(const gen::Params& p) {
  std::string key =
      fmt::format("carry={},chains={},unroll={}", gen::toString(p.carry), p.chains, p.unroll);
  if (p.vsum != gen::VectorSum::Halves) key += fmt::format(",vsum={}", gen::toString(p.vsum));
  return key;
}

// One kernel's machine code into its shape's digest (FNV-1a over the bytes, then a separator).
inline void addToDigest(ShapeDigest& d, const gen::Params& p) {
  const auto bytes = gen::KernelProgram(p).bytes();
  if (d.kernels == 0) d.firstSize = bytes.size();
  for (std::uint8_t b : bytes) d.hash = (d.hash ^ b) * 1099511628211ull;
  d.hash = (d.hash ^ 0xff) * 1099511628211ull;  // kernel separator
  ++d.kernels;
}

inline std::map<std::string, ShapeDigest> kernelDigests(int prefetchStride = 1) {
  std::map<std::string, ShapeDigest> out;
  for (const gen::Params& p : gen::enumerateSpace({false, true})) {
    if ((p.prefetch / gen::ParamLimits::kPrefetchStep) % prefetchStride != 0) continue;
    addToDigest(out[shapeKey(p)], p);
    // The space searches avx2 as vsum=madd; its halves form (what every avx2 string without
    // the key names) is pinned all the same, under the shape's old line.
    if (p.vsum != gen::VectorSum::Halves) {
      gen::Params halves = p;
      halves.vsum = gen::VectorSum::Halves;
      addToDigest(out[shapeKey(halves)], halves);
    }
  }
  // The middle-path kernels, one line per loop shape: `carry=..,chains=..,unroll=..,mid`.
  for (const gen::Params& p : midPathKernels()) addToDigest(out[shapeKey(p) + ",mid"], p);
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
