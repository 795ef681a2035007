// avx512: each vector is read as 64-bit lanes whose low and high 32-bit halves (`vpandq` with
// 0x00000000ffffffff, `vpsrlq $32`, both from memory under EVEX) are added into 64-bit
// accumulator lanes with `vpaddq`. A lane can take 2^32 such additions, more than a 2 GiB
// buffer has, so nothing ever overflows and no flag or carry is involved; the sum stays
// congruent mod 0xffff because 2^32 = 1 (mod 0xffff). Register 15 holds the mask, 14 and 13
// are temporaries. (avx2 biases words and pairs them with vpmaddwd instead, avx2.cpp: VEX
// cannot shift a memory operand, and the extra load and ALU instruction bound its loop.)
#pragma once

#include "vector_family.hpp"

namespace csumtune::gen::detail {

class AndShiftFamily final : public VectorFamily {
 public:
  using VectorFamily::VectorFamily;
  void emitLoopSetup(EmitContext& ctx) const override;

 protected:
  void emitVectorFrom(EmitContext& ctx, const asmjit::Operand& src, int chain) const override;
  void emitReduce(EmitContext& ctx, int accumulators) const override;
};

}  // namespace csumtune::gen::detail
