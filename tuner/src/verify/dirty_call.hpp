// Calls a kernel with garbage in the upper halves of its 32-bit arguments. The SysV ABI leaves
// those bits undefined (a caller may pass whatever its last 64-bit use left there), so a kernel
// that reads the length or the sum as 64 bits before zero-extending them is wrong even when
// every compiled caller happens to pass zeros.
#pragma once

#include <csumtune/kernel_fn.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace csumtune::tuner {

// The garbage for case `index` of a plan (of length `len`), or none for a clean call: about
// half the cases, mixed over the index and the length so that no placement or length is
// always called one way, with patterns that set and clear the top bit and the bottom one.
std::optional<std::uint32_t> dirtyUpperHalf(std::size_t index, int len);

// The pattern case `index` uses when it is called dirty.
std::uint32_t upperHalfPattern(std::size_t index);

// " (called with 0x... above its 32-bit length and sum)" for a failure message, or "".
std::string describeUpperHalf(std::optional<std::uint32_t> upper);

// fn(buf, len, sum) with the upper 32 bits of rsi and rdx set to `upper` (none: a plain call).
std::uint32_t callWithUpperHalves(KernelFn fn, const void* buf, int len, std::uint32_t sum,
                                  std::optional<std::uint32_t> upper);

// fn(src, dst, len, sum) with the upper 32 bits of rdx and rcx set to `upper`.
std::uint32_t callWithUpperHalves(CopyFn fn, const void* src, void* dst, int len, std::uint32_t sum,
                                  std::optional<std::uint32_t> upper);

}  // namespace csumtune::tuner
