// One main-loop iteration per carry family. Each body reads exactly blockBytes() bytes at
// [buffer, buffer + block) and leaves no carry pending in the flags, so the loop control
// after it is free to write them.
#include "emit_context.hpp"

namespace csumtune::gen::detail {
namespace {

using namespace asmjit;
using namespace asmjit::x86;

// `chains` blocks of unroll/chains words, each an add...adc $0 flag chain on its own
// accumulator. Blocks follow each other in program order (there is only one CF), but each
// starts with `add`, which writes every flag and so depends on no earlier one: the CPU
// runs the blocks in parallel. (The 2013 thread's finding, and ANCHORS' fastest shape.)
void emitAdcBody(EmitContext& ctx) {
  const int words = ctx.params.unroll / ctx.params.chains;
  for (int c = 0; c < ctx.params.chains; ++c) {
    emitAddAdcBlock(ctx, ctx.regs.accumulators[static_cast<std::size_t>(c)], c * words * 8, words);
  }
}

// Pairs of accumulators: adcx carries through CF only, adox through OF only, so two chains
// interleave in one block. Each pair block starts with `xor scratch, scratch` (clears CF
// and OF, makes the zero the closing adcx/adox add) and closes both chains at its end.
void emitAdcxBody(EmitContext& ctx) {
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
        ctx.b.adcx(cfAcc, ctx.qword(base + 8 * w));
      } else {
        ctx.b.adox(ofAcc, ctx.qword(base + 8 * w));
      }
    }
    ctx.b.adcx(cfAcc, zero);
    ctx.b.adox(ofAcc, zero);
  }
}

// 32-bit zero-extending loads added into 64-bit accumulators: no carry can leave 64 bits
// (at most 2^29 dwords per call), so there are no flag chains at all. Dword d goes to
// accumulator d mod chains.
void emitAdd32Body(EmitContext& ctx) {
  const Gp& scratch = ctx.regs.scratch;
  const int dwords = ctx.params.unroll * 2;
  for (int d = 0; d < dwords; ++d) {
    ctx.b.mov(scratch.r32(), ctx.dword(4 * d));
    ctx.b.add(ctx.regs.accumulators[static_cast<std::size_t>(d % ctx.params.chains)], scratch);
  }
}

// add into the accumulator, then keep its carry by moving counter+1 into the counter when
// CF is set: `lea 1(cnt), t; add m, acc; cmovc t, cnt`. No flag lives longer than the one
// instruction after the add. Word w goes to accumulator w mod chains.
void emitCmovBody(EmitContext& ctx) {
  const Gp& scratch = ctx.regs.scratch;
  const auto& counters = ctx.regs.carryCounters;
  for (int w = 0; w < ctx.params.unroll; ++w) {
    const auto chain = static_cast<std::size_t>(w % ctx.params.chains);
    const Gp& counter = counters[chain % counters.size()];
    ctx.b.lea(scratch, ptr(counter, 1));
    ctx.b.add(ctx.regs.accumulators[chain], ctx.qword(8 * w));
    ctx.b.cmovc(counter, scratch);
  }
}

}  // namespace

void emitMainLoopBody(EmitContext& ctx) {
  switch (ctx.params.carry) {
    case Carry::Adc:
      return emitAdcBody(ctx);
    case Carry::Adcx:
      return emitAdcxBody(ctx);
    case Carry::Add32:
      return emitAdd32Body(ctx);
    case Carry::Cmov:
      return emitCmovBody(ctx);
    case Carry::Avx2:
    case Carry::Avx512:
    case Carry::Avx512Vnni:
      return emitVectorBody(ctx);
  }
  throw CodegenError("no loop body for carry=" + std::string(toString(ctx.params.carry)));
}

}  // namespace csumtune::gen::detail
