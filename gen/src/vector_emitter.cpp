// The SIMD families (avx2: 32-byte ymm vectors, avx512: 64-byte zmm vectors).
//
// Each vector is read as 64-bit lanes; a lane's low and high 32-bit halves are added into
// 64-bit accumulator lanes (`vpand` with 0x00000000ffffffff, `vpsrlq $32`, two `vpaddq`).
// A 64-bit lane can take 2^32 such additions, more than a 2 GiB buffer has, so nothing ever
// overflows and no flag or carry is involved. The sum stays congruent mod 0xffff because
// 2^32 = 1 (mod 0xffff). Only the main loop and a one-vector remainder loop are vector code:
// buffers under 64 bytes take the scalar short path, and the last bytes below one vector the
// scalar tails, so a short buffer costs what it costs in the Linux-like loop.
//
// avx512vnni instead biases every 16-bit word to a signed one (xor 0x8000, i.e. minus 32768)
// and lets `vpdpwssd` multiply the words by 1 and add each pair into a 32-bit lane: two
// instructions per 64 bytes. A lane takes at most 32767 such additions before it could
// overflow, so every LIMIT iterations the lanes are widened (sign-extended) into a 64-bit
// accumulator; at the end the bias comes back as (bytes summed) * 2^14 (32 words of 32768
// per 64 bytes).
//
// Registers: accumulators are vector registers 0..chains-1, the mask (or bias) 15,
// temporaries 13 and 14 (VNNI: 14 holds the word ones, 12 the 64-bit accumulator): all
// below 16, so VEX can encode every AVX2 form, and all caller-saved. General-purpose: r8 in
// the reduction, and for VNNI r9 (the start pointer) and r10 (iterations to the next widening).
#include <bit>

#include "emit_context.hpp"

namespace csumtune::gen::detail {
namespace {

using namespace asmjit;
using namespace asmjit::x86;

constexpr int kMaskReg = 15, kLowReg = 14, kHighReg = 13;
constexpr int kBiasReg = 15, kOnesReg = 14, kBiasedReg = 13, kWideReg = 12;

bool isVnni(const EmitContext& ctx) {
  return ctx.params.carry == Carry::Avx512Vnni;
}
bool isAvx512(const EmitContext& ctx) {
  return ctx.params.carry == Carry::Avx512 || isVnni(ctx);
}

// Main-loop iterations between two widenings. The budget counts the vpdpwssd of all
// chains together (unroll per iteration, and up to unroll-1 more in the remainder), so that
// at a widening the chains can first be added together in 32 bits: |lane| stays under
// 32767 * 65536 < 2^31. With unroll 32 that is a widening every 2 MiB.
int vnniIterationLimit(const EmitContext& ctx) {
  return (32767 - ctx.params.unroll) / ctx.params.unroll;
}

// Adds the chains together, sign-extends the 32-bit lanes into the 64-bit lanes of
// register 12, and (unless this is the final reduction) clears the accumulators.
void emitVnniWiden(EmitContext& ctx, bool final) {
  for (int i = 1; i < ctx.regs.vectorAccumulators; ++i) {
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

Vec vec(const EmitContext& ctx, int id) {
  if (isAvx512(ctx)) return zmm(static_cast<uint32_t>(id));
  return ymm(static_cast<uint32_t>(id));
}

Mem vectorAt(const EmitContext& ctx, int disp) {
  return isAvx512(ctx) ? zmmword_ptr(ctx.regs.buffer, disp) : ymmword_ptr(ctx.regs.buffer, disp);
}

}  // namespace

void emitVectorSetup(EmitContext& ctx) {
  if (isVnni(ctx)) ctx.b.vpxor(xmm(kWideReg), xmm(kWideReg), xmm(kWideReg));
  for (int i = 0; i < ctx.regs.vectorAccumulators; ++i) {
    // VEX-encoded xmm zeroing clears the whole ymm/zmm register.
    ctx.b.vpxor(xmm(static_cast<uint32_t>(i)), xmm(static_cast<uint32_t>(i)),
                xmm(static_cast<uint32_t>(i)));
  }
  if (isVnni(ctx)) {
    // Word constants 0x8000 (bias) and 1, built in registers; the start pointer and the
    // iteration budget to the first widening.
    ctx.b.mov(ctx.regs.scratch.r32(), 0x80008000u);
    ctx.b.vpbroadcastd(zmm(kBiasReg), ctx.regs.scratch.r32());
    ctx.b.mov(ctx.regs.scratch.r32(), 0x00010001u);
    ctx.b.vpbroadcastd(zmm(kOnesReg), ctx.regs.scratch.r32());
    ctx.b.mov(r9, ctx.regs.buffer);
    ctx.b.mov(r10d, vnniIterationLimit(ctx));
    return;
  }
  // The 0x00000000ffffffff lane mask, built in registers: no data in .text.
  ctx.b.mov(ctx.regs.scratch.r32(), 0xffffffffu);
  if (isAvx512(ctx)) {
    ctx.b.vpbroadcastq(zmm(kMaskReg), ctx.regs.scratch);
  } else {
    ctx.b.vmovq(xmm(kMaskReg), ctx.regs.scratch);
    ctx.b.vpbroadcastq(ymm(kMaskReg), xmm(kMaskReg));
  }
}

void emitVector(EmitContext& ctx, int disp, int chain) {
  if (isVnni(ctx)) {
    ctx.b.vpxorq(zmm(kBiasedReg), zmm(kBiasReg), vectorAt(ctx, disp));
    ctx.b.vpdpwssd(zmm(static_cast<uint32_t>(chain)), zmm(kBiasedReg), zmm(kOnesReg));
    return;
  }
  const Vec acc = vec(ctx, chain), low = vec(ctx, kLowReg), high = vec(ctx, kHighReg);
  const Vec mask = vec(ctx, kMaskReg);
  if (isAvx512(ctx)) {
    // EVEX takes the memory operand in both the and and the shift.
    ctx.b.vpandq(low, mask, vectorAt(ctx, disp));
    ctx.b.vpsrlq(high, vectorAt(ctx, disp), 32);
  } else {
    // VEX shifts by an immediate only from a register: load once.
    ctx.b.vmovdqu(high, vectorAt(ctx, disp));
    ctx.b.vpand(low, mask, high);
    ctx.b.vpsrlq(high, high, 32);
  }
  ctx.b.vpaddq(acc, acc, low);
  ctx.b.vpaddq(acc, acc, high);
}

void emitVectorBody(EmitContext& ctx) {
  const int unit = traitsOf(ctx.params.carry).unitBytes;
  for (int v = 0; v < ctx.params.unroll; ++v) emitVector(ctx, v * unit, v % ctx.params.chains);
}

void emitVectorAfterIteration(EmitContext& ctx) {
  if (!isVnni(ctx)) return;
  Label skip = ctx.b.newLabel();
  ctx.b.dec(r10d);
  ctx.b.jnz(skip);
  emitVnniWiden(ctx, false);
  ctx.b.mov(r10d, vnniIterationLimit(ctx));
  ctx.b.bind(skip);
}

void emitVectorRemainder(EmitContext& ctx) {
  // The whole vectors left (fewer than one block), tested bit by bit from the largest power
  // of two, each run spread over the chains: straight-line code, independent chains.
  const int unit = traitsOf(ctx.params.carry).unitBytes;
  const int top =
      static_cast<int>(std::bit_floor(static_cast<unsigned>(ctx.params.blockBytes() - 1)));
  for (int bytes = top; bytes >= unit; bytes /= 2) {
    Label skip = ctx.b.newLabel();
    ctx.b.test(ctx.regs.remaining.r32(), bytes);
    ctx.b.jz(skip);
    for (int v = 0; v < bytes / unit; ++v) emitVector(ctx, v * unit, v % ctx.params.chains);
    ctx.b.add(ctx.regs.buffer, bytes);
    ctx.b.bind(skip);
  }
}

void emitVectorReduce(EmitContext& ctx) {
  const Gp& acc0 = ctx.regs.accumulators.front();
  if (isVnni(ctx)) {
    emitVnniWiden(ctx, true);
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
    return;
  }
  const Vec sum = vec(ctx, 0);
  for (int i = 1; i < ctx.regs.vectorAccumulators; ++i) ctx.b.vpaddq(sum, sum, vec(ctx, i));
  if (isAvx512(ctx)) {
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

}  // namespace csumtune::gen::detail
