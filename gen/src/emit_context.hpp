// Internal to gen/: what every piece of the kernel emitter needs at hand.
#pragma once

#include <functional>
#include <vector>

#include <asmjit/x86.h>

#include "carry_family.hpp"
#include "csumtune/gen/kernel_program.hpp"

namespace csumtune::gen::detail {

struct EmitContext {
  asmjit::x86::Builder& b;
  const Params& params;
  const RegisterPlan& regs;
  const CarryFamily& family;
  bool kernelCopyEntry = false;  // ProgramOptions::kernelCopyEntry

  // Where the scalar tails end (the fold). Created on first use, so that label numbering in
  // the .S text follows the order code is emitted in.
  const asmjit::Label& skipScalarTails() {
    if (!skipScalarTails_.isValid()) skipScalarTails_ = b.newLabel();
    return skipScalarTails_;
  }

  // The word at `disp` bytes from where the data pointer points. Inside a main loop that
  // biases the pointer (see emitMainLoop) the register is `loadBias` bytes further on.
  asmjit::x86::Mem qword(int disp) const {
    return asmjit::x86::qword_ptr(regs.buffer, disp - loadBias);
  }
  asmjit::x86::Mem dword(int disp) const {
    return asmjit::x86::dword_ptr(regs.buffer, disp - loadBias);
  }

  int loadBias = 0;  // set by emitMainLoop only
  // Emitting the tails after the main loop (Params::wordTailChains).
  bool afterLoop = false;
  // store=nt: set by emitMainLoop around the loop body, whose stores are then movnti.
  bool nonTemporalStores = false;

  // kind=copy: every load is also a store, at the same offset from the destination.
  bool copying() const { return params.kind == Kind::Copy; }
  asmjit::x86::Mem storeFor(const asmjit::x86::Mem& at) const {
    asmjit::x86::Mem out = at;
    out.setIndex(regs.delta);
    out.setShift(0);
    return out;
  }

  // Code laid out after the function's last `ret`, in the order added (byteload=straight's
  // computed load): the paths that jump there fall through when they do not.
  std::vector<std::function<void()>> outOfLine{};

  asmjit::Label skipScalarTails_{};  // through skipScalarTails() only
};

// The whole function: entry, main loop, tails, folding, exit (function_emitter.cpp).
void emitFunction(EmitContext& ctx);

// acc `op`= the word at `at` (op: add, adc, adcx or adox). Summing, the memory operand goes
// into the instruction; copying, the word passes through regs.copyWord: loaded, added, and
// stored at storeFor(at) — movs, which leave the flags of the carry chain alone.
void emitSumWord(EmitContext& ctx, asmjit::InstId op, const asmjit::x86::Gp& acc,
                 const asmjit::x86::Mem& at);

// kind=copy: `value` stored at storeFor(at) — movnti inside a store=nt main loop (4- and
// 8-byte values; movnti has no narrower form), mov everywhere else.
void emitStore(EmitContext& ctx, const asmjit::x86::Mem& at, const asmjit::x86::Gp& value);

// reg = the bytes at `at` (mov; movzx for 1 or 2 bytes). Copying, those bytes are also stored
// at storeFor(at).
void emitLoad(EmitContext& ctx, const asmjit::x86::Gp& reg, const asmjit::x86::Mem& at);

// `add disp(buf), acc; adc disp+8(buf), acc; ...; adc $0, acc` over `words` words: a flag
// chain that starts with a full flag write, so consecutive blocks run in parallel.
void emitAddAdcBlock(EmitContext& ctx, const asmjit::x86::Gp& acc, int disp, int words);

}  // namespace csumtune::gen::detail
