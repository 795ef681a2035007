#include "and_shift_family.hpp"

namespace csumtune::gen::detail {

using namespace asmjit;
using namespace asmjit::x86;

namespace {
constexpr int kMaskReg = 15, kLowReg = 14, kHighReg = 13;
}  // namespace

void AndShiftFamily::emitLoopSetup(EmitContext& ctx) const {
  for (int i = 0; i < ctx.regs.vectorAccumulators; ++i) {
    // VEX-encoded xmm zeroing clears the whole zmm register.
    ctx.b.vpxor(xmm(static_cast<uint32_t>(i)), xmm(static_cast<uint32_t>(i)),
                xmm(static_cast<uint32_t>(i)));
  }
  // The 0x00000000ffffffff lane mask, built in registers: no data in .text.
  ctx.b.mov(ctx.regs.scratch.r32(), 0xffffffffu);
  ctx.b.vpbroadcastq(zmm(kMaskReg), ctx.regs.scratch);
}

void AndShiftFamily::emitVectorFrom(EmitContext& ctx, const Operand& src, int chain) const {
  const Vec acc = vec(chain), low = vec(kLowReg), high = vec(kHighReg);
  const Vec mask = vec(kMaskReg);
  const Mem& at = src.as<Mem>();
  if (!ctx.copying()) {
    // EVEX takes the memory operand in both the and and the shift.
    ctx.b.vpandq(low, mask, at);
    ctx.b.vpsrlq(high, at, 32);
  } else {
    // A copying kernel stores what it loaded: load once.
    ctx.b.vmovdqu64(high, at);
    ctx.b.vmovdqu64(ctx.storeFor(at), high);
    ctx.b.vpandq(low, mask, high);
    ctx.b.vpsrlq(high, high, 32);
  }
  ctx.b.vpaddq(acc, acc, low);
  ctx.b.vpaddq(acc, acc, high);
}

void AndShiftFamily::emitReduce(EmitContext& ctx, int accumulators) const {
  const Gp& acc0 = ctx.regs.accumulators.front();
  const Vec sum = vec(0);
  for (int i = 1; i < accumulators; ++i) ctx.b.vpaddq(sum, sum, vec(i));
  ctx.b.vextracti64x4(ymm(kLowReg), zmm(0), 1);
  ctx.b.vpaddq(ymm(0), ymm(0), ymm(kLowReg));
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
