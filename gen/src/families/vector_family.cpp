#include "vector_family.hpp"

#include <algorithm>
#include <stdexcept>

namespace csumtune::gen::detail {

using namespace asmjit;
using namespace asmjit::x86;

RegisterNeeds VectorFamily::registerNeeds(const Params& params) const {
  return {2, false, params.chains};
}

int VectorFamily::scalarTailTop(const Params& /*params*/) const {
  return traits().unitBytes / 2;
}

Vec VectorFamily::vec(int id) const {
  if (traits().unitBytes == 64) return zmm(static_cast<uint32_t>(id));
  return ymm(static_cast<uint32_t>(id));
}

Mem VectorFamily::vectorAt(const EmitContext& ctx, int disp) const {
  return traits().unitBytes == 64 ? zmmword_ptr(ctx.regs.buffer, disp)
                                  : ymmword_ptr(ctx.regs.buffer, disp);
}

void VectorFamily::emitVector(EmitContext& ctx, int disp, int chain) const {
  emitVectorFrom(ctx, vectorAt(ctx, disp), chain);
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
  emitReduce(ctx, ctx.regs.vectorAccumulators);
  // A length that is a whole number of vectors (most of the big ones) skips the scalar tail
  // tests with one test.
  ctx.b.test(esi, unit - 1);
  ctx.b.jz(ctx.skipScalarTails());
}

// The AVX-512 middle path: at most mid / 64 vectors, the last one masked, summed as
// dwords without the loops' machinery (no bias, no constants, no zeroed accumulators): the
// loops pay that set-up once for many vectors, a buffer under 512 bytes would pay it for one
// to eight. D sums the dwords (mod 2^32) and H their high words; each lane's exact sum of
// words is D - (H << 16) + H, since its low words add to less than 2^32. The dwords then go
// to rax two at a time as qwords (2^32 = 1 modulo 0xffff).
//
//   k1 = the low ((len - 1) mod 64) + 1 bits; ecx = len - 1; r8 = ecx & -64
//   D = the last vector at pointer + r8, masked; H = D >> 16 (per dword)
//   if no bit 64..mid/2 of ecx is set, skip; else for each, largest first: if set, its vectors
//   into D and H
//   D = D - (H << 16) + H; 16 dwords to 4; both qwords into rax (sum=first: onto the sum),
//   end-around carry
bool VectorFamily::emitMidPath(EmitContext& ctx) const {
  if (traits().unitBytes != 64)
    throw std::logic_error("a family of 32-byte vectors brings its own middle path");
  const Gp& buffer = ctx.regs.buffer;
  const Gp& count = ctx.regs.remaining;
  const Gp& acc0 = ctx.regs.accumulators.front();
  // k1 = -1 >> (-len mod 64): len mod 64 bits, or all 64 when len is a multiple of 64.
  ctx.b.mov(ecx, count.r32());
  ctx.b.neg(ecx);
  ctx.b.mov(r8, -1);
  ctx.b.shr(r8, cl);
  ctx.b.kmovq(k1, r8);
  ctx.b.lea(ecx, ptr(count, -1));
  ctx.b.mov(r8d, ecx);
  ctx.b.and_(r8d, -64);
  // The last vector first, so that D and H start from it and need no zeroing.
  ctx.b.k(k1).z().vmovdqu8(zmm0, zmmword_ptr(buffer, r8));
  ctx.b.vpsrld(zmm1, zmm0, 16);
  // A last vector with none before it (len <= 64: the hot 64-byte calls, which only a short
  // bound of 64 or none lets in) skips the whole ladder with one test: each skipped rung is a
  // taken jump, and a call's taken jumps bound it here.
  Label wholeDone = ctx.b.newLabel();
  const bool lastVectorAlone = !ctx.params.hasShortPath() || ctx.params.shortBelow <= 64;
  if (ctx.params.mid > 128 && lastVectorAlone) {
    ctx.b.test(ecx, (ctx.params.mid - 1) & -64);
    ctx.b.jz(wholeDone);
  }
  for (int bytes = ctx.params.mid / 2; bytes >= 64; bytes /= 2) {
    Label skip = ctx.b.newLabel();
    ctx.b.test(ecx, bytes);
    ctx.b.jz(skip);
    for (int v = 0; v < bytes / 64; ++v) {
      ctx.b.vpaddd(zmm0, zmm0, vectorAt(ctx, v * 64));
      ctx.b.vpsrld(zmm2, vectorAt(ctx, v * 64), 16);
      ctx.b.vpaddd(zmm1, zmm1, zmm2);
    }
    ctx.b.add(buffer, bytes);
    ctx.b.bind(skip);
  }
  ctx.b.bind(wholeDone);
  ctx.b.vpslld(zmm2, zmm1, 16);
  ctx.b.vpsubd(zmm0, zmm0, zmm2);
  ctx.b.vpaddd(zmm0, zmm0, zmm1);
  ctx.b.vextracti64x4(ymm1, zmm0, 1);
  ctx.b.vpaddd(ymm0, ymm0, ymm1);
  ctx.b.vextracti128(xmm1, ymm0, 1);
  ctx.b.vpaddd(xmm0, xmm0, xmm1);
  if (ctx.params.sum == SumEntry::Last) {
    // rax starts from the low qword; the sum (edx) is the fold's (midPathStandsAlone).
    ctx.b.vmovq(acc0, xmm0);
    ctx.b.vpextrq(r8, xmm0, 1);
    ctx.b.add(acc0, r8);
  } else {
    ctx.b.vmovq(rdx, xmm0);
    ctx.b.vpextrq(r8, xmm0, 1);
    ctx.b.add(acc0, rdx);
    ctx.b.adc(acc0, r8);
  }
  ctx.b.adc(acc0, 0);
  ctx.b.vzeroupper();
  return false;
}

bool VectorFamily::midPathStandsAlone(const Params& /*params*/) const {
  return traits().unitBytes == 64;
}

}  // namespace csumtune::gen::detail
