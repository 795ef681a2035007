// A carry family: one registered implementation (gen/src/families/<name>.cpp) of everything
// that differs between the ways of keeping carries — its traits, the registers it needs,
// and the code it contributes to the one kernel frame (function_emitter.cpp):
//
//   entry, short path                            (frame)
//   emitLoopSetup                                 before the length test of the main loop
//   loop: prefetch; emitBody; advance; emitAfterIteration; loop test
//   fold the loop-only registers                  (frame)
//   emitAfterLoop                                 remainders of its own, its reduction
//   scalar tails from scalarTailTop() down        (frame)
//   fold, return                                  (frame)
//
// The registry (families/registry.cpp, fed by carry_families.def) lists them in order.
#pragma once

#include <asmjit/x86.h>

#include "csumtune/gen/params.hpp"

namespace csumtune::gen::detail {

struct EmitContext;

// What a family needs of the register plan.
struct RegisterNeeds {
  int accumulators = 1;        // general-purpose accumulators (rax first)
  bool carryCounters = false;  // one counter per accumulator while registers last (cmov)
  int vectorAccumulators = 0;  // vector registers 0..n-1
};

class CarryFamily {
 public:
  explicit CarryFamily(const CarryTraits& traits) : traits_(traits) {}
  virtual ~CarryFamily() = default;
  CarryFamily(const CarryFamily&) = delete;
  CarryFamily& operator=(const CarryFamily&) = delete;

  const CarryTraits& traits() const { return traits_; }

  // General-purpose families: one accumulator per chain.
  virtual RegisterNeeds registerNeeds(const Params& params) const;
  // Before the main loop's length test (its state is needed even when the loop never runs).
  virtual void emitLoopSetup(EmitContext& /*ctx*/) const {}
  // One iteration's loads and adds: exactly blockBytes() bytes at [buffer, buffer + block),
  // leaving no carry pending in the flags (the loop control after it writes them).
  virtual void emitBody(EmitContext& ctx) const = 0;
  // After the pointer advance of each iteration.
  virtual void emitAfterIteration(EmitContext& /*ctx*/) const {}
  // After the loop (remaining holds the bytes left below one block): remainders the family
  // takes itself and its reduction into rax; may jump to ctx.skipScalarTails().
  virtual void emitAfterLoop(EmitContext& /*ctx*/) const {}
  // The largest power of two the scalar tails test: they take every remainder below twice it.
  virtual int scalarTailTop(const Params& params) const;
  // mid=N (SIMD families only; validation keeps it from the others): the middle path, entered
  // with the sum in rax, 1 <= len < N in rsi (zero-extended) and nothing pushed (or as
  // midPathStandsAlone says), up to its reduction into rax (and vzeroupper). Returns true when
  // it leaves the last len & 3 bytes at the pointer, with rsi = len & 3, for the frame's byte
  // tail.
  virtual bool emitMidPath(EmitContext& /*ctx*/) const { return false; }
  // Whether the middle path stands alone: it reads only the low half of rsi (so it may be
  // entered before the zero extension) and, with sum=last, starts rax from its own reduction and
  // leaves edx for the fold's third term, so the sum waits for two adds instead of the reduction.
  virtual bool midPathStandsAlone(const Params& /*params*/) const { return false; }

 private:
  const CarryTraits& traits_;
};

const CarryFamily& familyOf(Carry carry);

}  // namespace csumtune::gen::detail
