// The .S skeletons from templates/*.S.in, embedded at build time.
// Placeholders: @HEADER@ (comment block), @SYMBOL@, @BODY@ (printed instructions),
// @EXTRA@ (kernel style: ip_compute_csum when the symbol is csum_partial).
#pragma once

#include <string_view>

namespace csumtune::templates {

std::string_view kernel();  // Linux kernel style: linkage.h, SYM_FUNC_*, RET, EXPORT_SYMBOL
std::string_view ip_compute_csum();  // appended to the kernel style for csum_partial
std::string_view gas();              // plain GNU as for user space

// The out-of-tree test module (templates/kmod/): Kbuild, Makefile, harness.c (@PARAMS@,
// @VERSION@); it links tuned.S, a kernel-style kernel under the symbol csum_partial_tuned.
std::string_view kbuild();
std::string_view makefile();
std::string_view harness();
// For kind=copy: the tuned copy is csum_partial_copy_tuned, checked against the kernel's
// csum_partial_copy_nocheck and through real faults on a user mapping.
std::string_view harness_copy();

// Stand-in kernel headers (templates/kernel-stubs/) that let a tree's own
// arch/x86/lib/csum-partial_64.c build for user space: <linux/compiler.h>, <linux/export.h>,
// <linux/types.h>, <linux/bitops.h>, <asm/checksum.h>, <asm/word-at-a-time.h>.
std::string_view stub_linux_compiler();
std::string_view stub_linux_export();
std::string_view stub_linux_types();
std::string_view stub_linux_bitops();
std::string_view stub_asm_checksum();
std::string_view stub_asm_word_at_a_time();
// And for the tree's csum-copy_64.S: <linux/linkage.h>, <asm/asm.h> (<asm/errno.h> is empty).
std::string_view stub_linux_linkage();
std::string_view stub_asm_asm();

}  // namespace csumtune::templates
