// The shape of every kernel, whatever its carry family:
//
//   eax = sum; if (len <= 0) return            -- reads nothing
//   zero the second accumulator (tailchains=1: with the loop's, below)
//   if (block > 64 && len < 64) { 32..1-byte tails on rax/rcx; fold; return }   -- no pushes
//   if (mid && len <= mid) { SIMD: whole vectors, the last one masked; reduce; fold; return }
//   push callee-saved registers the plan needs
//   if (len >= block) {                        -- shorter buffers skip all of this
//       zero the other accumulators and counters
//       do { prefetch; body; advance } while (remaining >= block)   -- body per carry family
//       fold accumulators 2.. (1.. with tailchains=1) and counters into rax (one add/adc chain)
//   }
//   remaining %= block
//   the family's own remainders and reduction (SIMD: whole vectors, the vector sum)
//   for each power-of-two word count w below the block, largest first:
//       if (remaining & 8w) { w words as add/adc blocks on the first two accumulators }
//   if (remaining & 4) / (& 2) / (& 1): zero-extending loads, add/adc into rax
//   fold the second accumulator into rax (unless the loop's fold did), then 64 -> 32 bits
//   pop, return
//
// A buffer shorter than one block (the 40-byte header of the 2013 thread) so costs the same
// whatever the loop's width: no zeroing, no folding of accumulators it never touched.
//
// The tails go through the buffer in address order from a word boundary relative to the
// start, so an odd last byte lands in the low half of a 16-bit word, as the contract says,
// and no load ever reaches past buf + len — except with bounds=aligned, whose byte tail may
// load bytes outside the buffer inside the aligned 8-byte blocks of its first and last bytes
// (emitAlignedBytes), and shifts them out.
#include <algorithm>
#include <bit>

#include "emit_context.hpp"

namespace csumtune::gen::detail {
namespace {

using namespace asmjit;
using namespace asmjit::x86;

void emitPrefetch(EmitContext& ctx, int disp) {
  const Mem at = ptr(ctx.regs.buffer, disp - ctx.loadBias);
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

// Whether the second accumulator is the main loop's alone: a general-purpose kernel whose
// word tails after the loop run on one chain (tailchains=1) never sums into it outside the
// loop. It is then zeroed and folded with the other loop-only registers, and a buffer that
// skips the loop (from the short bound up to the block) neither zeroes nor folds it.
bool secondIsLoopOnly(const EmitContext& ctx) {
  // (words=loop reads no tail chains: canonically tailchains=2, and so is its code.)
  return !traitsOf(ctx.params.carry).isVector() && ctx.regs.accumulators.size() > 1 &&
         ctx.params.words == Words::Ladder && ctx.params.wordTailChains(true) == 1;
}

// The registers only the main loop uses: accumulators 2.. (1.. when the second is the loop's
// alone) and the carry counters. They are zeroed when the loop is entered and folded into rax
// when it ends.
std::vector<Gp> loopOnlyRegisters(const EmitContext& ctx) {
  const auto& regs = ctx.regs;
  const std::size_t first = secondIsLoopOnly(ctx) ? 1 : 2;
  std::vector<Gp> out;
  if (regs.accumulators.size() > first)
    out.assign(regs.accumulators.begin() + static_cast<std::ptrdiff_t>(first),
               regs.accumulators.end());
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

// Loads at 128..255 bytes into the block need a 4-byte displacement, 3 bytes more than the
// 1-byte one of loads below 128. With the data pointer 128 bytes ahead inside the loop every
// load of the first 256 bytes takes the short form; moving the pointer there and back costs
// 8 bytes (`sub $-128` and `add $-128`, both with an 8-bit immediate). General-purpose
// families only (vector loads have their own displacement scaling); worth it from 160 bytes.
constexpr int kLoopBias = 128;
bool biasesLoop(const EmitContext& ctx) {
  return ctx.regs.vectorAccumulators == 0 && ctx.params.blockBytes() >= 160;
}

void emitMainLoop(EmitContext& ctx) {
  const auto& regs = ctx.regs;
  const int block = ctx.params.blockBytes();
  const Gp& remaining = regs.remaining;
  Label loop = ctx.b.newLabel();
  Label tails = ctx.b.newLabel();
  const bool bias = biasesLoop(ctx);

  ctx.family.emitLoopSetup(ctx);
  // remaining - block borrows exactly when fewer than `block` bytes are left. A block of 128
  // bytes is added as -128 instead (an 8-bit immediate; +128 needs 32 bits): the carry is
  // then the opposite of the borrow.
  const bool minus128 = block == 128;
  const auto countDown = [&] {
    if (minus128) {
      ctx.b.add(remaining, -block);
    } else {
      ctx.b.sub(remaining, block);
    }
  };
  countDown();
  if (minus128) {
    ctx.b.jnc(tails);
  } else {
    ctx.b.jb(tails);
  }
  const std::vector<Gp> loopOnly = loopOnlyRegisters(ctx);
  for (const Gp& reg : loopOnly) ctx.b.xor_(reg.r32(), reg.r32());
  if (bias) {
    ctx.b.sub(regs.buffer, -kLoopBias);
    ctx.loadBias = kLoopBias;
  }
  ctx.b.bind(loop);
  emitPrefetches(ctx);
  ctx.nonTemporalStores = ctx.params.store == Store::Nt;
  ctx.family.emitBody(ctx);
  ctx.nonTemporalStores = false;
  // Every family closes its carry chains inside the body, so these may write flags.
  if (minus128) {
    ctx.b.sub(regs.buffer, -block);
  } else {
    ctx.b.add(regs.buffer, block);
  }
  ctx.family.emitAfterIteration(ctx);
  countDown();
  if (minus128) {
    ctx.b.jc(loop);
  } else {
    ctx.b.jae(loop);
  }
  // The loop's movnti stores are weakly ordered: fenced once, when it ends (only a buffer
  // that ran the loop gets here).
  if (ctx.params.store == Store::Nt) ctx.b.sfence();
  if (bias) {
    ctx.b.add(regs.buffer, -kLoopBias);
    ctx.loadBias = 0;
  }
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
  const int blocks =
      std::min({static_cast<int>(accs.size()), ctx.params.wordTailChains(ctx.afterLoop), words});
  int disp = 0;
  for (int i = 0; i < blocks; ++i) {
    const int count = words / blocks + (i < words % blocks ? 1 : 0);
    emitAddAdcBlock(ctx, accs[static_cast<std::size_t>(i)], disp, count);
    disp += count * 8;
  }
}

// Sets ZF when bit `bytes` (a power of two) of the byte count is clear. Below 256 the test
// reads the count's low byte: `test $imm8, %sil` is 2 bytes shorter than the 32-bit form.
void emitTestBit(EmitContext& ctx, int bytes) {
  if (bytes < 256) {
    ctx.b.test(ctx.regs.remaining.r8(), bytes);
  } else {
    ctx.b.test(ctx.regs.remaining.r32(), bytes);
  }
}

// The remainder below `topBytes * 2` in whole words, tested bit by bit from `topBytes` down.
void emitWordTails(EmitContext& ctx, int topBytes) {
  for (int bytes = topBytes; bytes >= 8; bytes /= 2) {
    Label skip = ctx.b.newLabel();
    emitTestBit(ctx, bytes);
    // Relaxation gives it the 2-byte form wherever it reaches: 16 summed words on two chains
    // (about 80 bytes), not always 16 copied ones (each a load, an add and a store).
    ctx.b.jz(skip);
    emitWordTail(ctx, bytes / 8);
    ctx.b.add(ctx.regs.buffer, bytes);
    ctx.b.bind(skip);
  }
}

// words=loop: the whole words below `topBytes * 2` in one loop on the first accumulator, one
// word per iteration. The carry runs through the loop: `inc` and `lea` leave CF alone, so
// the chain is add/adc from the first word to the last and one adc $0 closes it. The low 3
// bits of the byte count (the byte tail's) are left as they are.
void emitWordLoop(EmitContext& ctx, int topBytes, const Gp& scratch) {
  const Gp& buffer = ctx.regs.buffer;
  const Gp& acc0 = ctx.regs.accumulators.front();
  Label loop = ctx.b.newLabel();
  Label done = ctx.b.newLabel();
  ctx.b.mov(scratch.r32(), ctx.regs.remaining.r32());
  ctx.b.and_(scratch.r32(), (2 * topBytes - 1) & ~7);  // bytes in whole words
  ctx.b.short_().jz(done);
  if (ctx.copying()) {
    // A store cannot be indexed by the count as well as by delta: the pointer walks instead
    // (lea and dec leave CF alone too).
    ctx.b.shr(scratch.r32(), 3);
    ctx.b.clc();
    ctx.b.bind(loop);
    emitSumWord(ctx, Inst::kIdAdc, acc0, qword_ptr(buffer));
    ctx.b.lea(buffer, ptr(buffer, 8));
    ctx.b.dec(scratch.r32());
  } else {
    ctx.b.add(buffer, scratch);  // past the words, then index them from -count up to 0
    ctx.b.shr(scratch.r32(), 3);
    ctx.b.neg(scratch);
    ctx.b.clc();
    ctx.b.bind(loop);
    ctx.b.adc(acc0, qword_ptr(buffer, scratch, 3));
    ctx.b.inc(scratch);
  }
  ctx.b.short_().jnz(loop);
  ctx.b.adc(acc0, 0);
  ctx.b.bind(done);
}

// The last 0..7 bytes as a ladder: zero-extending loads of exactly 4, 2, 1 bytes.
void emitByteLadder(EmitContext& ctx, const Gp& scratch) {
  const Gp& buffer = ctx.regs.buffer;
  const Gp& acc0 = ctx.regs.accumulators.front();
  struct Piece {
    int bytes;
    Mem at;
  };
  const Piece pieces[] = {{4, dword_ptr(buffer)}, {2, word_ptr(buffer)}, {1, byte_ptr(buffer)}};
  for (const Piece& piece : pieces) {
    Label skip = ctx.b.newLabel();
    emitTestBit(ctx, piece.bytes);
    ctx.b.short_().jz(skip);
    emitLoad(ctx, scratch, piece.at);
    ctx.b.add(acc0, scratch);
    ctx.b.adc(acc0, 0);
    if (piece.bytes > 1) ctx.b.add(buffer, piece.bytes);
    ctx.b.bind(skip);
  }
}

// entry=range's and entry=forty's form of the overlapping tail, one instruction shorter
// (summing kernels; a copy's non-zero case is as long, its pointer moves): the test reads the
// count's low byte, the word
// is loaded at pointer + (count mod 8) - 8 without moving the pointer, and the shift count
// -8 * count is 64 - 8 * (count mod 8) modulo 64 (shr reads only the low 6 bits of cl).
// A copy stores at the load's offset from dst, which takes no index: its pointer moves.
// Needs len >= 8 and rcx free, as the other form; `scratch` takes the word (rdx when the
// plan's scratch is rcx: the loop's accumulators are folded by now).
void emitEndWordTail(EmitContext& ctx, const Gp& scratch) {
  const Gp& buffer = ctx.regs.buffer;
  const Gp& count = ctx.regs.remaining;
  const Gp& acc0 = ctx.regs.accumulators.front();
  const Gp word = scratch == rcx ? rdx : scratch;
  Label done = ctx.b.newLabel();
  emitTestBit(ctx, 7);
  ctx.b.short_().jz(done);
  ctx.b.mov(ecx, count.r32());
  ctx.b.and_(ecx, 7);
  if (ctx.copying()) {
    ctx.b.add(buffer, rcx);
    emitLoad(ctx, word, qword_ptr(buffer, -8));
  } else {
    emitLoad(ctx, word, qword_ptr(buffer, rcx, 0, -8));
  }
  ctx.b.imul(ecx, count.r32(), -8);
  ctx.b.shr(word, cl);
  ctx.b.add(acc0, word);
  ctx.b.adc(acc0, 0);
  ctx.b.bind(done);
}

// The last 0..7 bytes as the 8 bytes that end at buf + len, shifted right past the bytes
// already summed: one load, no branch on the bits. Needs len >= 8 (the frame sends shorter
// buffers to the tiny path) and rcx free (the second accumulator is folded first): the shift
// count must be in cl. The byte count register takes the loaded word.
void emitOverlapTail(EmitContext& ctx, const Gp& scratch) {
  // Keyed on the short path as the entries are: without one, canonical() makes them checked,
  // and the code must be what that name gives.
  if (ctx.params.hasShortPath() &&
      (ctx.params.entry == Entry::Range || ctx.params.entry == Entry::Forty))
    return emitEndWordTail(ctx, scratch);
  const Gp& buffer = ctx.regs.buffer;
  const Gp& acc0 = ctx.regs.accumulators.front();
  const Gp& word = ctx.regs.remaining;
  Label done = ctx.b.newLabel();
  ctx.b.mov(ecx, word.r32());
  ctx.b.and_(ecx, 7);
  ctx.b.short_().jz(done);
  ctx.b.add(buffer, rcx);
  emitLoad(ctx, word, qword_ptr(buffer, -8));  // a copy rewrites what it stored already
  ctx.b.neg(ecx);
  ctx.b.shl(ecx, 3);  // -8 * rest: shr counts mod 64, so it shifts by 64 - 8 * rest
  ctx.b.shr(word, cl);
  ctx.b.add(acc0, word);
  ctx.b.adc(acc0, 0);
  ctx.b.bind(done);
}

// bounds=aligned: the last 1..7 bytes [p, e) of the byte count (p the pointer, e = p + r) as
// one 8-byte load at Q = max(e - 8, p rounded down to 8), which holds them all, never starts
// before the aligned block of p nor ends after the aligned block of e - 1 (so never crosses a
// page the buffer does not touch), and is the 8 bytes ending at e whenever that load stays in
// those blocks. The load is shifted left by 8 * (Q - (e - 8)) (0..7 bytes: the bytes at and
// past e fall off the top) and then right by 64 - 8r (the bytes before p fall off the bottom),
// leaving byte p at bit 0: the same value as the ladder's, so the odd-byte order is kept.
// `known` when the caller knows 1 <= r and the byte count is r itself (the tiny path of a
// checked entry): no test.
// `empty` (when valid): the accumulator holds nothing yet (the tiny path of sum=last), so the
// word is loaded into it and needs no add, and no bytes jump there instead. A cold call costs
// about as much per instruction as it has; these are three fewer.
// Uses rcx (free: the second accumulator is folded first) and `scratch` (rdx when the plan's
// scratch is rcx); clobbers rdi.
void emitAlignedBytes(EmitContext& ctx, const Gp& scratch, bool known, const Label& empty = {}) {
  const Gp& buffer = ctx.regs.buffer;
  const Gp& count = ctx.regs.remaining;
  const Gp& acc0 = ctx.regs.accumulators.front();
  const bool fresh = empty.isValid();
  const Gp word = fresh ? acc0 : scratch == rcx ? rdx : scratch;
  Label done = ctx.b.newLabel();
  ctx.b.mov(ecx, count.r32());  // zero-extended: a lean entry leaves rsi's top half as given
  if (!known) {
    ctx.b.and_(ecx, 7);
    if (fresh) {
      ctx.b.short_().jz(empty);
    } else {
      ctx.b.short_().jz(done);
    }
  }
  // The load from Q, computed: rcx holds r.
  const auto computed = [&ctx, buffer, count, word] {
    ctx.b.lea(rcx, ptr(buffer, rcx, 0, -8));  // e - 8
    ctx.b.and_(buffer, -8);                   // the aligned block of p
    ctx.b.cmp(buffer, rcx);
    ctx.b.cmovc(buffer, rcx);  // below: Q = max(e - 8, block of p)
    ctx.b.mov(word, qword_ptr(buffer));
    ctx.b.sub(buffer.r32(), ecx);      // Q - (e - 8): the bytes past e in the word
    ctx.b.imul(ecx, buffer.r32(), 8);  // shl counts mod 64: 8 * that
    ctx.b.shl(word, cl);
    ctx.b.imul(ecx, count.r32(), -8);  // -8 * count = 64 - 8r (mod 64)
    ctx.b.shr(word, cl);
  };
  // byteload=pointer and straight: an 8-aligned p is its own aligned block, and the word loads
  // straight from the pointer. Cold, a load whose address waits on instructions (even one
  // `and`) keeps fewer calls' misses in flight than one that can issue at once.
  const bool straight = ctx.params.byteLoad == ByteLoad::Straight;
  const bool direct = straight || ctx.params.byteLoad == ByteLoad::Pointer;
  Label unaligned;
  Label loaded;
  if (direct) {
    unaligned = ctx.b.newLabel();
    loaded = ctx.b.newLabel();
    ctx.b.test(buffer.r8(), 7);
    if (!straight) ctx.b.short_();  // out of line it may lie as far as the function is long
    ctx.b.jnz(unaligned);
    ctx.b.mov(word, qword_ptr(buffer));
    ctx.b.imul(ecx, count.r32(), -8);  // -8 * count = 64 - 8r (mod 64)
    ctx.b.shl(word, cl);               // the bytes past e fall off the top
    ctx.b.shr(word, cl);
    if (straight) {
      // A taken jump costs a hot call about an instruction: the aligned pointer falls through.
      ctx.outOfLine.push_back([&ctx, unaligned, loaded, computed] {
        ctx.b.bind(unaligned);
        computed();
        ctx.b.jmp(loaded);
      });
    } else {
      ctx.b.short_().jmp(loaded);
      ctx.b.bind(unaligned);
    }
  }
  if (!straight) computed();
  if (direct) ctx.b.bind(loaded);
  if (fresh) return;
  ctx.b.add(acc0, word);
  ctx.b.adc(acc0, 0);
  ctx.b.bind(done);
}

// The last 0..7 bytes of the byte count at the pointer, as the frame's tail takes them: one
// load with bounds=aligned, the 4-2-1 ladder, or the overlapping word (len >= 8 only).
void emitByteTail(EmitContext& ctx, const Gp& scratch) {
  if (ctx.params.tail == Tail::Ladder && ctx.params.bounds == Bounds::Aligned) {
    emitAlignedBytes(ctx, scratch, false);
  } else if (ctx.params.tail == Tail::Ladder) {
    emitByteLadder(ctx, scratch);
  } else {
    emitOverlapTail(ctx, scratch);
  }
}

// The second accumulator into rax.
void emitFoldSecond(EmitContext& ctx) {
  const auto& regs = ctx.regs;
  if (regs.accumulators.size() > 1)
    emitAddChain(ctx, regs.accumulators.front(), {regs.accumulators[1]});
}

// 64 -> 32 bits with end-around carry. The byte count is dead by now and serves as the
// temporary (a caller-saved register on every path).
void emitFold64(EmitContext& ctx, bool addSumLast) {
  const Gp& acc0 = ctx.regs.accumulators.front();
  const Gp& temp = ctx.regs.remaining;
  ctx.b.mov(temp, acc0);
  ctx.b.shr(temp, 32);
  ctx.b.add(acc0.r32(), temp.r32());
  // sum=last: the initial sum (still in edx) is the fold's third term, one instruction
  // fewer than adding it after the fold. Neither adc can carry out: an add that carried
  // leaves at most 0xfffffffe, so eax + edx + CF is at most 0x1fffffffe and, when it
  // carries, leaves at most 0xfffffffe for the last adc $0.
  if (addSumLast) ctx.b.adc(acc0.r32(), edx);
  ctx.b.adc(acc0.r32(), 0);
}

// Everything below `topBytes * 2` left at the pointer, then the fold into eax.
// `skipTo` (when valid) is bound where a caller that has no bytes left may jump in.
void emitTailsAndFold(EmitContext& ctx, int topBytes, const Gp& scratch, const Label* skipTo,
                      bool foldSecond, bool addSumLast) {
  if (ctx.params.words == Words::Loop) {
    emitWordLoop(ctx, topBytes, scratch);
  } else {
    emitWordTails(ctx, topBytes);
  }
  if (ctx.params.tail == Tail::Ladder && ctx.params.bounds == Bounds::Aligned) {
    if (foldSecond) emitFoldSecond(ctx);
    emitAlignedBytes(ctx, scratch, false);
    if (skipTo) ctx.b.bind(*skipTo);
  } else if (ctx.params.tail == Tail::Ladder) {
    emitByteLadder(ctx, scratch);
    if (skipTo) ctx.b.bind(*skipTo);
    if (foldSecond) emitFoldSecond(ctx);
  } else {
    if (foldSecond) emitFoldSecond(ctx);
    emitOverlapTail(ctx, scratch);
    if (skipTo) ctx.b.bind(*skipTo);
  }
  emitFold64(ctx, addSumLast);
}

// `words` words from `disp` on: into `acc` when it holds the sum (an add...adc $0 block), or
// starting `acc` from the first word (mov, then add...adc $0).
void emitChain(EmitContext& ctx, const Gp& acc, int disp, int words, bool accHoldsSum) {
  if (accHoldsSum) return emitAddAdcBlock(ctx, acc, disp, words);
  emitLoad(ctx, acc, ctx.qword(disp));
  if (words > 1) emitAddAdcBlock(ctx, acc, disp + 8, words - 1);
}

// exact=N: one compare at entry; a buffer of exactly N bytes takes straight-line code (words
// on one add/adc chain, or two when there are more than five, the last N mod 8 bytes as the
// shifted 8 bytes that end at buf + N) and returns.
void emitExactBody(EmitContext& ctx, int n) {
  const int words = n / 8, rest = n % 8;
  const bool sumFirst = ctx.params.sum == SumEntry::First;
  if (words <= 5) {
    emitChain(ctx, rax, 0, words, sumFirst);
  } else {
    const int first = (words + 1) / 2;
    emitChain(ctx, rax, 0, first, sumFirst);
    emitChain(ctx, rcx, 8 * first, words - first, false);
    emitAddChain(ctx, rax, {rcx});
  }
  if (rest) {
    // sum=last keeps the sum in edx: the word goes to r8 then.
    const Gp word = sumFirst ? rdx : r8;
    emitLoad(ctx, word, ctx.qword(n - 8));
    ctx.b.shr(word, 64 - 8 * rest);
    ctx.b.add(rax, word);
    ctx.b.adc(rax, 0);
  }
  emitFold64(ctx, !sumFirst);
  ctx.b.ret();
}

void emitExactPath(EmitContext& ctx, const Label& general) {
  ctx.b.cmp(esi, ctx.params.exact);
  ctx.b.jne(general);
  emitExactBody(ctx, ctx.params.exact);
  ctx.b.bind(general);
}

// What a short path does before its first word: the second accumulator zeroed where it is
// used (a lean, range or forty entry has not zeroed it), and with sum=last the accumulator
// (eax: the sum stays in edx until the end).
void emitShortPreamble(EmitContext& ctx, bool second) {
  if (second) ctx.b.xor_(ctx.regs.accumulators[1].r32(), ctx.regs.accumulators[1].r32());
  if (ctx.params.sum == SumEntry::Last) ctx.b.xor_(eax, eax);
}

// What entry=forty's compares take off the count above 40 bytes (emitFortyEntry): the 80-byte
// block every path from 80 bytes starts with.
constexpr int kFortyEntryTaken = 80;

// The labels entry=forty's first compares jump to (emitFortyEntry) and its paths bind.
struct FortyLabels {
  Label exact40, below40, from41, from80, from160;
};

// entry=forty: len - 40 decides first, as in Linux's own file ("len == 40 is the hot case
// due to IPv6 headers"): one compare, then equal, below and above are three branches on its
// flags. Above 40 the count is taken down by 80 at once, and the borrow sends 41..79 to their
// block: the paths from 80 bytes then start with the count past their first 80-byte block
// (one instruction fewer than a compare there and a subtraction after the block), and 41..79
// add 40 back where they would have taken 40 off. 160 (with block80=loop) and the short bound
// split the rest. Negative lengths look huge (unsigned) through the compares; the long path
// adds the 80 back and returns the sum for a negative count (the subtraction may have wrapped
// the most negative ones round to positive, which the addition undoes). The addition, a 32-bit
// write, also zero-extends the count: with its `js` it takes the place of a `jl` and the
// long path's `mov %esi, %esi`.
FortyLabels emitFortyEntry(EmitContext& ctx, const Label& returnSum) {
  FortyLabels to{ctx.b.newLabel(), ctx.b.newLabel(), ctx.b.newLabel(), ctx.b.newLabel(), {}};
  ctx.b.cmp(esi, 40);
  ctx.b.jz(to.exact40);
  ctx.b.jb(to.below40);
  ctx.b.sub(esi, kFortyEntryTaken);
  ctx.b.jb(to.from41);
  if (ctx.params.block80 == Block80::Loop) {
    // The loop's own compare: 80..159 bytes run the one block, from 160 a path of its own.
    to.from160 = ctx.b.newLabel();
    ctx.b.cmp(esi, 160 - kFortyEntryTaken);
    ctx.b.jb(to.from80);
    ctx.b.cmp(esi, ctx.params.shortBelow - kFortyEntryTaken);
    ctx.b.jb(to.from160);
  } else {
    ctx.b.cmp(esi, ctx.params.shortBelow - kFortyEntryTaken);
    ctx.b.jb(to.from80);
  }
  ctx.b.add(esi, kFortyEntryTaken);
  ctx.b.js(returnSum);
  return to;
}

// The pointer and the count past `bytes` just summed (the count's flags: zero when none left).
void emitAdvance(EmitContext& ctx, int bytes) {
  ctx.b.add(ctx.regs.buffer, bytes);
  ctx.b.sub(esi, bytes);
}

// What is left under 40 bytes at the pointer (the 32, 16 and 8 ladder and the last bytes),
// then the fold and the return: the end of every entry=forty path.
void emitFortyLadder(EmitContext& ctx, const Gp& scratch, bool second) {
  emitTailsAndFold(ctx, 32, scratch, nullptr, second, ctx.params.sum == SumEntry::Last);
  ctx.b.ret();
}

// The fold of a path with nothing left at the pointer, and the return.
void emitFortyFold(EmitContext& ctx, bool second) {
  if (second) emitFoldSecond(ctx);
  emitFold64(ctx, ctx.params.sum == SumEntry::Last);
  ctx.b.ret();
}

// What each block80=loop path does once fewer than 80 bytes are left: under 40 fall into that
// path's own ladder (no taken jump, as in Linux's file); 40..79 jump to the shared 40-byte
// block, which falls into a ladder of its own (none left: one more jump, to the fold). A
// taken jump costs a hot call about what an instruction does.
void emitFortyRest(EmitContext& ctx, const Label& more40, const Gp& scratch, bool second) {
  ctx.b.cmp(esi, 40);
  ctx.b.jae(more40);
  emitFortyLadder(ctx, scratch, second);
}

// block80=loop from 80 bytes (the 80-byte block summed, the pointer and count moved past it):
// 80..159 bytes go on to the rest; from 160 bytes (at.from160) the first 160 bytes as two
// chains of ten words (one set-up for two blocks; two blocks on the one accumulator when there
// is only one), then the 80-byte block while 80 are left, as Linux's loop: the two chains run
// on from block to block (each block closes its carries, so the loop's compare may clobber the
// flags), joined after it where the ladder has one chain; then the rest. 160..239 bytes fall
// through to their join (no taken jump); the loop sits after their rest and falls into a join and a
// rest of its own. At most one 40-byte block is left after the 80-byte ones, so the three rests
// share it.
void emitFortyLoopPaths(EmitContext& ctx, const FortyLabels& at, const Gp& scratch, bool second) {
  const Gp& buffer = ctx.regs.buffer;
  const Gp& acc0 = ctx.regs.accumulators.front();
  const bool twoAccumulators = ctx.regs.accumulators.size() > 1;
  const bool sumFirst = ctx.params.sum == SumEntry::First;
  Label more40 = ctx.b.newLabel();
  emitFortyRest(ctx, more40, scratch, second);

  ctx.b.bind(at.from160);
  // The pointer moves between the chains (the first has closed its carries): every load
  // keeps an 8-bit displacement.
  emitChain(ctx, acc0, 0, 10, sumFirst);
  ctx.b.add(buffer, 160);
  if (twoAccumulators) {
    emitChain(ctx, ctx.regs.accumulators[1], -80, 10, false);
  } else {
    emitAddAdcBlock(ctx, acc0, -80, 10);
  }
  ctx.b.sub(esi, 160 - kFortyEntryTaken);  // (the entry took the first 80 off)
  const auto joinAndRest = [&] {
    if (twoAccumulators && !second) emitAddChain(ctx, acc0, {ctx.regs.accumulators[1]});
    emitFortyRest(ctx, more40, scratch, second);
  };
  Label next80 = ctx.b.newLabel();
  ctx.b.cmp(esi, 80);
  ctx.b.jae(next80);
  joinAndRest();
  ctx.b.bind(next80);
  if (twoAccumulators) {
    emitAddAdcBlock(ctx, acc0, 0, 5);
    emitAddAdcBlock(ctx, ctx.regs.accumulators[1], 40, 5);
  } else {
    emitAddAdcBlock(ctx, acc0, 0, 10);
  }
  emitAdvance(ctx, 80);
  ctx.b.cmp(esi, 80);
  ctx.b.jae(next80);
  joinAndRest();

  Label none = ctx.b.newLabel();
  ctx.b.bind(more40);
  emitAddAdcBlock(ctx, acc0, 0, 5);
  emitAdvance(ctx, 40);
  ctx.b.jz(none);
  emitFortyLadder(ctx, scratch, second);
  ctx.b.bind(none);
  emitFortyFold(ctx, second);
}

// entry=forty's short paths, which execute no more instructions than Linux's file at any
// length below the short bound (with sum=first and one tail chain: the unit tests count them):
// exactly 40 bytes straight-line; from 80 an 80-byte block (two chains when the frame has two
// tail chains or block80=pair or loop and two accumulators), then 40-byte ones while 40 are
// left (120, 160, ... return there; 80 goes through the empty ladder; block80=loop: see
// emitFortyLoopPaths); 41..79 one 40-byte block; then what is left (under 40 bytes) as the
// ladder of 32, 16 and 8 and the last bytes. Under 8 bytes, 0 included, go to the tiny path.
// The block paths load their first word into each accumulator they start (nothing to zero).
void emitFortyPaths(EmitContext& ctx, const FortyLabels& at, const Label& tinyBuffer,
                    const Gp& scratch, bool second) {
  const Gp& acc0 = ctx.regs.accumulators.front();
  const bool sumFirst = ctx.params.sum == SumEntry::First;
  const bool looping = ctx.params.block80 == Block80::Loop;
  const bool twoAccumulators = ctx.regs.accumulators.size() > 1;
  // acc0 holds the sum on entry with sum=first; with sum=last it starts from the first word.
  const auto firstChain = [&](int disp, int words) { emitChain(ctx, acc0, disp, words, sumFirst); };
  const auto advance = [&](int bytes) { emitAdvance(ctx, bytes); };
  // Each path falls into a ladder of its own: a taken jump costs a hot call about what an
  // instruction does, and a jump to a shared ladder is one (bench --count-instructions counts
  // them).
  const auto ladder = [&] { emitFortyLadder(ctx, scratch, second); };

  ctx.b.bind(at.from80);
  if (second || (ctx.params.block80 != Block80::Chain && twoAccumulators)) {
    // The 80 bytes as two add/adc chains of five words. With one tail chain (block80=pair or
    // loop) the second is added in at once, so the ladder after it keeps one chain and rcx.
    const Gp& acc1 = ctx.regs.accumulators[1];
    firstChain(0, 5);
    emitChain(ctx, acc1, 40, 5, false);
    if (!second) emitAddChain(ctx, acc0, {acc1});
  } else {
    firstChain(0, 10);
  }
  ctx.b.add(ctx.regs.buffer, 80);  // (the entry took the 80 off the count)
  if (looping) {
    emitFortyLoopPaths(ctx, at, scratch, second);
  } else {
    // 80 bytes up to the short bound: 40-byte blocks while 40 are left, then the ladder.
    Label next40 = ctx.b.newLabel();
    Label more40 = ctx.b.newLabel();
    ctx.b.bind(next40);
    ctx.b.cmp(esi, 40);
    ctx.b.jae(more40);
    ladder();
    ctx.b.bind(more40);
    emitAddAdcBlock(ctx, acc0, 0, 5);
    advance(40);
    ctx.b.jnz(next40);
    emitFortyFold(ctx, second);
  }

  ctx.b.bind(at.from41);
  // The ladder's second chain starts from zero here (the 80-byte paths start it from a word).
  if (second) ctx.b.xor_(ctx.regs.accumulators[1].r32(), ctx.regs.accumulators[1].r32());
  firstChain(0, 5);
  // The entry took 80 off the count: 40 of them come back.
  ctx.b.add(ctx.regs.buffer, 40);
  ctx.b.add(esi, kFortyEntryTaken - 40);
  ladder();

  ctx.b.bind(at.below40);
  ctx.b.cmp(esi, 8);
  ctx.b.jb(tinyBuffer);
  emitShortPreamble(ctx, second);
  ladder();

  ctx.b.bind(at.exact40);
  emitExactBody(ctx, 40);
}

}  // namespace

void emitSumWord(EmitContext& ctx, InstId op, const Gp& acc, const Mem& at) {
  if (!ctx.copying()) {
    ctx.b.emit(op, acc, at);
    return;
  }
  const Gp& word = ctx.regs.copyWord;
  ctx.b.mov(word, at);
  ctx.b.emit(op, acc, word);
  emitStore(ctx, at, word);
}

void emitStore(EmitContext& ctx, const Mem& at, const Gp& value) {
  if (ctx.nonTemporalStores && value.size() >= 4) {
    ctx.b.movnti(ctx.storeFor(at), value);
  } else {
    ctx.b.mov(ctx.storeFor(at), value);
  }
}

void emitLoad(EmitContext& ctx, const Gp& reg, const Mem& at) {
  const std::uint32_t bytes = at.size();
  // The register part as wide as the memory operand.
  const Gp part = bytes == 1   ? Gp(reg.r8())
                  : bytes == 2 ? Gp(reg.r16())
                  : bytes == 4 ? Gp(reg.r32())
                               : Gp(reg.r64());
  if (bytes < 4) {
    ctx.b.movzx(reg.r32(), at);
  } else {
    ctx.b.mov(part, at);
  }
  if (ctx.copying()) emitStore(ctx, at, part);
}

void emitAddAdcBlock(EmitContext& ctx, const Gp& acc, int disp, int words) {
  for (int w = 0; w < words; ++w) {
    emitSumWord(ctx, w == 0 ? Inst::kIdAdd : Inst::kIdAdc, acc, ctx.qword(disp + 8 * w));
  }
  ctx.b.adc(acc, 0);
}

void emitFunction(EmitContext& ctx) {
  const auto& regs = ctx.regs;
  const Gp& acc0 = regs.accumulators.front();
  // Buffers under the short bound (64 bytes by default) skip the wide loop's remainder
  // tests, pushes and pops when the block is larger: they take their own path through the
  // tails below the bound.
  const bool shortPath = ctx.params.hasShortPath();
  // With the overlapping tail, buffers under 8 bytes (which have no 8 bytes to load) take a
  // tiny path of their own: the 4-2-1 ladder.
  const bool tinyPath = ctx.params.tail == Tail::Overlap;
  // sum=last: the short, tiny and exact paths start from zero or their first word and add the
  // sum (kept in edx) to the folded result; their scratch register is then r8 (caller-saved,
  // never pushed).
  const bool sumFirst = ctx.params.sum == SumEntry::First;
  const Gp shortScratch = sumFirst ? rdx : r8;
  Label returnSum = ctx.b.newLabel();
  Label shortBuffer = ctx.b.newLabel();
  Label tinyBuffer = ctx.b.newLabel();

  if (ctx.copying()) {
    // csum_and_copy(src, dst, len, sum): into the registers of csum_partial(src, len, sum),
    // with dst as its distance from src.
    ctx.b.mov(regs.delta, rsi);
    ctx.b.sub(regs.delta, rdi);
    ctx.b.mov(esi, edx);
    if (ctx.kernelCopyEntry) {
      ctx.b.mov(edx, -1);  // csum_partial_copy_generic(src, dst, len) starts from ~0
    } else {
      ctx.b.mov(edx, ecx);
    }
  }
  if (sumFirst) ctx.b.mov(acc0.r32(), edx);  // acc0 = sum, zero-extended
  // entry=inline is a lean entry laid out for the short buffers: they fall through its test
  // into the short path, and the exact path is out of line, so a short call takes no jump at
  // the entry tests (a taken jump costs the front end more than the compare).
  const bool inlined = shortPath && ctx.params.entry == Entry::Inline;
  Label exactBuffer;
  if (ctx.params.exact && inlined) {
    exactBuffer = ctx.b.newLabel();
    ctx.b.cmp(esi, ctx.params.exact);
    ctx.b.jz(exactBuffer);
  } else if (ctx.params.exact) {
    emitExactPath(ctx, ctx.b.newLabel());
  }
  const bool lean = shortPath && (ctx.params.entry == Entry::Lean || inlined);
  // entry=range: 8 <= len < bound as one unsigned compare of len - 8 (rcx is free: the
  // second accumulator is zeroed after, or with the loop's). Buffers under 8 bytes, and negative
  // lengths, meet the tests below, the tiny one first: it needs neither the zero extension nor the
  // zeroing.
  const bool ranged = shortPath && ctx.params.entry == Entry::Range;
  const bool forty = shortPath && ctx.params.entry == Entry::Forty;
  FortyLabels fortyLabels;
  if (forty) fortyLabels = emitFortyEntry(ctx, returnSum);
  // mid=N: buffers of up to N bytes (and not short) take the SIMD family's middle path: its
  // ladder reads the bits of len - 1, so N itself (256: a VPP comparison point, a power of two
  // buffers come in) needs no rung more than N - 1. One that stands
  // alone is tested right after a lean or forty entry's short test, which left only lengths of
  // at least the short bound below N (negative ones look huge): no zero extension, no zeroing.
  Label midBuffer;  // created only when used: other kernels' label numbers stay as they were
  const bool midAlone = ctx.params.hasMidPath() && ctx.family.midPathStandsAlone(ctx.params);
  const bool midEarly = midAlone && (lean || forty);
  const auto emitMidTest = [&] {
    midBuffer = ctx.b.newLabel();
    ctx.b.cmp(esi, ctx.params.mid + 1);
    ctx.b.jb(midBuffer);
  };
  // Only rax and rcx (the first two accumulators), rdx (never one of them) and r8 (the
  // scratch with sum=last, whose sum stays in edx) are used on the short paths: all
  // caller-saved, so nothing was pushed.
  const bool second = regs.accumulators.size() > 1 && ctx.params.tailChains == 2 &&
                      ctx.params.words == Words::Ladder;
  const auto emitShortBody = [&] {
    // lean: 0 <= len < bound here, nothing zeroed yet (only the low bits of esi are read);
    // range: 8 <= len < bound, and the same.
    // With one tail chain the second accumulator is never touched here.
    emitShortPreamble(ctx, (lean || ranged) && second);
    if (tinyPath && !ranged) {
      ctx.b.cmp(esi, 8);
      ctx.b.jb(tinyBuffer);
    }
    emitTailsAndFold(ctx, ctx.params.shortBelow / 2, shortScratch, nullptr, second, !sumFirst);
    ctx.b.ret();
  };
  if (inlined) {
    const Label longBuffer = ctx.b.newLabel();
    ctx.b.cmp(esi, ctx.params.shortBelow);
    ctx.b.jae(longBuffer);
    emitShortBody();
    if (ctx.params.exact) {
      ctx.b.bind(exactBuffer);
      emitExactBody(ctx, ctx.params.exact);
    }
    ctx.b.bind(longBuffer);
  } else if (lean) {
    ctx.b.cmp(esi, ctx.params.shortBelow);
    ctx.b.jb(shortBuffer);
  } else if (ranged) {
    ctx.b.lea(ecx, ptr(rsi, -8));
    ctx.b.cmp(ecx, ctx.params.shortBelow - 8);
    ctx.b.jb(shortBuffer);
  }
  if (midEarly) emitMidTest();
  if (!forty) {
    ctx.b.test(esi, esi);
    ctx.b.jle(returnSum);
  }
  if (ranged) {
    ctx.b.cmp(esi, 8);
    ctx.b.jb(tinyBuffer);
  }
  // len > 0: zero-extend it into the 64-bit byte count (entry=forty's addition of its 80 back
  // did: a 32-bit write clears the upper half).
  if (!forty) ctx.b.mov(esi, esi);
  if (regs.accumulators.size() > 1 && !secondIsLoopOnly(ctx)) {
    ctx.b.xor_(regs.accumulators[1].r32(), regs.accumulators[1].r32());
  }
  if (shortPath && !lean && !ranged && !forty) {
    ctx.b.cmp(esi, ctx.params.shortBelow);
    ctx.b.jb(shortBuffer);
  } else if (!shortPath && tinyPath) {
    ctx.b.cmp(esi, 8);
    ctx.b.jb(tinyBuffer);
  }
  if (ctx.params.hasMidPath() && !midEarly && midAlone) emitMidTest();
  if (!sumFirst) ctx.b.mov(acc0.r32(), edx);  // long buffers start from the sum
  // A middle path that does not stand alone starts from the sum as long buffers do.
  if (ctx.params.hasMidPath() && !midAlone) emitMidTest();
  for (const Gp& reg : regs.calleeSaved) ctx.b.push(reg);

  emitMainLoop(ctx);
  const Label folding = ctx.skipScalarTails();
  ctx.afterLoop = true;
  emitTailsAndFold(ctx, ctx.family.scalarTailTop(ctx.params), regs.scratch, &folding,
                   !secondIsLoopOnly(ctx), false);
  ctx.afterLoop = false;
  for (auto it = regs.calleeSaved.rbegin(); it != regs.calleeSaved.rend(); ++it) ctx.b.pop(*it);
  ctx.b.ret();

  if (forty) emitFortyPaths(ctx, fortyLabels, tinyBuffer, shortScratch, second);
  if (shortPath && !forty && !inlined) {
    ctx.b.bind(shortBuffer);
    emitShortBody();
  }
  if (ctx.params.hasMidPath()) {
    // Nothing pushed; rax holds the sum unless the path stands alone with sum=last. A tail=overlap
    // frame without a short path sent buffers under 8 bytes to the tiny path, so its overlapping
    // word stays in the buffer.
    ctx.b.bind(midBuffer);
    if (ctx.family.emitMidPath(ctx)) emitByteTail(ctx, regs.scratch);
    emitFold64(ctx, midAlone && !sumFirst);
    ctx.b.ret();
  }
  if (tinyPath) {
    // 1..7 bytes (0 too from a lean or forty entry): nothing pushed; the second accumulator
    // is not read here (entry=range and forty have not zeroed it, nor zero-extended the count:
    // only its low bits are read).
    ctx.b.bind(tinyBuffer);
    if (ctx.params.bounds == Bounds::Aligned) {
      // 0..7 bytes (0 only from a lean or forty entry): one load, which an empty buffer must
      // not do. With sum=last the load starts the accumulator, and an empty buffer returns
      // the sum.
      const Label fresh = sumFirst ? Label() : returnSum;
      // A lean or forty entry's 0 bytes: the test of the low 3 bits finds 0.
      emitAlignedBytes(ctx, shortScratch, !(lean || forty), fresh);
    } else {
      if (!sumFirst) ctx.b.xor_(eax, eax);
      emitByteLadder(ctx, shortScratch);
    }
    emitFold64(ctx, !sumFirst);
    ctx.b.ret();
  }
  ctx.b.bind(returnSum);
  if (!sumFirst) ctx.b.mov(eax, edx);
  ctx.b.ret();
  for (const auto& emit : ctx.outOfLine) emit();
}
}  // namespace csumtune::gen::detail
