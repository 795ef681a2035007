// carry=avx512vnni (user space): every 16-bit word is biased to a signed one (xor 0x8000,
// i.e. minus 32768) and `vpdpwssd` with a vector of word ones adds each pair into a 32-bit
// lane: two instructions per 64 bytes. A lane takes at most 32767 such additions before it
// could overflow, so every LIMIT iterations the lanes are widened (sign-extended) into a
// 64-bit accumulator; at the end the bias comes back as (bytes summed) * 2^14 (32 words of
// 32768 per 64 bytes).
//
// Registers: 15 holds the bias, 14 the word ones, 13 the biased vector, 12 the 64-bit
// accumulator; general-purpose r9 the start pointer, r10 the iterations to the next
// widening, r8 a temporary of the reduction (all caller-saved, unused by the SIMD plans).
#include <array>

#include "vector_family.hpp"

namespace csumtune::gen::detail {
namespace {

using namespace asmjit;
using namespace asmjit::x86;

constexpr std::array kFeatures{CpuFeature::Avx512F, CpuFeature::Avx512Vnni};
constexpr CarryTraits kTraits{
    Carry::Avx512Vnni,
    "avx512vnni",
    "AVX-512 VNNI: words biased to signed, summed in pairs by vpdpwssd (user space)",
    64,
    false,
    kFeatures};

constexpr int kBiasReg = 15, kOnesReg = 14, kBiasedReg = 13, kWideReg = 12;

class Avx512VnniFamily final : public VectorFamily {
 public:
  Avx512VnniFamily() : VectorFamily(kTraits) {}

  void emitLoopSetup(EmitContext& ctx) const override {
    ctx.b.vpxor(xmm(kWideReg), xmm(kWideReg), xmm(kWideReg));
    for (int i = 0; i < ctx.regs.vectorAccumulators; ++i) {
      // VEX-encoded xmm zeroing clears the whole zmm register.
      ctx.b.vpxor(xmm(static_cast<uint32_t>(i)), xmm(static_cast<uint32_t>(i)),
                  xmm(static_cast<uint32_t>(i)));
    }
    // The word constants; the start pointer and the iteration budget to the first widening.
    emitWordConstants(ctx);
    ctx.b.mov(r9, ctx.regs.buffer);
    ctx.b.mov(r10d, iterationLimit(ctx));
  }

  void emitAfterIteration(EmitContext& ctx) const override {
    Label skip = ctx.b.newLabel();
    ctx.b.dec(r10d);
    ctx.b.jnz(skip);
    widen(ctx, false, ctx.regs.vectorAccumulators);
    ctx.b.mov(r10d, iterationLimit(ctx));
    ctx.b.bind(skip);
  }

 protected:
  void emitVectorFrom(EmitContext& ctx, const Operand& src, int chain) const override {
    ctx.b.emit(Inst::kIdVpxorq, zmm(kBiasedReg), zmm(kBiasReg), src);
    ctx.b.vpdpwssd(zmm(static_cast<uint32_t>(chain)), zmm(kBiasedReg), zmm(kOnesReg));
  }

  void emitReduce(EmitContext& ctx, int accumulators) const override {
    const Gp& acc0 = ctx.regs.accumulators.front();
    widen(ctx, true, accumulators);
    ctx.b.vextracti64x4(ymm(kBiasedReg), zmm(kWideReg), 1);
    ctx.b.vpaddq(ymm(kWideReg), ymm(kWideReg), ymm(kBiasedReg));
    ctx.b.vextracti128(xmm(kBiasedReg), ymm(kWideReg), 1);
    ctx.b.vpaddq(xmm(kWideReg), xmm(kWideReg), xmm(kBiasedReg));
    // The exact unsigned sum: the signed lanes plus the bias, (bytes summed) << 14.
    ctx.b.vmovq(ctx.regs.scratch, xmm(kWideReg));
    ctx.b.vpextrq(r8, xmm(kWideReg), 1);
    ctx.b.add(ctx.regs.scratch, r8);
    ctx.b.mov(r8, ctx.regs.buffer);
    ctx.b.sub(r8, r9);
    ctx.b.shl(r8, 14);
    ctx.b.add(ctx.regs.scratch, r8);
    ctx.b.add(acc0, ctx.regs.scratch);
    ctx.b.adc(acc0, 0);
    ctx.b.vzeroupper();
  }

 private:
  // Main-loop iterations between two widenings. The budget counts the vpdpwssd of all
  // chains together (unroll per iteration, and up to unroll-1 more in the remainder), so
  // that at a widening the chains can first be added together in 32 bits: |lane| stays
  // under 32767 * 65536 < 2^31. With unroll 32 that is a widening every 2 MiB.
  static int iterationLimit(const EmitContext& ctx) {
    return (32767 - ctx.params.unroll) / ctx.params.unroll;
  }

  // Word constants 0x8000 (bias) and 1, built in registers (no data in .text).
  static void emitWordConstants(EmitContext& ctx) {
    ctx.b.mov(ctx.regs.scratch.r32(), 0x80008000u);
    ctx.b.vpbroadcastd(zmm(kBiasReg), ctx.regs.scratch.r32());
    ctx.b.mov(ctx.regs.scratch.r32(), 0x00010001u);
    ctx.b.vpbroadcastd(zmm(kOnesReg), ctx.regs.scratch.r32());
  }

  // Adds the chains (the first `accumulators`: all of them but in the middle path) together,
  // sign-extends the 32-bit lanes into the 64-bit lanes of register 12, and (unless this is
  // the final reduction) clears the accumulators.
  static void widen(EmitContext& ctx, bool final, int accumulators) {
    for (int i = 1; i < accumulators; ++i) {
      const uint32_t r = static_cast<uint32_t>(i);
      ctx.b.vpaddd(zmm(0), zmm(0), zmm(r));
      if (!final) ctx.b.vpxor(xmm(r), xmm(r), xmm(r));
    }
    ctx.b.vpmovsxdq(zmm(kBiasedReg), ymm(0));
    ctx.b.vpaddq(zmm(kWideReg), zmm(kWideReg), zmm(kBiasedReg));
    ctx.b.vextracti64x4(ymm(kBiasedReg), zmm(0), 1);
    ctx.b.vpmovsxdq(zmm(kBiasedReg), ymm(kBiasedReg));
    ctx.b.vpaddq(zmm(kWideReg), zmm(kWideReg), zmm(kBiasedReg));
    if (!final) ctx.b.vpxor(xmm(0), xmm(0), xmm(0));
  }
};

}  // namespace

const CarryFamily& avx512VnniFamily() {
  static const Avx512VnniFamily family;
  return family;
}

}  // namespace csumtune::gen::detail
