// The AT&T printer: the Builder node list of a KernelProgram as GNU assembler text that
// assembles to exactly the bytes the JIT runs.
//
// The text assembles to the same bytes with GNU as and with clang's integrated assembler.
// Where an assembler would pick a different encoding than asmjit did, the printer says which
// one to use in a form both accept: `{disp32}` on jumps asmjit encoded with a 32-bit
// displacement (an assembler would shrink them); a register-register instruction asmjit
// encoded in the load (ModRM.reg = destination) direction is printed as its bytes
// (`.byte ...` with the instruction in a comment), since clang rejects GNU as's `{load}`.
// An instruction it does not know is an error, never a guess.
#pragma once

#include <string>

#include "csumtune/gen/kernel_program.hpp"

namespace csumtune::gen {

struct AttOptions {
  std::string symbol = "csum_partial";  // function-local labels are .L<symbol>_<n>
  // The kernel's style: `RET` (the kernel macro) instead of `ret`, and targets=aligned's fill as
  // `.p2align 4` instead of the JIT's bytes. In a kernel the body does not lie as it does in the
  // JIT (RET is a 5-byte jump to the return thunk, IBT puts endbr64 first, the ADX alternative
  // a jump), so only the assembler can put the targets on boundaries; it relaxes the jumps
  // printed without {disp32} around its own fill.
  bool kernelStyle = false;
  // The kernel's csum_partial_copy_generic: every instruction that reads or writes memory
  // (not the stack; prefetches cannot fault) gets a label and an _ASM_EXTABLE_UA entry to a
  // fixup after the body that pops what is pushed at that instruction and returns 0. The
  // fixups are text only: user space has no exception table, so the JIT has no use for them.
  bool faultFixups = false;
};

// A register's AT&T name, e.g. "%rax", "%r9d", "%zmm12".
std::string registerName(const asmjit::x86::Reg& reg);

// One line per instruction or label, tab-indented instructions; no directives.
std::string printAtt(const KernelProgram& program, const AttOptions& options = {});

// The same for any node list (tests use it to show that unknown instructions are refused).
std::string printAtt(const asmjit::x86::Builder& builder, const AttOptions& options = {});

}  // namespace csumtune::gen
