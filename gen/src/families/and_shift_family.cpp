#include "and_shift_family.hpp"

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

bool AndShiftFamily::emitMidPath(EmitContext& ctx) const {
  if (zmmWide()) return VectorFamily::emitMidPath(ctx);
  return emitDwordMaskedMidPath(ctx);
}

}  // namespace csumtune::gen::detail
