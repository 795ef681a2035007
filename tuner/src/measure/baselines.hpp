// What every table is measured against, in the same run:
//  * plain-c:    a portable C loop over 16-bit words, as the compiler makes it (-O3, no -march);
//  * linux-v6.8: our own faithful implementation of Linux v6.8's csum_partial algorithm
//                (measure/linux_v68.cpp): the tuner's reference, every verdict's yardstick;
//  * linux-v5.17: the same for v5.17 (measure/linux_v517.cpp), the algorithm Debian 12's 6.1
//                kernel runs: a 64-byte loop of one add/adc chain;
//  * linux-like: csumtune's own frame around the kernel's loop shape (carry=adc,chains=2,
//                unroll=10), in bench --baseline only: against linux-v6.8 it shows what our
//                frame (short path, tails) costs or saves with the loop held equal.
// A kernel tree's own file is measured with bench --baseline-source (measure/kernel_source).
#pragma once

#include <cstdint>
#include <span>

#include "csumtune/gen/params.hpp"
#include "csumtune/kernel_fn.hpp"
#include "measure/timed_kind.hpp"

namespace csumtune::tuner {

std::uint32_t plainCChecksum(const void* buf, int len, std::uint32_t sum);
std::uint32_t linuxV68Checksum(const void* buf, int len, std::uint32_t sum);
std::uint32_t linuxV517Checksum(const void* buf, int len, std::uint32_t sum);

struct Baseline {
  const char* name;
  TimedKind kind;
  KernelFn fn;
  // Honours len <= 0 (reads nothing), as csumtune's contract says. Linux's csum_partial is
  // only ever called with len >= 0 and is verified over that domain.
  bool acceptsNegativeLength;
  // A copying baseline (the reference of tune --kind copy): called as copyFn, fn unused.
  CopyFn copyFn = nullptr;
  // For timing, when it differs from what is verified (a tree's csum-copy_64.S: its own
  // three-argument function; copyFn is then its adapter to csum_and_copy's meaning).
  CopyFn timedCopyFn = nullptr;
};

inline constexpr const char* kPlainCName = "plain-c";
inline constexpr const char* kLinuxV68Name = "linux-v6.8";
inline constexpr const char* kLinuxV517Name = "linux-v5.17";
inline constexpr const char* kLinuxLikeName = "linux-like";

// Copying kernels (kind=copy) are measured against linux-csum-copy, our own implementation of
// the algorithm of the kernel's csum-copy_64.S (measure/linux_csum_copy.S), and against a
// memcpy followed by the summing kernel of the same loop (two passes).
inline constexpr const char* kLinuxCsumCopyName = "linux-csum-copy";
extern "C" std::uint32_t csumtune_linux_csum_copy(const void* src, void* dst, int len,
                                                  std::uint32_t sum);
// copy-bound (measure/copy_bound.S): a copy by general-purpose 8-byte loads and stores that
// sums nothing, the floor no general-purpose copy-and-checksum can get under. A yardstick in
// bench --baseline for copying kernels, never verified as a checksum.
inline constexpr const char* kCopyBoundName = "copy-bound";
extern "C" std::uint32_t csumtune_copy_bound(const void* src, void* dst, int len,
                                             std::uint32_t sum);

// The tuner's reference: linux-v6.8; for copying kernels (tune --kind copy) linux-csum-copy.
const Baseline& linuxV68Baseline();
const Baseline& linuxCsumCopyBaseline();
// copy-bound as a (copying) baseline of kind "bound".
const Baseline& copyBoundBaseline();
// The compiled-in baselines bench --baseline shows: plain-c, linux-v6.8, linux-v5.17.
std::span<const Baseline> builtinBaselines();

gen::Params linuxLikeParams();

}  // namespace csumtune::tuner
