// carry=add32: 32-bit zero-extending loads added into 64-bit accumulators. No carry can leave
// 64 bits (at most 2^29 dwords per call), so there are no flag chains at all. Dword d goes to
// accumulator d mod chains.
#include "../emit_context.hpp"

namespace csumtune::gen::detail {
namespace {

constexpr CarryTraits kTraits{
    Carry::Add32, "add32", "32-bit loads added into 64-bit accumulators, no carries", 8, false, {}};

class Add32Family final : public CarryFamily {
 public:
  Add32Family() : CarryFamily(kTraits) {}
  void emitBody(EmitContext& ctx) const override {
    const auto& scratch = ctx.regs.scratch;
    const int dwords = ctx.params.unroll * 2;
    for (int d = 0; d < dwords; ++d) {
      emitLoad(ctx, scratch, ctx.dword(4 * d));
      ctx.b.add(ctx.regs.accumulators[static_cast<std::size_t>(d % ctx.params.chains)], scratch);
    }
  }
};

}  // namespace

const CarryFamily& add32Family() {
  static const Add32Family family;
  return family;
}

}  // namespace csumtune::gen::detail
