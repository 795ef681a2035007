// Calls a kernel with garbage in the upper halves of its 32-bit arguments. The SysV ABI leaves
// those bits undefined (a caller may pass whatever its last 64-bit use left there), so a kernel
// that reads the length or the sum as 64 bits before zero-extending them is wrong even when
// every compiled caller happens to pass zeros.
#pragma once

#include <csumtune/kernel_fn.hpp>

#include <cstdint>

namespace csumtune::tuner {

// fn(buf, len, sum) with the upper 32 bits of rsi and rdx set.
std::uint32_t callWithDirtyUpperHalves(KernelFn fn, const void* buf, int len, std::uint32_t sum);

// fn(src, dst, len, sum) with the upper 32 bits of rdx and rcx set.
std::uint32_t callWithDirtyUpperHalves(CopyFn fn, const void* src, void* dst, int len,
                                       std::uint32_t sum);

}  // namespace csumtune::tuner
