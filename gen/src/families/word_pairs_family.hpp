// avx2 with vsum=madd: every 16-bit word is biased to a signed one (xor 0x8000, i.e. minus
// 32768) and `vpmaddwd` with a vector of word ones adds each pair into a 32-bit lane, which
// `vpaddd` adds to the chain: three vector instructions per 32 bytes, the load folded into the
// xor. Halves of 64-bit lanes added into 64-bit lanes (vsum=halves, and_shift_family.hpp)
// take four, and a separate load (VEX cannot shift a memory operand): the vector ALUs, not the
// loads, bound that loop.
//
// A lane takes at most 32767 pair sums (each in [-65536, 65534]) before it could overflow, so
// every LIMIT iterations the chains are added together and widened (sign-extended) into a
// 64-bit accumulator; at the end the bias comes back as (bytes summed) * 2^14 (16 words of
// 32768 per 32 bytes), counted from the start pointer.
//
// Registers: ymm15 holds the bias, 14 the word ones, 13 the biased vector, 12 the 64-bit
// accumulator (10 and 11: the middle path's mask and last vector); general-purpose r9 the
// start pointer, r8 the iterations to the next widening (a temporary of the reduction after
// the loop); all caller-saved and unused by the SIMD register plans, r10 and r11 left to a
// copy.
#pragma once

#include "vector_family.hpp"

namespace csumtune::gen::detail {

class WordPairsFamily final : public VectorFamily {
 public:
  using VectorFamily::VectorFamily;
  void emitLoopSetup(EmitContext& ctx) const override;
  void emitAfterIteration(EmitContext& ctx) const override;
  bool emitMidPath(EmitContext& ctx) const override { return emitDwordMaskedMidPath(ctx); }

 protected:
  void emitVectorFrom(EmitContext& ctx, const asmjit::Operand& src, int chain) const override;
  void emitReduce(EmitContext& ctx, int accumulators) const override;
  void emitMidSetup(EmitContext& ctx, int accumulators) const override;
  void emitMaskedLastVector(EmitContext& ctx, const asmjit::x86::Vec& last,
                            const asmjit::x86::Vec& mask, int chain) const override;
  void emitDwordSummedApart(EmitContext& ctx) const override;
};

}  // namespace csumtune::gen::detail
