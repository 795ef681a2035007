// The shape of every kernel, whatever its carry family:
//
//   eax = sum; if (len <= 0) return            -- reads nothing
//   zero the second accumulator
//   if (block > 64 && len < 64) { 32..1-byte tails on rax/rcx; fold; return }   -- no pushes
//   push callee-saved registers the plan needs
//   if (len >= block) {                        -- shorter buffers skip all of this
//       zero the other accumulators and counters
//       do { prefetch; body; advance } while (remaining >= block)   -- body per carry family
//       fold accumulators 2.. and counters into rax (one add/adc chain)
//   }
//   remaining %= block
//   the family's own remainders and reduction (SIMD: whole vectors, the vector sum)
//   for each power-of-two word count w below the block, largest first:
//       if (remaining & 8w) { w words as add/adc blocks on the first two accumulators }
//   if (remaining & 4) / (& 2) / (& 1): zero-extending loads, add/adc into rax
//   fold the second accumulator into rax, then 64 -> 32 bits
//   pop, return
//
// A buffer shorter than one block (the 40-byte header of the 2013 thread) so costs the same
// whatever the loop's width: no zeroing, no folding of accumulators it never touched.
//
// The tails go through the buffer in address order from a word boundary relative to the
// start, so an odd last byte lands in the low half of a 16-bit word, as the contract says,
// and no load ever reaches past buf + len.
#include <algorithm>
#include <bit>

#include "emit_context.hpp"

namespace csumtune::gen::detail {
namespace {

using namespace asmjit;
using namespace asmjit::x86;

void emitPrefetch(EmitContext& ctx, int disp) {
  const Mem at = ptr(ctx.regs.buffer, disp);
  switch (ctx.params.hint) {
    case Hint::T0:
      ctx.b.prefetcht0(at);
      break;
    case Hint::T1:
      ctx.b.prefetcht1(at);
      break;
    case Hint::T2:
      ctx.b.prefetcht2(at);
      break;
    case Hint::Nta:
      ctx.b.prefetchnta(at);
      break;
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

// The registers only the main loop uses: accumulators 2.. and the carry counters. They are
// zeroed when the loop is entered and folded into rax when it ends.
std::vector<Gp> loopOnlyRegisters(const RegisterPlan& regs) {
  std::vector<Gp> out;
  if (regs.accumulators.size() > 2)
    out.assign(regs.accumulators.begin() + 2, regs.accumulators.end());
  out.insert(out.end(), regs.carryCounters.begin(), regs.carryCounters.end());
  return out;
}

// `sum` += every register in `terms`: one add/adc chain closed by adc $0.
void emitAddChain(EmitContext& ctx, const Gp& sum, const std::vector<Gp>& terms) {
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (i == 0) {
      ctx.b.add(sum, terms[i]);
    } else {
      ctx.b.adc(sum, terms[i]);
    }
  }
  if (!terms.empty()) ctx.b.adc(sum, 0);
}

void emitMainLoop(EmitContext& ctx) {
  const auto& regs = ctx.regs;
  const int block = ctx.params.blockBytes();
  const Gp& remaining = regs.remaining;
  Label loop = ctx.b.newLabel();
  Label tails = ctx.b.newLabel();

  ctx.family.emitLoopSetup(ctx);
  // remaining - block borrows exactly when fewer than `block` bytes are left.
  ctx.b.sub(remaining, block);
  ctx.b.jb(tails);
  const std::vector<Gp> loopOnly = loopOnlyRegisters(regs);
  for (const Gp& reg : loopOnly) ctx.b.xor_(reg.r32(), reg.r32());
  ctx.b.bind(loop);
  emitPrefetches(ctx);
  ctx.family.emitBody(ctx);
  // Every family closes its carry chains inside the body, so these may write flags.
  ctx.b.add(regs.buffer, block);
  ctx.family.emitAfterIteration(ctx);
  ctx.b.sub(remaining, block);
  ctx.b.jae(loop);
  emitAddChain(ctx, regs.accumulators.front(), loopOnly);
  ctx.b.bind(tails);
  // remaining now holds (bytes left) - block. For a power-of-two block the low bits the
  // tails test are already right; otherwise add the block back.
  if (!std::has_single_bit(static_cast<unsigned>(block))) ctx.b.add(remaining, block);
  ctx.family.emitAfterLoop(ctx);
}

// `words` 8-byte words (a power of two) as up to two independent add/adc blocks (on the
// first two accumulators, the only ones a short buffer has).
void emitWordTail(EmitContext& ctx, int words) {
  const auto& accs = ctx.regs.accumulators;
  const int blocks = std::min({static_cast<int>(accs.size()), 2, words});
  int disp = 0;
  for (int i = 0; i < blocks; ++i) {
    const int count = words / blocks + (i < words % blocks ? 1 : 0);
    emitAddAdcBlock(ctx, accs[static_cast<std::size_t>(i)], disp, count);
    disp += count * 8;
  }
}

// The remainder below `topBytes * 2`, tested bit by bit from `topBytes` down.
void emitTails(EmitContext& ctx, int topBytes, const Gp& scratch) {
  const Gp remaining32 = ctx.regs.remaining.r32();
  const Gp& buffer = ctx.regs.buffer;
  const Gp& acc0 = ctx.regs.accumulators.front();

  for (int bytes = topBytes; bytes >= 8; bytes /= 2) {
    Label skip = ctx.b.newLabel();
    ctx.b.test(remaining32, bytes);
    // At most 16 words on two chains (about 80 bytes of code) lie in between: a short jump
    // always reaches, and keeps the path of a short buffer compact. (asmjit refuses to
    // encode a short jump that does not reach, so this cannot go wrong silently.)
    ctx.b.short_().jz(skip);
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
    ctx.b.short_().jz(skip);
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

// The second accumulator into rax, then 64 -> 32 bits with end-around carry. The byte count
// is dead by now and serves as the temporary (a caller-saved register on every path).
void emitFold(EmitContext& ctx) {
  const auto& regs = ctx.regs;
  const Gp& acc0 = regs.accumulators.front();
  const Gp& temp = regs.remaining;
  if (regs.accumulators.size() > 1) emitAddChain(ctx, acc0, {regs.accumulators[1]});
  ctx.b.mov(temp, acc0);
  ctx.b.shr(temp, 32);
  ctx.b.add(acc0.r32(), temp.r32());
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
  const int block = ctx.params.blockBytes();
  // Buffers under 64 bytes skip the wide loop's remainder tests, pushes and pops: with a
  // block above 64 bytes they take their own path through the 32..1-byte tails.
  const bool shortPath = block > 64;
  Label returnSum = ctx.b.newLabel();
  Label shortBuffer = ctx.b.newLabel();

  ctx.b.mov(acc0.r32(), edx);  // acc0 = sum, zero-extended
  ctx.b.test(esi, esi);
  ctx.b.jle(returnSum);
  ctx.b.mov(esi, esi);  // len > 0: zero-extend it into the 64-bit byte count
  if (regs.accumulators.size() > 1) {
    ctx.b.xor_(regs.accumulators[1].r32(), regs.accumulators[1].r32());
  }
  if (shortPath) {
    ctx.b.cmp(esi, 64);
    ctx.b.jb(shortBuffer);
  }
  for (const Gp& reg : regs.calleeSaved) ctx.b.push(reg);

  emitMainLoop(ctx);
  const Label folding = ctx.skipScalarTails();
  emitTails(ctx, ctx.family.scalarTailTop(ctx.params), regs.scratch);
  ctx.b.bind(folding);
  emitFold(ctx);
  for (auto it = regs.calleeSaved.rbegin(); it != regs.calleeSaved.rend(); ++it) ctx.b.pop(*it);
  ctx.b.ret();

  if (shortPath) {
    // Only rax and rcx (the first two accumulators) and rdx (never one of them) are used
    // here: all caller-saved, so nothing was pushed.
    ctx.b.bind(shortBuffer);
    emitTails(ctx, 32, rdx);
    emitFold(ctx);
    ctx.b.ret();
  }
  ctx.b.bind(returnSum);
  ctx.b.ret();
}
}  // namespace csumtune::gen::detail
