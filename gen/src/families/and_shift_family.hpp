// avx2 (vsum=halves, its default) and avx512: each vector is read as 64-bit lanes whose low
// and high 32-bit halves (`vpand` with 0x00000000ffffffff, `vpsrlq $32`) are added into 64-bit
// accumulator lanes with `vpaddq`. A lane can take 2^32 such additions, more than a 2 GiB
// buffer has, so nothing ever overflows and no flag or carry is involved; the sum stays
// congruent mod 0xffff because 2^32 = 1 (mod 0xffff). Register 15 holds the mask, 14 and 13
// are temporaries.
#pragma once

#include "vector_family.hpp"

namespace csumtune::gen::detail {

class AndShiftFamily final : public VectorFamily {
 public:
  using VectorFamily::VectorFamily;
  void emitLoopSetup(EmitContext& ctx) const override;
  bool emitMidPath(EmitContext& ctx) const override;

 protected:
  void emitVectorFrom(EmitContext& ctx, const asmjit::Operand& src, int chain) const override;
  void emitReduce(EmitContext& ctx, int accumulators) const override;

 private:
  // Accumulators 0..accumulators-1 zeroed and the lane mask: the loop's set-up, and the
  // AVX2 middle path's.
  void emitMidSetup(EmitContext& ctx, int accumulators) const override;
  bool zmmWide() const { return traits().unitBytes == 64; }
  // The 0x00000000ffffffff lane mask into register 15.
  void emitLaneMask(EmitContext& ctx) const;
};

}  // namespace csumtune::gen::detail
