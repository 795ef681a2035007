#include "dirty_call.hpp"

#include <array>

#include <fmt/format.h>

// Two tail-calling trampolines: put `upper` above the 32-bit arguments, then jump to the
// kernel, which returns to our caller. Written as assembly because no C++ call can choose
// those bits.
extern "C" {
std::uint32_t csumtune_dirty_sum_call(const void* buf, int len, std::uint32_t sum,
                                      csumtune::KernelFn fn, std::uint64_t upper);
std::uint32_t csumtune_dirty_copy_call(const void* src, void* dst, int len, std::uint32_t sum,
                                       csumtune::CopyFn fn, std::uint64_t upper);
}

asm(R"(
	.pushsection .text
	.p2align 4
	.globl	csumtune_dirty_sum_call
	.hidden	csumtune_dirty_sum_call
	.type	csumtune_dirty_sum_call, @function
csumtune_dirty_sum_call:
	shl	$32, %r8
	mov	%esi, %esi
	or	%r8, %rsi
	mov	%edx, %edx
	or	%r8, %rdx
	jmp	*%rcx
	.size	csumtune_dirty_sum_call, .-csumtune_dirty_sum_call
	.p2align 4
	.globl	csumtune_dirty_copy_call
	.hidden	csumtune_dirty_copy_call
	.type	csumtune_dirty_copy_call, @function
csumtune_dirty_copy_call:
	shl	$32, %r9
	mov	%edx, %edx
	or	%r9, %rdx
	mov	%ecx, %ecx
	or	%r9, %rcx
	jmp	*%r8
	.size	csumtune_dirty_copy_call, .-csumtune_dirty_copy_call
	.popsection
)");

namespace csumtune::tuner {

std::uint32_t upperHalfPattern(std::size_t index) {
  static constexpr std::array<std::uint32_t, 5> patterns{0xa5a5a5a5u, 0x5a5a5a5au, 0x00000001u,
                                                         0x80000000u, 0xffffffffu};
  return patterns[(index >> 1) % patterns.size()];
}

std::optional<std::uint32_t> dirtyUpperHalf(std::size_t index, int len) {
  const auto mix = index ^ (index >> 1) ^ (index >> 3) ^ static_cast<std::uint32_t>(len);
  if ((mix & 1) == 0) return std::nullopt;
  return upperHalfPattern(index);
}

std::string describeUpperHalf(std::optional<std::uint32_t> upper) {
  if (!upper) return "";
  return fmt::format(" (called with {:#010x} above its 32-bit length and sum)", *upper);
}

std::uint32_t callWithUpperHalves(KernelFn fn, const void* buf, int len, std::uint32_t sum,
                                  std::optional<std::uint32_t> upper) {
  if (!upper) return fn(buf, len, sum);
  return csumtune_dirty_sum_call(buf, len, sum, fn, *upper);
}

std::uint32_t callWithUpperHalves(CopyFn fn, const void* src, void* dst, int len, std::uint32_t sum,
                                  std::optional<std::uint32_t> upper) {
  if (!upper) return fn(src, dst, len, sum);
  return csumtune_dirty_copy_call(src, dst, len, sum, fn, *upper);
}

}  // namespace csumtune::tuner
