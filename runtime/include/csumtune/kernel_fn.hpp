// The signature every checksum kernel has: Linux's csum_partial (SysV: rdi, esi, edx -> eax).
#pragma once

#include <cstdint>

namespace csumtune {

using KernelFn = std::uint32_t (*)(const void* buf, int len, std::uint32_t sum);

}  // namespace csumtune
