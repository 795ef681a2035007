// carry=avx2 (user space): 32-byte ymm vectors, in one of two forms (key vsum):
//   halves (the default, the code every avx2 string named before the key): 32-bit halves of
//     64-bit lanes into 64-bit accumulators (and_shift_family.hpp), 5 instructions per vector:
//     VEX cannot shift a memory operand, so each vector is loaded on its own;
//   madd: words biased to signed and summed in pairs by vpmaddwd into 32-bit lanes
//     (word_pairs_family.hpp), 3 instructions per vector, the load folded into the bias.
// The space searches madd: the vector ALUs bound the halves loop at under half the vector
// load rate.
#include <array>

#include "and_shift_family.hpp"
#include "word_pairs_family.hpp"

namespace csumtune::gen::detail {
namespace {

constexpr std::array kFeatures{CpuFeature::Avx2};
constexpr CarryTraits kTraits{
    Carry::Avx2,
    "avx2",
    "AVX2: 32-bit halves of 64-bit lanes into 64-bit accumulators (user space)",
    32,
    false,
    kFeatures};

// Each call goes to the form the kernel's params name.
class Avx2Family final : public CarryFamily {
 public:
  Avx2Family() : CarryFamily(kTraits), halves_(kTraits), pairs_(kTraits) {}

  RegisterNeeds registerNeeds(const Params& params) const override {
    return form(params).registerNeeds(params);
  }
  void emitLoopSetup(EmitContext& ctx) const override { form(ctx.params).emitLoopSetup(ctx); }
  void emitBody(EmitContext& ctx) const override { form(ctx.params).emitBody(ctx); }
  void emitAfterIteration(EmitContext& ctx) const override {
    form(ctx.params).emitAfterIteration(ctx);
  }
  void emitAfterLoop(EmitContext& ctx) const override { form(ctx.params).emitAfterLoop(ctx); }
  int scalarTailTop(const Params& params) const override {
    return form(params).scalarTailTop(params);
  }
  bool emitMidPath(EmitContext& ctx) const override { return form(ctx.params).emitMidPath(ctx); }
  bool midPathStandsAlone(const Params& params) const override {
    return form(params).midPathStandsAlone(params);
  }

 private:
  const CarryFamily& form(const Params& params) const {
    if (params.vsum == VectorSum::Madd) return pairs_;
    return halves_;
  }

  AndShiftFamily halves_;
  WordPairsFamily pairs_;
};

}  // namespace

const CarryFamily& avx2Family() {
  static const Avx2Family family;
  return family;
}

}  // namespace csumtune::gen::detail
