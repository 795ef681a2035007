// The spread of kernels the suites check: one per (carry, chains, unroll) loop shape of the
// space (543 with today's families) — each with a different prefetch distance (0..4096) and hint,
// so that every instruction the generator can emit, every tail path and every register plan
// (callee-saved pushes included) appears.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "csumtune/gen/params.hpp"
#include "kernel_digests.hpp"
#include "verify/verify.hpp"

namespace csumtune::testing {

inline std::vector<gen::Params> representativeShapes() {
  std::map<std::string, gen::Params> distinct;
  int i = 0;
  for (const gen::Params& p : gen::enumerateSpace({false, true})) {
    gen::Params shape = p;
    shape.prefetch = 0;
    shape.hint = gen::Hint::T0;
    const std::string key = shape.toString();
    if (distinct.count(key)) continue;
    shape.prefetch = (i * 7 % 65) * 64;
    shape.hint = static_cast<gen::Hint>(i % 4);
    distinct.emplace(key, shape);
    ++i;
  }
  std::vector<gen::Params> out;
  for (auto& entry : distinct) out.push_back(entry.second);
  return out;
}

// Whether the space has this form of the kernel's loop: all but avx2's halves, its default
// vector sum (the space searches avx2 as vsum=madd; the halves form is checked through
// representativeFrames() and pinned by the golden digests).
inline bool inSpaceForm(const gen::Params& p) {
  return !(p.carry == gen::Carry::Avx2 && p.vsum == gen::VectorSum::Halves);
}

// A kernel with every short-path key at its default (the kernels that existed before them).
inline bool hasDefaultFrame(const gen::Params& p) {
  gen::Params loop = p;
  loop.tail = {};
  loop.sum = {};
  loop.entry = {};
  loop.exact = 0;
  loop.tailChains = gen::Params{}.tailChains;
  loop.shortBelow = gen::Params{}.shortBelow;
  loop.bounds = {};
  loop.mid = 0;
  return loop.canonical() == p.canonical();
}

// Every short-path variant (tail, sum entry, entry test, short bound, exact path, bounds) of three
// loop shapes per carry family (the smallest block, one near 64 bytes, the largest; avx2's
// largest in both vector sums), each with a prefetch setting of its own: every path the frame
// can emit, in every family.
inline std::vector<gen::Params> representativeFrames() {
  std::vector<gen::Params> out;
  int i = 0;
  for (const gen::CarryTraits* traits : gen::allCarryTraits()) {
    const int even = traits->needsEvenChains ? 2 : 1;
    const int unit = traits->unitBytes;
    const int mid = std::max(even, std::min(gen::ParamLimits::kMaxUnroll, 64 / unit / even * even));
    for (auto [chains, unroll] : {std::pair{even, even}, std::pair{even, mid},
                                  std::pair{2 * even, gen::ParamLimits::kMaxUnroll}}) {
      gen::Params loop{traits->carry, chains, unroll, (i * 5 % 65) * 64,
                       static_cast<gen::Hint>(i % gen::kHintCount)};
      ++i;
      if (!gen::validationError(loop).empty()) continue;
      std::vector<gen::Params> loops{loop};
      // avx2 in its other vector sum too (the space searches madd, halves is the default):
      // the largest block, whose ladder after the loop is the longest.
      if (traits->carry == gen::Carry::Avx2 && unroll == gen::ParamLimits::kMaxUnroll) {
        loops.push_back(loop);
        loops.back().vsum = gen::VectorSum::Madd;
      }
      for (const gen::Params& form : loops)
        for (const gen::Params& p :
             gen::frameVariants(form, tuner::kFrameCheckLengths, gen::FrameBounds::Both)) {
          if (!(p == p.canonical()) || std::find(out.begin(), out.end(), p) != out.end()) continue;
          // representativeShapes() has the default frame of the space's loop forms.
          if (hasDefaultFrame(p) && inSpaceForm(p)) continue;
          // An exact path for a multiple of 8 has no byte tail, so its bounds=aligned twin
          // differs from the strict one only on the other lengths' path, which the aligned
          // variant without an exact path already has.
          if (p.bounds == gen::Bounds::Aligned && p.exact % 8 == 0 && p.exact != 0) continue;
          // tailchains=short is 1's code on the short paths and 2's after the loop: the largest
          // block (the longest ladder after the loop) shows every combination of the two, with
          // every entry, tail, sum entry and short bound; its exact paths and bounds=aligned
          // tails are 1's and 2's again (verify --all --frames runs every one of them).
          // byteload=pointer (and straight) changes only the one load of the last 1..7 bytes, the
          // same code whatever the loop: the largest block shows it with every entry, tail, sum
          // entry and short bound (verify --all --frames runs every one of them). block80=pair
          // (entry=forty's 80-byte block on two chains) too; block80=loop on the smallest block
          // as well, where its short path passes the main loop's block.
          if ((p.byteLoad != gen::ByteLoad::Computed || p.block80 == gen::Block80::Pair) &&
              unroll != gen::ParamLimits::kMaxUnroll)
            continue;
          if (p.block80 == gen::Block80::Loop && unroll != gen::ParamLimits::kMaxUnroll &&
              unroll != chains)
            continue;
          if (p.tailChains == gen::Params::kShortTailChain &&
              (unroll != gen::ParamLimits::kMaxUnroll || p.exact != 0 ||
               p.bounds != gen::Bounds::Strict))
            continue;
          out.push_back(p);
        }
    }
  }
  // The middle paths (mid=N): a few frames of two loop shapes per SIMD family.
  for (const gen::Params& p : midPathKernels()) out.push_back(p);
  // targets=aligned moves code, not what runs: every 64th frame again with its jump targets on
  // 16-byte boundaries (a spread over the families, entries and short paths; the fill and the
  // jumps across it, which GNU as must encode as the JIT does).
  const std::size_t packed = out.size();
  for (std::size_t i = 0; i < packed; i += 64) {
    gen::Params aligned = out[i];
    aligned.targets = gen::Targets::Aligned;
    out.push_back(aligned);
  }
  // And the layouts a sample may miss: code after the last ret (byteload=straight), an entry
  // at byte 16 of a line, and block80=loop's three ladders.
  for (const char* text :
       {"carry=adc,chains=4,unroll=32,tail=overlap,sum=last,entry=forty,short=128,bounds=aligned,"
        "byteload=straight,targets=aligned",
        "carry=adcx,chains=4,unroll=32,tail=overlap,entry=range,short=128,place=16,targets=aligned",
        "carry=adc,chains=8,unroll=32,tail=overlap,sum=last,entry=forty,short=512,"
        "tailchains=short,block80=loop,targets=aligned"}) {
    const gen::Params p = gen::parseParams(text);
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  return out;
}

inline std::string shapeName(const gen::Params& p) {
  return std::string(gen::toString(p.carry)) + "_c" + std::to_string(p.chains) + "_u" +
         std::to_string(p.unroll);
}

}  // namespace csumtune::testing
