// What the SIMD families share: chains in vector registers 0..chains-1, two general-purpose
// accumulators for the scalar short path and tails, the whole vectors left after the main
// loop taken by a straight-line ladder, and the last bytes below one vector by the frame's
// scalar tails. Buffers under 64 bytes take the frame's scalar short path and never touch a
// vector register. Registers 12..15 are the families' temporaries and constants: all below
// 16, so VEX encodes every AVX2 form, and all caller-saved.
#pragma once

#include "../emit_context.hpp"

namespace csumtune::gen::detail {

class VectorFamily : public CarryFamily {
 public:
  using CarryFamily::CarryFamily;

  RegisterNeeds registerNeeds(const Params& params) const override;
  void emitBody(EmitContext& ctx) const override;
  void emitAfterLoop(EmitContext& ctx) const override;
  int scalarTailTop(const Params& params) const override;
  bool emitMidPath(EmitContext& ctx) const override;
  bool midPathStandsAlone(const Params& params) const override;

 protected:
  // One vector at `disp` bytes from the load pointer into accumulator `chain`.
  void emitVector(EmitContext& ctx, int disp, int chain) const;
  // One vector, `src` (a vector register, or memory), into accumulator `chain`.
  virtual void emitVectorFrom(EmitContext& ctx, const asmjit::Operand& src, int chain) const = 0;
  // Accumulators 0..accumulators-1 into rax (end-around carry), then vzeroupper.
  virtual void emitReduce(EmitContext& ctx, int accumulators) const = 0;
  // A memory operand of one vector at `disp` bytes from the pointer.
  asmjit::x86::Mem vectorAt(const EmitContext& ctx, int disp) const;
  asmjit::x86::Vec vec(int id) const;

  // The AVX2 middle path (32-byte vectors; vector_family.cpp says how), through the hooks
  // below: the ladder of whole vectors by emitVector, the last one's whole dwords by a masked
  // load (ymm11, its dword mask in ymm10), a page-crossing one's dwords in rax.
  bool emitDwordMaskedMidPath(EmitContext& ctx) const;
  // Its set-up: accumulators 0..accumulators-1 zeroed and the family's constants.
  virtual void emitMidSetup(EmitContext& ctx, int accumulators) const;
  // Its last vector, masked-out dwords zero, into accumulator `chain`.
  virtual void emitMaskedLastVector(EmitContext& ctx, const asmjit::x86::Vec& last,
                                    const asmjit::x86::Vec& mask, int chain) const;
  // After each dword a page-crossing last vector adds to rax (the pointer has passed it).
  virtual void emitDwordSummedApart(EmitContext& /*ctx*/) const {}
};

}  // namespace csumtune::gen::detail
