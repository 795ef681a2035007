#include "dirty_call.hpp"

// Two tail-calling trampolines: set the upper halves, then jump to the kernel, which returns
// to our caller. Written as assembly because no C++ call can choose those bits.
extern "C" {
std::uint32_t csumtune_dirty_sum_call(const void* buf, int len, std::uint32_t sum,
                                      csumtune::KernelFn fn);
std::uint32_t csumtune_dirty_copy_call(const void* src, void* dst, int len, std::uint32_t sum,
                                       csumtune::CopyFn fn);
}

asm(R"(
	.pushsection .text
	.p2align 4
	.globl	csumtune_dirty_sum_call
	.hidden	csumtune_dirty_sum_call
	.type	csumtune_dirty_sum_call, @function
csumtune_dirty_sum_call:
	movabs	$0xa5a5a5a500000000, %rax
	or	%rax, %rsi
	or	%rax, %rdx
	jmp	*%rcx
	.size	csumtune_dirty_sum_call, .-csumtune_dirty_sum_call
	.p2align 4
	.globl	csumtune_dirty_copy_call
	.hidden	csumtune_dirty_copy_call
	.type	csumtune_dirty_copy_call, @function
csumtune_dirty_copy_call:
	movabs	$0xa5a5a5a500000000, %rax
	or	%rax, %rdx
	or	%rax, %rcx
	jmp	*%r8
	.size	csumtune_dirty_copy_call, .-csumtune_dirty_copy_call
	.popsection
)");

namespace csumtune::tuner {

std::uint32_t callWithDirtyUpperHalves(KernelFn fn, const void* buf, int len, std::uint32_t sum) {
  return csumtune_dirty_sum_call(buf, len, sum, fn);
}

std::uint32_t callWithDirtyUpperHalves(CopyFn fn, const void* src, void* dst, int len,
                                       std::uint32_t sum) {
  return csumtune_dirty_copy_call(src, dst, len, sum, fn);
}

}  // namespace csumtune::tuner
