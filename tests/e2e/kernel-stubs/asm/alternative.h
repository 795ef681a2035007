/* Stand-in for the kernel's <asm/alternative.h> in assembly: the original instruction stays,
 * as on a CPU without the feature before (or without) boot-time patching. */
#ifndef CSUMTUNE_STUB_ALTERNATIVE_H
#define CSUMTUNE_STUB_ALTERNATIVE_H
/* (assembler macro lines, not C: kept from clang-format) */
/* clang-format off */
.macro ALTERNATIVE oldinstr, newinstr, ft_flags
	\oldinstr
.endm
/* clang-format on */
#endif
