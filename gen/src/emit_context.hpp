// Internal to gen/: what every piece of the kernel emitter needs at hand.
#pragma once

#include <asmjit/x86.h>

#include "csumtune/gen/kernel_program.hpp"

namespace csumtune::gen::detail {

struct EmitContext {
  asmjit::x86::Builder& b;
  const Params& params;
  const RegisterPlan& regs;

  // The word at `disp` bytes from the load pointer.
  asmjit::x86::Mem qword(int disp) const { return asmjit::x86::qword_ptr(regs.buffer, disp); }
  asmjit::x86::Mem dword(int disp) const { return asmjit::x86::dword_ptr(regs.buffer, disp); }
};

// The whole function: entry, main loop, tails, folding, exit.
void emitFunction(EmitContext& ctx);

// One iteration's worth of loads and adds for ctx.params.carry (no loop control).
void emitMainLoopBody(EmitContext& ctx);

// `add disp(buf), acc; adc disp+8(buf), acc; ...; adc $0, acc` over `words` words: a flag
// chain that starts with a full flag write, so consecutive blocks run in parallel.
void emitAddAdcBlock(EmitContext& ctx, const asmjit::x86::Gp& acc, int disp, int words);

// SIMD families (vector_emitter.cpp): zero the vector accumulators and build the lane mask;
// one vector at `disp` into accumulator `chain`; the main-loop body; the whole vectors
// left after the main loop; the accumulators into rax (and vzeroupper).
void emitVectorSetup(EmitContext& ctx);
void emitVector(EmitContext& ctx, int disp, int chain);
void emitVectorBody(EmitContext& ctx);
void emitVectorRemainder(EmitContext& ctx);
// After each main-loop iteration (VNNI: widen the 32-bit lanes when their budget is spent).
void emitVectorAfterIteration(EmitContext& ctx);
void emitVectorReduce(EmitContext& ctx);

}  // namespace csumtune::gen::detail
