// carry=avx2 (user space): 32-byte ymm vectors. Every 16-bit word is biased to a signed one
// (xor 0x8000, i.e. minus 32768) and `vpmaddwd` with a vector of word ones adds each pair into
// a 32-bit lane, which `vpaddd` adds to the chain: three vector instructions per 32 bytes, the
// load folded into the xor. Halves of 64-bit lanes added into 64-bit lanes (the avx512 way,
// and_shift_family.hpp) take four, and without a memory operand for the VEX shift, a separate
// load: the vector ALUs, not the loads, bound that loop on AVX2 machines.
//
// A lane takes at most 32767 pair sums (each in [-65536, 65534]) before it could overflow, so
// every LIMIT iterations the chains are added together and widened (sign-extended) into a
// 64-bit accumulator; at the end the bias comes back as (bytes summed) * 2^14 (16 words of
// 32768 per 32 bytes), counted from the start pointer.
//
// Registers: ymm15 holds the bias, 14 the word ones, 13 the biased vector, 12 the 64-bit
// accumulator, 10 and 11 the middle path's mask and last vector; general-purpose r9 the start
// pointer, r8 the iterations to the next widening (a temporary of the reduction after the
// loop); all caller-saved, unused by the SIMD register plans, r10 and r11 left to a copy.
#include <algorithm>
#include <array>

#include "vector_family.hpp"

namespace csumtune::gen::detail {
namespace {

using namespace asmjit;
using namespace asmjit::x86;

constexpr std::array kFeatures{CpuFeature::Avx2};
constexpr CarryTraits kTraits{
    Carry::Avx2,
    "avx2",
    "AVX2: words biased to signed, summed in pairs by vpmaddwd into 32-bit lanes (user space)",
    32,
    false,
    kFeatures};

constexpr int kBiasReg = 15, kOnesReg = 14, kBiasedReg = 13, kWideReg = 12;
constexpr int kMidMaskReg = 10, kMidLastReg = 11;

class Avx2Family final : public VectorFamily {
 public:
  Avx2Family() : VectorFamily(kTraits) {}

  void emitLoopSetup(EmitContext& ctx) const override {
    emitSetup(ctx, ctx.regs.vectorAccumulators);
    ctx.b.mov(r8d, iterationLimit(ctx));
  }

  void emitAfterIteration(EmitContext& ctx) const override {
    Label skip = ctx.b.newLabel();
    ctx.b.dec(r8d);
    ctx.b.jnz(skip);
    widen(ctx, ctx.regs.vectorAccumulators);
    ctx.b.mov(r8d, iterationLimit(ctx));
    ctx.b.bind(skip);
  }

  bool emitMidPath(EmitContext& ctx) const override;

 protected:
  void emitVectorFrom(EmitContext& ctx, const Operand& src, int chain) const override {
    const Vec biased = ymm(kBiasedReg);
    if (ctx.copying()) {
      // A copy stores what it loaded: the bytes as they are, then biased in the register.
      const Mem& at = src.as<Mem>();
      ctx.b.vmovdqu(biased, at);
      ctx.b.vmovdqu(ctx.storeFor(at), biased);
      ctx.b.vpxor(biased, biased, ymm(kBiasReg));
    } else {
      ctx.b.emit(Inst::kIdVpxor, biased, ymm(kBiasReg), src);
    }
    ctx.b.vpmaddwd(biased, biased, ymm(kOnesReg));
    ctx.b.vpaddd(ymm(static_cast<uint32_t>(chain)), ymm(static_cast<uint32_t>(chain)), biased);
  }

  void emitReduce(EmitContext& ctx, int accumulators) const override {
    const Gp& acc0 = ctx.regs.accumulators.front();
    for (int i = 1; i < accumulators; ++i) {
      const uint32_t r = static_cast<uint32_t>(i);
      ctx.b.vpaddd(ymm(0), ymm(0), ymm(r));
    }
    // The two halves sign-extended side by side, then the 64-bit accumulator and one fold.
    ctx.b.vextracti128(xmm(kBiasedReg), ymm(0), 1);
    ctx.b.vpmovsxdq(ymm(0), xmm(0));
    ctx.b.vpmovsxdq(ymm(kBiasedReg), xmm(kBiasedReg));
    ctx.b.vpaddq(ymm(0), ymm(0), ymm(kBiasedReg));
    ctx.b.vpaddq(ymm(0), ymm(0), ymm(kWideReg));
    ctx.b.vextracti128(xmm(kBiasedReg), ymm(0), 1);
    ctx.b.vpaddq(xmm(0), xmm(0), xmm(kBiasedReg));
    // The bias back, -(bytes summed) << 14 in r9, while the vectors fold: the exact unsigned
    // sum is the signed lanes minus it.
    ctx.b.sub(r9, ctx.regs.buffer);
    ctx.b.shl(r9, 14);
    ctx.b.vmovq(ctx.regs.scratch, xmm(0));
    ctx.b.vpextrq(r8, xmm(0), 1);
    ctx.b.add(ctx.regs.scratch, r8);
    ctx.b.sub(ctx.regs.scratch, r9);
    ctx.b.add(acc0, ctx.regs.scratch);
    ctx.b.adc(acc0, 0);
    ctx.b.vzeroupper();  // leave no dirty upper state for SSE code after us
  }

 private:
  // Main-loop iterations between two widenings. The budget counts the pair sums of all chains
  // together (unroll per iteration, and up to unroll-1 more in the ladder after the loop), so
  // that at a widening the chains can first be added together in 32 bits: |lane| stays under
  // 32767 * 65536 < 2^31. With unroll 32 that is a widening every 1 MiB.
  static int iterationLimit(const EmitContext& ctx) {
    return (32767 - ctx.params.unroll) / ctx.params.unroll;
  }

  // The first `accumulators` chains and the 64-bit accumulator zeroed, the word constants
  // 0x8000 (bias) and 1 built in registers (no data in .text), the start pointer in r9: the
  // loop's set-up and the middle path's.
  static void emitSetup(EmitContext& ctx, int accumulators) {
    for (int i = 0; i < accumulators; ++i) {
      // VEX-encoded xmm zeroing clears the whole ymm register.
      const uint32_t r = static_cast<uint32_t>(i);
      ctx.b.vpxor(xmm(r), xmm(r), xmm(r));
    }
    ctx.b.vpxor(xmm(kWideReg), xmm(kWideReg), xmm(kWideReg));
    // All ones, shifted: word 0x8000 and word 1 in two cycles, without a trip through a
    // general-purpose register.
    ctx.b.vpcmpeqd(ymm(kOnesReg), ymm(kOnesReg), ymm(kOnesReg));
    ctx.b.vpsllw(ymm(kBiasReg), ymm(kOnesReg), 15);
    ctx.b.vpsrlw(ymm(kOnesReg), ymm(kOnesReg), 15);
    ctx.b.mov(r9, ctx.regs.buffer);
  }

  // In the loop, every LIMIT iterations: the chains added together, their 32-bit lanes
  // sign-extended into the 64-bit lanes of ymm12, and cleared.
  static void widen(EmitContext& ctx, int accumulators) {
    for (int i = 1; i < accumulators; ++i) {
      const uint32_t r = static_cast<uint32_t>(i);
      ctx.b.vpaddd(ymm(0), ymm(0), ymm(r));
      ctx.b.vpxor(xmm(r), xmm(r), xmm(r));
    }
    ctx.b.vpmovsxdq(ymm(kBiasedReg), xmm(0));
    ctx.b.vpaddq(ymm(kWideReg), ymm(kWideReg), ymm(kBiasedReg));
    ctx.b.vextracti128(xmm(kBiasedReg), ymm(0), 1);
    ctx.b.vpmovsxdq(ymm(kBiasedReg), xmm(kBiasedReg));
    ctx.b.vpaddq(ymm(kWideReg), ymm(kWideReg), ymm(kBiasedReg));
    ctx.b.vpxor(xmm(0), xmm(0), xmm(0));
  }
};

// The middle path (mid=N): a buffer of 1..N-1 bytes as its whole vectors, then the last one,
// 1..32 bytes, as a masked load; no loop, no pushes, one reduction.
//
//   ecx = len - 1: its bits 32..N/2 are the bytes of the whole vectors before the last one
//   for each such bit, largest first: if set, that many bytes of vectors, pointer += bytes
//   the last vector's whole dwords, masked, from the pointer; biased, the masked-out dwords
//   cleared again (the bias is taken back only for the bytes the pointer passed)
//   reduce into rax (vzeroupper); the last len & 3 bytes: the frame's byte tail
//
// AVX2 has no byte-masked load. It takes the last vector's whole dwords with vpmaskmovd
// (Intel documents that a masked-out dword never faults, AMD's manual calls it implementation
// dependent: a window that crosses a page is summed dword by dword instead, so none is ever on
// a page without a byte of the buffer) and leaves its last len & 3 bytes to the frame's own
// byte tail — one load with bounds=aligned, the 4-2-1 ladder or the overlapping word
// otherwise. Why not a full vector load and a byte mask with bounds=aligned: the last vector
// starts at a multiple of 32 from buf, not of 32 in memory, so its full load reaches into the
// next aligned 32-byte block whenever buf is not aligned (a byte outside every block the
// buffer touches: the contract forbids it, and it may be on an unmapped page); loading the
// aligned block that holds the last byte instead puts the bytes at other lanes than their
// word positions, and AVX2 has no cheap byte shift across its two 128-bit halves to bring
// them back. vpmaskmovd keeps the code the same under both bounds forms, and the byte tail it
// leaves is the one the frame already proves.
bool Avx2Family::emitMidPath(EmitContext& ctx) const {
  const int unit = traits().unitBytes;
  const int accs = std::min(ctx.params.chains, 2);
  const Gp& buffer = ctx.regs.buffer;
  const Gp& count = ctx.regs.remaining;
  emitSetup(ctx, accs);
  ctx.b.lea(ecx, ptr(count, -1));
  for (int bytes = ctx.params.mid / 2; bytes >= unit; bytes /= 2) {
    Label skip = ctx.b.newLabel();
    ctx.b.test(ecx, bytes);
    ctx.b.jz(skip);
    for (int v = 0; v < bytes / unit; ++v) emitVector(ctx, v * unit, v % accs);
    ctx.b.add(buffer, bytes);
    ctx.b.bind(skip);
  }
  const Vec last = ymm(kMidLastReg), mask = ymm(kMidMaskReg), biased = ymm(kBiasedReg);
  // ecx = r, the last vector's bytes (1..32); dword i is loaded when r >= 4i + 4, i.e. when
  // r > 4i + 3: the bytes 3, 7, .., 31 zero-extended to dwords, compared with r.
  // A window [pointer, pointer + 32) that crosses a 4 KiB page takes its whole dwords one by
  // one instead (31 start offsets of 4096): so no masked-out dword is ever on a page that
  // holds no byte of the buffer, and vpmaskmovd cannot fault however an implementation treats
  // them (qemu-user's TCG faults on one on an unmapped page).
  Label crossing = ctx.b.newLabel(), dwords = ctx.b.newLabel(), joined = ctx.b.newLabel();
  ctx.b.and_(ecx, unit - 1);
  ctx.b.inc(ecx);
  ctx.b.mov(r8d, buffer.r32());
  ctx.b.and_(r8d, 4095);
  ctx.b.cmp(r8d, 4096 - unit + 1);
  ctx.b.jae(crossing);
  ctx.b.vmovd(xmm(kMidMaskReg), ecx);
  ctx.b.vpbroadcastd(mask, xmm(kMidMaskReg));
  ctx.b.mov(r8, 0x1f1b17130f0b0703);
  ctx.b.vmovq(xmm(kMidLastReg), r8);
  ctx.b.vpmovzxbd(last, xmm(kMidLastReg));
  ctx.b.vpcmpgtd(mask, mask, last);
  ctx.b.vpmaskmovd(last, mask, ymmword_ptr(buffer));
  // The masked-out dwords are zeros, and biased they would count as -65536 each: cleared.
  ctx.b.vpxor(biased, last, ymm(kBiasReg));
  ctx.b.vpand(biased, biased, mask);
  ctx.b.vpmaddwd(biased, biased, ymm(kOnesReg));
  ctx.b.vpaddd(ymm(static_cast<uint32_t>(accs - 1)), ymm(static_cast<uint32_t>(accs - 1)), biased);
  // The pointer past the whole dwords, the byte count down to the len & 3 bytes left.
  ctx.b.and_(ecx, -4);
  ctx.b.add(buffer, rcx);
  ctx.b.jmp(joined);
  ctx.b.bind(crossing);
  // The r >> 2 whole dwords into rax, each closed by adc $0 (rdx is free: the constants are
  // built). They are not biased: the start pointer moves past them with the pointer, so that
  // the reduction takes the bias back only for the vectors before them.
  const Gp& word = ctx.regs.scratch;
  ctx.b.shr(ecx, 2);
  ctx.b.jz(joined);
  ctx.b.bind(dwords);
  ctx.b.mov(word.r32(), dword_ptr(buffer));
  ctx.b.add(ctx.regs.accumulators.front(), word);
  ctx.b.adc(ctx.regs.accumulators.front(), 0);
  ctx.b.add(buffer, 4);
  ctx.b.add(r9, 4);
  ctx.b.dec(ecx);
  ctx.b.jnz(dwords);
  ctx.b.bind(joined);
  ctx.b.and_(count.r32(), 3);
  emitReduce(ctx, accs);
  return true;
}

}  // namespace

const CarryFamily& avx2Family() {
  static const Avx2Family family;
  return family;
}

}  // namespace csumtune::gen::detail
