#include "vector_family.hpp"

namespace csumtune::gen::detail {

using namespace asmjit;
using namespace asmjit::x86;

RegisterNeeds VectorFamily::registerNeeds(const Params& params) const {
  return {2, false, params.chains};
}

int VectorFamily::scalarTailTop(const Params& /*params*/) const {
  return traits().unitBytes / 2;
}

void VectorFamily::emitBody(EmitContext& ctx) const {
  const int unit = traits().unitBytes;
  for (int v = 0; v < ctx.params.unroll; ++v) emitVector(ctx, v * unit, v % ctx.params.chains);
}

void VectorFamily::emitAfterLoop(EmitContext& ctx) const {
  const int unit = traits().unitBytes;
  // The whole vectors left (fewer than one block), tested bit by bit from the largest power
  // of two, each run spread over the chains: straight-line code, independent chains.
  if (ctx.params.blockBytes() > unit) {
    for (int bytes = CarryFamily::scalarTailTop(ctx.params); bytes >= unit; bytes /= 2) {
      Label skip = ctx.b.newLabel();
      ctx.b.test(ctx.regs.remaining.r32(), bytes);
      ctx.b.jz(skip);
      for (int v = 0; v < bytes / unit; ++v) emitVector(ctx, v * unit, v % ctx.params.chains);
      ctx.b.add(ctx.regs.buffer, bytes);
      ctx.b.bind(skip);
    }
  }
  emitReduce(ctx);
  // A length that is a whole number of vectors (most of the big ones) skips the scalar tail
  // tests with one test.
  ctx.b.test(esi, unit - 1);
  ctx.b.jz(ctx.skipScalarTails());
}

}  // namespace csumtune::gen::detail
