/*
 * linux-csum-copy: our own implementation of the algorithm of Linux's
 * arch/x86/lib/csum-copy_64.S (csum_partial_copy_generic, v5.10 and later), written from its
 * description, not copied:
 *
 *   * a 64-byte loop that loads eight words into registers, adds them to the sum on one
 *     adc chain (which runs on through the iterations: dec and lea leave CF alone) and
 *     stores them to the destination;
 *   * then a loop of one 8-byte word per iteration, the chain running through it too;
 *   * 64 -> 32 bits; then 2-byte words and the last odd byte on 32 bits, add + adc $0 each.
 *
 * Left out, and why: the kernel first aligns the destination to 8 bytes (our benchmark's
 * destinations are 64-byte aligned, where that step does nothing), puts an exception-table
 * entry on every load and store (user space has no fault to fix up), and starts from
 * 0xffffffff (here the initial sum is a parameter, as in csum_and_copy).
 *
 *   uint32_t csumtune_linux_csum_copy(const void *src, void *dst, int len, uint32_t sum);
 *   SysV: rdi, rsi, edx, ecx -> eax. len <= 0 touches nothing and returns sum.
 */
	.text
	.p2align 4
	.globl	csumtune_linux_csum_copy
	.type	csumtune_linux_csum_copy, @function
csumtune_linux_csum_copy:
	movl	%ecx, %eax
	testl	%edx, %edx
	jle	.Lreturn
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movl	%edx, %r10d		/* len, for the tails */
	xorl	%r9d, %r9d		/* zero, for adc */
	movl	%edx, %r12d
	shrl	$6, %r12d		/* 64-byte blocks */
	jz	.Lwords
	clc
.Lloop64:
	movq	0(%rdi), %rbx
	movq	8(%rdi), %r8
	movq	16(%rdi), %r11
	movq	24(%rdi), %rdx
	movq	32(%rdi), %r13
	movq	40(%rdi), %r14
	movq	48(%rdi), %r15
	movq	56(%rdi), %rcx
	prefetcht0 5*64(%rdi)
	adcq	%rbx, %rax
	adcq	%r8, %rax
	adcq	%r11, %rax
	adcq	%rdx, %rax
	adcq	%r13, %rax
	adcq	%r14, %rax
	adcq	%r15, %rax
	adcq	%rcx, %rax
	decl	%r12d
	movq	%rbx, 0(%rsi)
	movq	%r8, 8(%rsi)
	movq	%r11, 16(%rsi)
	movq	%rdx, 24(%rsi)
	movq	%r13, 32(%rsi)
	movq	%r14, 40(%rsi)
	movq	%r15, 48(%rsi)
	movq	%rcx, 56(%rsi)
	leaq	64(%rdi), %rdi
	leaq	64(%rsi), %rsi
	jnz	.Lloop64
	adcq	%r9, %rax
.Lwords:
	movl	%r10d, %ecx
	andl	$63, %ecx
	shrl	$3, %ecx		/* 8-byte words left */
	jz	.Lfold
	clc
.Lloop8:
	movq	(%rdi), %rbx
	adcq	%rbx, %rax
	decl	%ecx
	movq	%rbx, (%rsi)
	leaq	8(%rsi), %rsi
	leaq	8(%rdi), %rdi
	jnz	.Lloop8
	adcq	%r9, %rax
.Lfold:
	movl	%eax, %ebx
	shrq	$32, %rax
	addl	%ebx, %eax
	adcl	%r9d, %eax
	movl	%r10d, %ecx
	andl	$7, %ecx
	shrl	$1, %ecx		/* 2-byte words left */
	jz	.Lodd
.Lloop2:
	movzwl	(%rdi), %ebx
	addl	%ebx, %eax
	adcl	%r9d, %eax
	decl	%ecx
	movw	%bx, (%rsi)
	leaq	2(%rdi), %rdi
	leaq	2(%rsi), %rsi
	jnz	.Lloop2
.Lodd:
	testb	$1, %r10b
	jz	.Ldone
	movzbl	(%rdi), %ebx
	movb	%bl, (%rsi)
	addl	%ebx, %eax
	adcl	%r9d, %eax
.Ldone:
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
.Lreturn:
	ret
	.size	csumtune_linux_csum_copy, .-csumtune_linux_csum_copy

	.section	.note.GNU-stack,"",@progbits
