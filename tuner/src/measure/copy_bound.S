/*
 * copy-bound: the yardstick of copying kernels, not a kernel. It copies with
 * general-purpose 8-byte loads and stores only and sums nothing (it returns the sum it was
 * given), so no general-purpose copy-and-checksum can be faster: whatever else it does, it
 * has these loads and stores to issue. bench --baseline shows it beside copying kernels; it
 * is never verified as a checksum, never a candidate.
 *
 *   uint32_t csumtune_copy_bound(const void *src, void *dst, int len, uint32_t sum);
 *   SysV: rdi, rsi, edx, ecx -> eax. len <= 0 copies nothing.
 */
	.text
	.p2align 4
	.globl	csumtune_copy_bound
	.type	csumtune_copy_bound, @function
csumtune_copy_bound:
	movl	%ecx, %eax
	testl	%edx, %edx
	jle	.Ldone
	movslq	%edx, %rdx
	xorl	%ecx, %ecx		/* offset */
	movq	%rdx, %r9
	andq	$-64, %r9		/* bytes in whole 64-byte blocks */
	jz	.Lwords
	.p2align 4
.Lblock:
	movq	0(%rdi,%rcx), %r8
	movq	8(%rdi,%rcx), %r10
	movq	16(%rdi,%rcx), %r11
	movq	%r8, 0(%rsi,%rcx)
	movq	%r10, 8(%rsi,%rcx)
	movq	%r11, 16(%rsi,%rcx)
	movq	24(%rdi,%rcx), %r8
	movq	32(%rdi,%rcx), %r10
	movq	40(%rdi,%rcx), %r11
	movq	%r8, 24(%rsi,%rcx)
	movq	%r10, 32(%rsi,%rcx)
	movq	%r11, 40(%rsi,%rcx)
	movq	48(%rdi,%rcx), %r8
	movq	56(%rdi,%rcx), %r10
	movq	%r8, 48(%rsi,%rcx)
	movq	%r10, 56(%rsi,%rcx)
	addq	$64, %rcx
	cmpq	%r9, %rcx
	jb	.Lblock
.Lwords:
	leaq	8(%rcx), %r9
	cmpq	%rdx, %r9
	ja	.Lbytes
	movq	(%rdi,%rcx), %r8
	movq	%r8, (%rsi,%rcx)
	movq	%r9, %rcx
	jmp	.Lwords
.Lbytes:
	cmpq	%rdx, %rcx
	jae	.Ldone
	movzbl	(%rdi,%rcx), %r8d
	movb	%r8b, (%rsi,%rcx)
	incq	%rcx
	jmp	.Lbytes
.Ldone:
	ret
	.size	csumtune_copy_bound, .-csumtune_copy_bound

	.section	.note.GNU-stack,"",@progbits
