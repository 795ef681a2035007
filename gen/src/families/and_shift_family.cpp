#include "and_shift_family.hpp"

#include <algorithm>

namespace csumtune::gen::detail {

using namespace asmjit;
using namespace asmjit::x86;

namespace {
constexpr int kMaskReg = 15, kLowReg = 14, kHighReg = 13;
}  // namespace

void AndShiftFamily::emitLoopSetup(EmitContext& ctx) const {
  emitMidSetup(ctx, ctx.regs.vectorAccumulators);
}

void AndShiftFamily::emitMidSetup(EmitContext& ctx, int accumulators) const {
  for (int i = 0; i < accumulators; ++i) {
    // VEX-encoded xmm zeroing clears the whole ymm/zmm register.
    ctx.b.vpxor(xmm(static_cast<uint32_t>(i)), xmm(static_cast<uint32_t>(i)),
                xmm(static_cast<uint32_t>(i)));
  }
  emitLaneMask(ctx);
}

void AndShiftFamily::emitLaneMask(EmitContext& ctx) const {
  // The 0x00000000ffffffff lane mask, built in registers: no data in .text.
  ctx.b.mov(ctx.regs.scratch.r32(), 0xffffffffu);
  if (zmmWide()) {
    ctx.b.vpbroadcastq(zmm(kMaskReg), ctx.regs.scratch);
  } else {
    ctx.b.vmovq(xmm(kMaskReg), ctx.regs.scratch);
    ctx.b.vpbroadcastq(ymm(kMaskReg), xmm(kMaskReg));
  }
}

void AndShiftFamily::emitVectorFrom(EmitContext& ctx, const Operand& src, int chain) const {
  const Vec acc = vec(chain), low = vec(kLowReg), high = vec(kHighReg);
  const Vec mask = vec(kMaskReg);
  if (src.isReg()) {
    // Already in a register (the middle path's masked last vector).
    ctx.b.emit(zmmWide() ? Inst::kIdVpandq : Inst::kIdVpand, low, mask, src);
    ctx.b.vpsrlq(high, src.as<Vec>(), 32);
  } else if (zmmWide() && !ctx.copying()) {
    // EVEX takes the memory operand in both the and and the shift.
    const Mem& at = src.as<Mem>();
    ctx.b.vpandq(low, mask, at);
    ctx.b.vpsrlq(high, at, 32);
  } else {
    const Mem& at = src.as<Mem>();
    // VEX shifts by an immediate only from a register, and a copying kernel stores what it
    // loaded: load once. (A zmm move names its element size: vmovdqu64.)
    const InstId move = zmmWide() ? Inst::kIdVmovdqu64 : Inst::kIdVmovdqu;
    ctx.b.emit(move, high, at);
    if (ctx.copying()) ctx.b.emit(move, ctx.storeFor(at), high);
    ctx.b.emit(zmmWide() ? Inst::kIdVpandq : Inst::kIdVpand, low, mask, high);
    ctx.b.vpsrlq(high, high, 32);
  }
  ctx.b.vpaddq(acc, acc, low);
  ctx.b.vpaddq(acc, acc, high);
}

void AndShiftFamily::emitReduce(EmitContext& ctx, int accumulators) const {
  const Gp& acc0 = ctx.regs.accumulators.front();
  const Vec sum = vec(0);
  for (int i = 1; i < accumulators; ++i) ctx.b.vpaddq(sum, sum, vec(i));
  if (zmmWide()) {
    ctx.b.vextracti64x4(ymm(kLowReg), zmm(0), 1);
    ctx.b.vpaddq(ymm(0), ymm(0), ymm(kLowReg));
  }
  ctx.b.vextracti128(xmm(kLowReg), ymm(0), 1);
  ctx.b.vpaddq(xmm(0), xmm(0), xmm(kLowReg));
  // Two 64-bit lanes left (each far below 2^63): into rax with end-around carry. r8 is
  // caller-saved and unused by the SIMD register plans.
  ctx.b.vmovq(ctx.regs.scratch, xmm(0));
  ctx.b.vpextrq(r8, xmm(0), 1);
  ctx.b.add(acc0, ctx.regs.scratch);
  ctx.b.adc(acc0, r8);
  ctx.b.adc(acc0, 0);
  ctx.b.vzeroupper();  // leave no dirty upper state for SSE code after us
}

// The AVX2 middle path (mid=N): a buffer of 1..N-1 bytes as its whole vectors, then the last
// one, 1..32 bytes, as a masked load; no loop, no pushes, one reduction. (avx512 takes
// VectorFamily's: AVX-512 masks bytes.)
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
bool AndShiftFamily::emitMidPath(EmitContext& ctx) const {
  if (zmmWide()) return VectorFamily::emitMidPath(ctx);
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
