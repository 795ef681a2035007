#include "word_pairs_family.hpp"

namespace csumtune::gen::detail {

using namespace asmjit;
using namespace asmjit::x86;

namespace {

constexpr int kBiasReg = 15, kOnesReg = 14, kBiasedReg = 13, kWideReg = 12;

// Main-loop iterations between two widenings. The budget counts the pair sums of all chains
// together (unroll per iteration, and up to unroll-1 more in the ladder after the loop), so
// that at a widening the chains can first be added together in 32 bits: |lane| stays under
// 32767 * 65536 < 2^31. With unroll 32 that is a widening every 1 MiB.
int iterationLimit(const EmitContext& ctx) {
  return (32767 - ctx.params.unroll) / ctx.params.unroll;
}

// In the loop, every LIMIT iterations: the chains added together, their 32-bit lanes
// sign-extended into the 64-bit lanes of ymm12, and cleared.
void widen(EmitContext& ctx, int accumulators) {
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

// One biased vector (in ymm13) into accumulator `chain`.
void emitPairSums(EmitContext& ctx, int chain) {
  const Vec biased = ymm(kBiasedReg), acc = ymm(static_cast<uint32_t>(chain));
  ctx.b.vpmaddwd(biased, biased, ymm(kOnesReg));
  ctx.b.vpaddd(acc, acc, biased);
}

}  // namespace

void WordPairsFamily::emitLoopSetup(EmitContext& ctx) const {
  emitMidSetup(ctx, ctx.regs.vectorAccumulators);
  ctx.b.mov(r8d, iterationLimit(ctx));
}

void WordPairsFamily::emitAfterIteration(EmitContext& ctx) const {
  Label skip = ctx.b.newLabel();
  ctx.b.dec(r8d);
  ctx.b.jnz(skip);
  widen(ctx, ctx.regs.vectorAccumulators);
  ctx.b.mov(r8d, iterationLimit(ctx));
  ctx.b.bind(skip);
}

// The chains and the 64-bit accumulator zeroed, the word constants 0x8000 (bias) and 1 built
// in registers (no data in .text), the start pointer in r9: the loop's set-up and the middle
// path's.
void WordPairsFamily::emitMidSetup(EmitContext& ctx, int accumulators) const {
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

void WordPairsFamily::emitVectorFrom(EmitContext& ctx, const Operand& src, int chain) const {
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
  emitPairSums(ctx, chain);
}

// The masked-out dwords are zeros, and biased they would count as -65536 each: cleared after
// the bias (the correction counts only the bytes the pointer passes, the whole dwords).
void WordPairsFamily::emitMaskedLastVector(EmitContext& ctx, const Vec& last, const Vec& mask,
                                           int chain) const {
  const Vec biased = ymm(kBiasedReg);
  ctx.b.vpxor(biased, last, ymm(kBiasReg));
  ctx.b.vpand(biased, biased, mask);
  emitPairSums(ctx, chain);
}

// A page-crossing last vector's dwords are added unbiased: the start pointer passes them with
// the pointer, so that the correction leaves them out.
void WordPairsFamily::emitDwordSummedApart(EmitContext& ctx) const {
  ctx.b.add(r9, 4);
}

void WordPairsFamily::emitReduce(EmitContext& ctx, int accumulators) const {
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

}  // namespace csumtune::gen::detail
