// carry=adcx: pairs of accumulators. adcx carries through CF only, adox through OF only, so
// two chains interleave in one block. Each pair block starts with `xor scratch, scratch`
// (clears CF and OF, and makes the zero the closing adcx/adox add) and closes both chains at
// its end. Needs ADX and an even chain count.
#include <array>

#include "../emit_context.hpp"

namespace csumtune::gen::detail {
namespace {

using namespace asmjit::x86;

constexpr std::array kFeatures{CpuFeature::Adx};
constexpr CarryTraits kTraits{Carry::Adcx, "adcx", "CF (adcx) and OF (adox) chains in pairs",
                              8,           true,   kFeatures};

class AdcxFamily final : public CarryFamily {
 public:
  AdcxFamily() : CarryFamily(kTraits) {}
  void emitBody(EmitContext& ctx) const override {
    const int pairs = ctx.params.chains / 2;
    const int wordsPerPair = ctx.params.unroll / pairs;
    const Gp& zero = ctx.regs.scratch;
    for (int p = 0; p < pairs; ++p) {
      const Gp& cfAcc = ctx.regs.accumulators[static_cast<std::size_t>(2 * p)];
      const Gp& ofAcc = ctx.regs.accumulators[static_cast<std::size_t>(2 * p + 1)];
      const int base = p * wordsPerPair * 8;
      ctx.b.xor_(zero.r32(), zero.r32());
      for (int w = 0; w < wordsPerPair; ++w) {
        if (w % 2 == 0) {
          emitSumWord(ctx, Inst::kIdAdcx, cfAcc, ctx.qword(base + 8 * w));
        } else {
          emitSumWord(ctx, Inst::kIdAdox, ofAcc, ctx.qword(base + 8 * w));
        }
      }
      ctx.b.adcx(cfAcc, zero);
      ctx.b.adox(ofAcc, zero);
    }
  }
};

}  // namespace

const CarryFamily& adcxFamily() {
  static const AdcxFamily family;
  return family;
}

}  // namespace csumtune::gen::detail
