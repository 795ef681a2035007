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

// The AVX2 middle path (mid=N): a buffer of 1..N-1 bytes as its whole vectors, then the last
// one, 1..32 bytes, as a masked load; no loop, no pushes, one reduction. (The AVX-512
// families take emitMidPath's: AVX-512 masks bytes.)
//
//   ecx = len - 1: its bits 32..N/2 are the bytes of the whole vectors before the last one
//   for each such bit, largest first: if set, that many bytes of vectors, pointer += bytes
//   the last vector's whole dwords, masked, from the pointer; reduce into rax (vzeroupper)
//   the last len & 3 bytes: the frame's byte tail
//
// AVX2 has no byte-masked load. It takes the last vector's whole dwords with vpmaskmovd
// (Intel documents that a masked-out dword never faults, AMD's manual calls it implementation
// dependent: a window that crosses a page is summed dword by dword instead, so none is ever on
// a page without a byte of the buffer) and leaves its last len & 3 bytes to the frame's
// own byte tail — one load with bounds=aligned, the 4-2-1 ladder or the overlapping word
// otherwise. Why not a full vector load and a byte mask (vpand) with bounds=aligned: the
// last vector starts at a multiple of 32 from buf, not of 32 in memory, so its full load
// reaches into the next aligned 32-byte block whenever buf is not aligned (a byte outside
// every block the buffer touches: the contract forbids it, and it may be on an unmapped
// page); loading the aligned block that holds the last byte instead puts the bytes at other
// lanes than their word positions, and AVX2 has no cheap byte shift across its two 128-bit
// halves to bring them back. vpmaskmovd keeps the code the same under both bounds forms, and
// the byte tail it leaves is the one the frame already proves.
bool VectorFamily::emitDwordMaskedMidPath(EmitContext& ctx) const {
  const int unit = traits().unitBytes;
  const int accs = std::min(ctx.params.chains, 2);
  const Gp& buffer = ctx.regs.buffer;
  const Gp& count = ctx.regs.remaining;
  emitMidSetup(ctx, accs);
  ctx.b.lea(ecx, ptr(count, -1));
  for (int bytes = ctx.params.mid / 2; bytes >= unit; bytes /= 2) {
    Label skip = ctx.b.newLabel();
    ctx.b.test(ecx, bytes);
    ctx.b.jz(skip);
    for (int v = 0; v < bytes / unit; ++v) emitVector(ctx, v * unit, v % accs);
    ctx.b.add(buffer, bytes);
    ctx.b.bind(skip);
  }
  const Vec last = vec(11);
  // ecx = r, the last vector's bytes (1..32); dword i is loaded when r >= 4i + 4, i.e. when
  // r > 4i + 3: the bytes 3, 7, .., 31 zero-extended to dwords, compared with r.
  // A window [pointer, pointer + 32) that crosses a 4 KiB page takes its whole dwords one by
  // one instead (31 start offsets of 4096): so no masked-out dword is ever on a page that
  // holds no byte of the buffer, and vpmaskmovd cannot fault however an implementation treats
  // them (qemu-user's TCG faults on one on an unmapped page).
  const Vec mask = vec(10);
  Label crossing = ctx.b.newLabel(), dwords = ctx.b.newLabel(), joined = ctx.b.newLabel();
  ctx.b.and_(ecx, unit - 1);
  ctx.b.inc(ecx);
  ctx.b.mov(r8d, buffer.r32());
  ctx.b.and_(r8d, 4095);
  ctx.b.cmp(r8d, 4096 - unit + 1);
  ctx.b.jae(crossing);
  ctx.b.vmovd(xmm(10), ecx);
  ctx.b.vpbroadcastd(mask, xmm(10));
  ctx.b.mov(r8, 0x1f1b17130f0b0703);
  ctx.b.vmovq(xmm(11), r8);
  ctx.b.vpmovzxbd(last, xmm(11));
  ctx.b.vpcmpgtd(mask, mask, last);
  ctx.b.vpmaskmovd(last, mask, vectorAt(ctx, 0));
  emitMaskedLastVector(ctx, last, mask, accs - 1);
  // The pointer past the whole dwords, the byte count down to the len & 3 bytes left.
  ctx.b.and_(ecx, -4);
  ctx.b.add(buffer, rcx);
  ctx.b.jmp(joined);
  ctx.b.bind(crossing);
  // The r >> 2 whole dwords into rax, each closed by adc $0 (rdx is free: the constants are
  // built); the pointer ends past them as above.
  const Gp& word = ctx.regs.scratch;
  ctx.b.shr(ecx, 2);
  ctx.b.jz(joined);
  ctx.b.bind(dwords);
  ctx.b.mov(word.r32(), dword_ptr(buffer));
  ctx.b.add(ctx.regs.accumulators.front(), word);
  ctx.b.adc(ctx.regs.accumulators.front(), 0);
  ctx.b.add(buffer, 4);
  emitDwordSummedApart(ctx);
  ctx.b.dec(ecx);
  ctx.b.jnz(dwords);
  ctx.b.bind(joined);
  ctx.b.and_(count.r32(), 3);
  emitReduce(ctx, accs);
  return true;
}

void VectorFamily::emitMidSetup(EmitContext& /*ctx*/, int /*accumulators*/) const {
  throw std::logic_error("a family without the AVX2 middle path has no set-up for it");
}

void VectorFamily::emitMaskedLastVector(EmitContext& ctx, const Vec& last, const Vec& /*mask*/,
                                        int chain) const {
  emitVectorFrom(ctx, last, chain);
}

bool VectorFamily::midPathStandsAlone(const Params& /*params*/) const {
  return traits().unitBytes == 64;
}

}  // namespace csumtune::gen::detail
