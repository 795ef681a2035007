// carry=cmov: add into the accumulator, then keep its carry by moving counter+1 into the
// counter when CF is set: `lea 1(cnt), t; add m, acc; cmovc t, cnt`. No flag lives longer
// than the one instruction after the add. Word w goes to accumulator w mod chains; with
// more chains than free registers, accumulators share counters round-robin.
#include "../emit_context.hpp"

namespace csumtune::gen::detail {
namespace {

using namespace asmjit::x86;

constexpr CarryTraits kTraits{
    Carry::Cmov, "cmov", "add, then cmovc a carry counter: one-instruction flag chains",
    8,           false,  {}};

class CmovFamily final : public CarryFamily {
 public:
  CmovFamily() : CarryFamily(kTraits) {}
  RegisterNeeds registerNeeds(const Params& params) const override {
    return {params.chains, true, 0};
  }
  void emitBody(EmitContext& ctx) const override {
    const Gp& scratch = ctx.regs.scratch;
    const auto& counters = ctx.regs.carryCounters;
    for (int w = 0; w < ctx.params.unroll; ++w) {
      const auto chain = static_cast<std::size_t>(w % ctx.params.chains);
      const Gp& counter = counters[chain % counters.size()];
      ctx.b.lea(scratch, ptr(counter, 1));
      emitSumWord(ctx, Inst::kIdAdd, ctx.regs.accumulators[chain], ctx.qword(8 * w));
      ctx.b.cmovc(counter, scratch);
    }
  }
};

}  // namespace

const CarryFamily& cmovFamily() {
  static const CmovFamily family;
  return family;
}

}  // namespace csumtune::gen::detail
