/* Stand-in for the kernel's _ASM_EXTABLE_UA: the (instruction, fixup) pair goes into a table
 * that tests/e2e/copy/fault_check.c's SIGSEGV handler searches, as the kernel's page-fault
 * handler searches __ex_table. */
#define _ASM_EXTABLE_UA(from, to)      \
  .pushsection csumtune_extable, "aw"; \
  .balign 8;                           \
  .quad from, to;                      \
  .popsection
