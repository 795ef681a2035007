// carry=adc: `chains` blocks of unroll/chains words, each an add...adc $0 flag chain on its
// own accumulator. Blocks follow each other in program order (there is only one CF), but each
// starts with `add`, which writes every flag and so depends on no earlier one: the CPU runs
// the blocks in parallel (the 2013 thread's finding). How many blocks pay, and against which
// other family, depends on the CPU: that is what tune measures (results/ keeps the figures).
#include "../emit_context.hpp"

namespace csumtune::gen::detail {
namespace {

constexpr CarryTraits kTraits{
    Carry::Adc, "adc", "one CF chain per add...adc $0 block; blocks overlap", 8, false, {}};

class AdcFamily final : public CarryFamily {
 public:
  AdcFamily() : CarryFamily(kTraits) {}
  void emitBody(EmitContext& ctx) const override {
    const int words = ctx.params.unroll / ctx.params.chains;
    for (int c = 0; c < ctx.params.chains; ++c) {
      emitAddAdcBlock(ctx, ctx.regs.accumulators[static_cast<std::size_t>(c)], c * words * 8,
                      words);
    }
  }
};

}  // namespace

const CarryFamily& adcFamily() {
  static const AdcFamily family;
  return family;
}

}  // namespace csumtune::gen::detail
