/* Stand-ins for the kernel's macros, so kernel-style .S files assemble outside kbuild.
 * Only for comparing bytes: the real macros add alignment, CFI and ORC/IBT details. */
#define SYM_FUNC_START(name) \
  .globl name;               \
  .type name, @function;     \
  .p2align 4;                \
  name:
#define SYM_FUNC_END(name) .size name, .- name
#define RET ret
#define SYM_FUNC_START_LOCAL(name) \
  .type name, @function;           \
  .p2align 4;                      \
  name:
