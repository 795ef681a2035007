#include "vector_family.hpp"

#include <algorithm>

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

// The middle path (mid=N): a buffer of 1..N-1 bytes as its whole vectors, then the last one,
// 1..W bytes (W the vector width), as a masked load; no loop, no pushes, one reduction.
//
//   ecx = len - 1: its bits W..N/2 are the bytes of the whole vectors before the last one
//   for each such bit, largest first: if set, that many bytes of vectors, pointer += bytes
//   the last vector, masked, from the pointer: bytes [pointer, buf + len)
//   reduce into rax (vzeroupper)
//
// AVX-512 masks bytes: vmovdqu8 under k1 = the low ((len - 1) mod 64) + 1 bits, zeroing the
// rest. Masked-out bytes are never read (they cannot fault, whatever page they are on), so
// the path reads nothing outside the buffer under either bounds form.
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
bool VectorFamily::emitMidPath(EmitContext& ctx) const {
  const int unit = traits().unitBytes;
  const bool wide = unit == 64;
  const int accs = std::min(ctx.params.chains, 2);
  const Gp& buffer = ctx.regs.buffer;
  const Gp& count = ctx.regs.remaining;
  emitMidSetup(ctx, accs);
  if (wide) {
    // k1 = -1 >> (-len mod 64): len mod 64 bits, or all 64 when len is a multiple of 64.
    ctx.b.mov(ecx, count.r32());
    ctx.b.neg(ecx);
    ctx.b.mov(r8, -1);
    ctx.b.shr(r8, cl);
    ctx.b.kmovq(k1, r8);
  }
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
  if (wide) {
    ctx.b.k(k1).z().vmovdqu8(last, vectorAt(ctx, 0));
    emitVectorFrom(ctx, last, accs - 1);
    emitReduce(ctx, accs);
    return false;
  }
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
  emitVectorFrom(ctx, last, accs - 1);
  // The pointer past the whole dwords, the byte count down to the len & 3 bytes left.
  ctx.b.and_(ecx, -4);
  ctx.b.add(buffer, rcx);
  ctx.b.jmp(joined);
  ctx.b.bind(crossing);
  // The r >> 2 whole dwords into rax, each closed by adc $0 (rdx is free: the lane mask is
  // built); the pointer ends past them as above.
  const Gp& word = ctx.regs.scratch;
  ctx.b.shr(ecx, 2);
  ctx.b.jz(joined);
  ctx.b.bind(dwords);
  ctx.b.mov(word.r32(), dword_ptr(buffer));
  ctx.b.add(ctx.regs.accumulators.front(), word);
  ctx.b.adc(ctx.regs.accumulators.front(), 0);
  ctx.b.add(buffer, 4);
  ctx.b.dec(ecx);
  ctx.b.jnz(dwords);
  ctx.b.bind(joined);
  ctx.b.and_(count.r32(), 3);
  emitReduce(ctx, accs);
  return true;
}

}  // namespace csumtune::gen::detail
