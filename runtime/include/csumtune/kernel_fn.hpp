// The signature every checksum kernel has: Linux's csum_partial (SysV: rdi, esi, edx -> eax).
#pragma once

#include <cstdint>

namespace csumtune {

using KernelFn = std::uint32_t (*)(const void* buf, int len, std::uint32_t sum);

// A copying kernel (kind=copy): copies src[0..len) to dst and returns the sum of those bytes
// plus sum, in one pass (SysV: rdi, rsi, edx, ecx -> eax). src and dst must not overlap.
using CopyFn = std::uint32_t (*)(const void* src, void* dst, int len, std::uint32_t sum);

}  // namespace csumtune
