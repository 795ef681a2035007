// The shape of every kernel, whatever its carry family:
//
//   eax = sum; if (len <= 0) return            -- reads nothing
//   push callee-saved registers the plan needs
//   zero the other accumulators and counters
//   while (remaining >= block) { prefetch; body; advance }      -- body per carry family
//   remaining %= block
//   for each power-of-two word count w below the block, largest first:
//       if (remaining & 8w) { w words as add/adc blocks spread over the accumulators }
//   if (remaining & 4) / (& 2) / (& 1): zero-extending loads, add/adc into rax
//   fold accumulators and counters into rax with one add/adc chain, then 64 -> 32 bits
//   pop, return
//
// The tails go through the buffer in address order from a word boundary relative to the
// start, so an odd last byte lands in the low half of a 16-bit word, as the contract says,
// and no load ever reaches past buf + len.
#include <bit>

#include "emit_context.hpp"

namespace csumtune::gen::detail {
namespace {

using namespace asmjit;
using namespace asmjit::x86;

void emitPrefetch(EmitContext& ctx, int disp) {
  const Mem at = ptr(ctx.regs.buffer, disp);
  switch (ctx.params.hint) {
    case Hint::T0: ctx.b.prefetcht0(at); break;
    case Hint::T1: ctx.b.prefetcht1(at); break;
    case Hint::T2: ctx.b.prefetcht2(at); break;
    case Hint::Nta: ctx.b.prefetchnta(at); break;
  }
}

// One prefetch per cache line the iteration consumes (at least one per iteration).
void emitPrefetches(EmitContext& ctx) {
  if (ctx.params.prefetch == 0) return;
  const int block = ctx.params.blockBytes();
  for (int line = 0; line == 0 || line * 64 < block; ++line) {
    emitPrefetch(ctx, ctx.params.prefetch + line * 64);
  }
}

void emitMainLoop(EmitContext& ctx) {
  const int block = ctx.params.blockBytes();
  const Gp& remaining = ctx.regs.remaining;
  Label loop = ctx.b.newLabel();
  Label done = ctx.b.newLabel();

  // remaining - block borrows exactly when fewer than `block` bytes are left.
  ctx.b.sub(remaining, block);
  ctx.b.jb(done);
  ctx.b.bind(loop);
  emitPrefetches(ctx);
  emitMainLoopBody(ctx);
  // Every family closes its carry chains inside the body, so these may write flags.
  ctx.b.add(ctx.regs.buffer, block);
  ctx.b.sub(remaining, block);
  ctx.b.jae(loop);
  ctx.b.bind(done);
  // remaining now holds (bytes left) - block. For a power-of-two block the low bits the
  // tails test are already right; otherwise add the block back.
  if (!std::has_single_bit(static_cast<unsigned>(block))) ctx.b.add(remaining, block);
}

// `words` 8-byte words (a power of two) as up to `chains` independent add/adc blocks.
void emitWordTail(EmitContext& ctx, int words) {
  const auto& accs = ctx.regs.accumulators;
  const int blocks = std::min<int>(static_cast<int>(accs.size()), words);
  int disp = 0;
  for (int i = 0; i < blocks; ++i) {
    const int count = words / blocks + (i < words % blocks ? 1 : 0);
    emitAddAdcBlock(ctx, accs[static_cast<std::size_t>(i)], disp, count);
    disp += count * 8;
  }
}

void emitTails(EmitContext& ctx) {
  const int block = ctx.params.blockBytes();
  const Gp remaining32 = ctx.regs.remaining.r32();
  const Gp& buffer = ctx.regs.buffer;
  const Gp& acc0 = ctx.regs.accumulators.front();
  const Gp& scratch = ctx.regs.scratch;

  for (int bytes = static_cast<int>(std::bit_floor(static_cast<unsigned>(block - 1))); bytes >= 8;
       bytes /= 2) {
    Label skip = ctx.b.newLabel();
    ctx.b.test(remaining32, bytes);
    ctx.b.jz(skip);
    emitWordTail(ctx, bytes / 8);
    ctx.b.add(buffer, bytes);
    ctx.b.bind(skip);
  }

  // The last 0..7 bytes: zero-extending loads of exactly 4, 2, 1 bytes.
  struct Piece {
    int bytes;
    Mem at;
  };
  const Piece pieces[] = {{4, dword_ptr(buffer)}, {2, word_ptr(buffer)}, {1, byte_ptr(buffer)}};
  for (const Piece& piece : pieces) {
    Label skip = ctx.b.newLabel();
    ctx.b.test(remaining32, piece.bytes);
    ctx.b.jz(skip);
    if (piece.bytes == 4) {
      ctx.b.mov(scratch.r32(), piece.at);
    } else {
      ctx.b.movzx(scratch.r32(), piece.at);
    }
    ctx.b.add(acc0, scratch);
    ctx.b.adc(acc0, 0);
    if (piece.bytes > 1) ctx.b.add(buffer, piece.bytes);
    ctx.b.bind(skip);
  }
}

// All accumulators and carry counters into rax, then 64 -> 32 bits with end-around carry.
void emitFold(EmitContext& ctx) {
  const auto& regs = ctx.regs;
  const Gp& acc0 = regs.accumulators.front();
  std::vector<Gp> rest(regs.accumulators.begin() + 1, regs.accumulators.end());
  rest.insert(rest.end(), regs.carryCounters.begin(), regs.carryCounters.end());
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (i == 0) {
      ctx.b.add(acc0, rest[i]);
    } else {
      ctx.b.adc(acc0, rest[i]);
    }
  }
  if (!rest.empty()) ctx.b.adc(acc0, 0);

  ctx.b.mov(regs.scratch, acc0);
  ctx.b.shr(regs.scratch, 32);
  ctx.b.add(acc0.r32(), regs.scratch.r32());
  ctx.b.adc(acc0.r32(), 0);
}

}  // namespace

void emitAddAdcBlock(EmitContext& ctx, const Gp& acc, int disp, int words) {
  for (int w = 0; w < words; ++w) {
    if (w == 0) {
      ctx.b.add(acc, ctx.qword(disp));
    } else {
      ctx.b.adc(acc, ctx.qword(disp + 8 * w));
    }
  }
  ctx.b.adc(acc, 0);
}

void emitFunction(EmitContext& ctx) {
  const auto& regs = ctx.regs;
  const Gp& acc0 = regs.accumulators.front();
  Label returnSum = ctx.b.newLabel();

  ctx.b.mov(acc0.r32(), edx);  // acc0 = sum, zero-extended
  ctx.b.test(esi, esi);
  ctx.b.jle(returnSum);
  for (const Gp& reg : regs.calleeSaved) ctx.b.push(reg);
  ctx.b.mov(esi, esi);  // len > 0: zero-extend it into the 64-bit byte count
  for (std::size_t i = 1; i < regs.accumulators.size(); ++i) {
    ctx.b.xor_(regs.accumulators[i].r32(), regs.accumulators[i].r32());
  }
  for (const Gp& counter : regs.carryCounters) ctx.b.xor_(counter.r32(), counter.r32());

  emitMainLoop(ctx);
  emitTails(ctx);
  emitFold(ctx);

  for (auto it = regs.calleeSaved.rbegin(); it != regs.calleeSaved.rend(); ++it) ctx.b.pop(*it);
  ctx.b.ret();
  ctx.b.bind(returnSum);
  ctx.b.ret();
}

}  // namespace csumtune::gen::detail
