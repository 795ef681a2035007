// Params: the handful of numbers and names that fully describe one checksum kernel.
//
// The canonical string form (`carry=adc,chains=4,unroll=16,prefetch=0,hint=t0`) is the
// identity of a kernel everywhere: in results.json, in emitted .S headers, on the command
// line. Parsing accepts any key order and fills missing keys with defaults; printing always
// gives every key in the fixed order.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace csumtune::gen {

// How carries out of the 64-bit (or vector-lane) additions are kept: one value per line of
// the family registry (carry_families.def), in its order.
enum class Carry : std::uint8_t {
#define CSUMTUNE_CARRY_FAMILY(name, function) name,
#include "csumtune/gen/carry_families.def"
#undef CSUMTUNE_CARRY_FAMILY
};

// Which prefetch instruction the main loop issues.
enum class Hint : std::uint8_t { T0, T1, T2, Nta };
inline constexpr int kHintCount = 4;

// How the last 1..7 bytes are summed: tested bit by bit with 4-, 2- and 1-byte loads
// (`ladder`), or as the 8 bytes that end at buf + len shifted right (`overlap`: one load,
// no branches on the bits; buffers under 8 bytes take a ladder of their own).
enum class Tail : std::uint8_t { Ladder, Overlap };
inline constexpr int kTailCount = 2;

// How the whole 8-byte words below the main loop's block are summed: unrolled add/adc blocks
// tested bit by bit from half the block down (`ladder`: fast, and its code grows with the
// block), or one loop of one word per iteration on one add/adc chain (`loop`: a few bytes of
// code whatever the block, for kernels that must be small).
enum class Words : std::uint8_t { Ladder, Loop };
inline constexpr int kWordsCount = 2;

// Where the initial sum enters the short and exact paths: into the first addition (`first`,
// as Linux does), or into the folded 32-bit result (`last`: the buffer's chain does not wait
// for the sum, so a checksum that continues another one depends on it for two additions
// only). Long buffers always start from the sum.
enum class SumEntry : std::uint8_t { First, Last };
inline constexpr int kSumEntryCount = 2;

// The first test at entry: `len <= 0` (`checked`, then the short bound), or the short bound
// as an unsigned compare (`lean`: 0 goes down the short path and reads nothing, a negative
// length looks huge and meets the len <= 0 test on the long path), which saves the short
// path two instructions. `range` (tail=overlap only) sends 8 <= len < bound to the short
// path with one unsigned compare of len - 8, so the short path needs no `len < 8` test of its
// own (its last bytes are the word that ends the buffer, always inside it); shorter and
// negative lengths go on to the len <= 0 and tiny tests. `forty` (tail=overlap, short=128 or 256)
// takes Linux's order instead: one compare with 40 sends exactly 40 bytes to straight-line
// code and splits the rest, 40-byte blocks come before the ladder of 32, 16 and 8 (see
// emitFortyPaths). `inline` is `lean` laid out for the short buffers: they fall through the
// test into the short path (the long ones jump over it), and an exact path sits out of line
// behind `jz`, so a short call takes no jump at the entry tests. Only frames with a short
// path differ.
enum class Entry : std::uint8_t { Checked, Lean, Range, Forty, Inline };
inline constexpr int kEntryCount = 5;

// What the kernel does with the bytes: sums them (`sum`: Linux's csum_partial(buf, len, sum)),
// or sums them while copying them to a destination in the same pass (`copy`:
// csum_and_copy(src, dst, len, sum), the job of the kernel's csum_partial_copy_generic): every
// word loaded is added and stored at the same offset from dst. General-purpose families only.
enum class Kind : std::uint8_t { Sum, Copy };
inline constexpr int kKindCount = 2;

// How a copying kernel's main loop stores (kind=copy, general-purpose families): `plain` movs,
// or `nt`, non-temporal movnti, which write around the cache (no read-for-ownership of the
// destination's lines) and are ordered by an sfence when the loop ends. That pays on long
// copies whose destination is not read again soon, and costs on hot and short ones (the
// destination must then come back from memory), so tune --kind copy tries both. Tails and
// short paths store plainly.
enum class Store : std::uint8_t { Plain, Nt };
inline constexpr int kStoreCount = 2;

// Which bytes outside the buffer a kernel may read (never use): none (`strict`), or those of
// an aligned 8-byte block that also holds a byte of the buffer (`aligned`: such a load never
// crosses a page, so it cannot fault, and the bytes it brings in are shifted out). With
// `aligned` the last bytes are one load wherever the 8 bytes that end at buf + len are not
// all in the buffer: the tiny path (buffers under 8 bytes) of tail=overlap, and every byte
// tail of tail=ladder. Summing kernels only (a copy must not store what it over-reads).
enum class Bounds : std::uint8_t { Strict, Aligned };
inline constexpr int kBoundsCount = 2;

// bounds=aligned: where the one load of the last 1..7 bytes takes its address. `computed`:
// always from the pointer and the count (the block that holds them, with a compare and a
// cmov). `pointer`: straight from the pointer when it is 8-aligned (then it is its own
// aligned block), computed only otherwise: two more instructions for an unaligned pointer,
// three fewer for an aligned one (and a taken jump), and cold a load that can issue at once keeps
// more calls' misses in flight than one that waits on its address. `straight`: `pointer` with
// the computed form out of line, after the function's last `ret`: an aligned pointer falls
// straight through (no taken jump, one instruction fewer), an unaligned one jumps there and
// back (one jump more).
enum class ByteLoad : std::uint8_t { Computed, Pointer, Straight };
inline constexpr int kByteLoadCount = 3;

// entry=forty's 80-byte block (buffers of 80 bytes up to the short bound): `chain` on the short
// paths' tail chains (one add/adc chain of ten words with one tail chain), `pair` on two
// chains of five words whatever the tail chains, the second started by a `mov` and added in
// right after, as Linux's own loop sums its 80 bytes. One chain of ten is the longest
// dependency of any short path; the rest of the short paths keep one chain, which cold calls
// run faster. `loop` (short=256 or 512): 80..159 bytes as `pair`, and from 160 the 80-byte
// block while 80 bytes are left, on two chains that run on from block to block (one chain of
// ten with one accumulator), then one 40-byte block and the ladder: Linux's own loop, short
// of its set-up. With it the short bound may exceed the main loop's block (lengths under the
// bound never enter the main loop: no set-up, no pushes, no tail after it), where a wide loop
// loses most to the file, from one block to two. Other entries ignore it (canonical()).
enum class Block80 : std::uint8_t { Chain, Pair, Loop };
inline constexpr int kBlock80Count = 3;

// How the avx2 family sums a vector (key `vsum`, carry=avx2 only). `halves` (the default: the
// code every avx2 string named before the key): the 32-bit halves of its 64-bit lanes into
// 64-bit lanes, five instructions a vector. `madd`: its words biased to signed and summed in
// pairs by vpmaddwd into 32-bit lanes, widened every ~1 MiB, three instructions a vector; the
// space searches this one.
enum class VectorSum : std::uint8_t { Halves, Madd };
inline constexpr int kVectorSumCount = 2;
// What the .S header says of a vsum=madd kernel's carry (the family's summary is halves').
inline constexpr std::string_view kMaddSummary =
    "AVX2: words biased to signed, summed in pairs by vpmaddwd into 32-bit lanes (user space)";

// Where the code that only jumps reach starts (key `targets`): right after the `ret` or `jmp`
// in front of it (`packed`), or at the next 16-byte boundary (`aligned`), the gap filled with
// NOPs that never run. A short call's few cycles depend on how its jump targets fall into the
// 16- and 32-byte windows the front end fetches; aligning them moves every path behind a jump
// to a window's start, at the cost of code size. Not every length gains, so the tuner's
// placement stage tries both. The instructions that run are the same.
enum class Targets : std::uint8_t { Packed, Aligned };
inline constexpr int kTargetsCount = 2;
inline constexpr int kTargetAlignment = 16;

// CPU features a kernel may need; the runtime checks them against the host before it
// runs anything.
// (Appended only: the values name bits elsewhere.) AVX512BW: byte-masked loads (mid=N of the
// AVX-512 families).
enum class CpuFeature : std::uint8_t { Adx, Avx2, Avx512F, Avx512Vnni, Avx512Bw };

std::string_view toString(Carry carry);
std::string_view toString(Hint hint);
std::string_view toString(CpuFeature feature);

// What the rest of the program needs to know about one carry family. Each family declares
// its traits in its own file (gen/src/families/); the registry lists them.
struct CarryTraits {
  Carry carry;
  std::string_view name;
  std::string_view summary;
  int unitBytes;         // bytes loaded per unroll step: 8 for GPR families, a vector for SIMD
  bool needsEvenChains;  // chains come in CF/OF pairs
  std::span<const CpuFeature> features;  // CPU features it needs

  // A SIMD family: its chains live in vector registers.
  constexpr bool isVector() const { return unitBytes > 8; }
  // General-purpose registers only: may run inside the Linux kernel (no kernel_fpu_begin).
  constexpr bool kernelSafe() const { return !isVector(); }
};

// Every registered family, in registry order; traitsOf indexes it.
const CarryTraits& traitsOf(Carry carry);
std::span<const CarryTraits* const> allCarryTraits();

struct ParamLimits {
  static constexpr int kMinChains = 1;
  static constexpr int kMaxChains = 8;
  static constexpr int kMinUnroll = 1;
  static constexpr int kMaxUnroll = 32;
  static constexpr int kMaxPrefetch = 4096;
  static constexpr int kPrefetchStep = 64;
  // exact=N: 0 (none) or kMinExact..kMaxExact.
  static constexpr int kMinExact = 8;
  static constexpr int kMaxExact = 256;
  // short=N: the short path's bound, 0 (none) or one of these.
  static constexpr int kShortBounds[] = {64, 128, 256};
  // entry=forty,block80=loop's bounds: its 80-byte block repeats (160 bytes up); the widest
  // keeps a wide main loop off the lengths it would take only once or twice.
  static constexpr int kLoopShortBounds[] = {256, 512};
  // mid=N: the SIMD families' middle path's bound, 0 (none) or one of these.
  static constexpr int kMidBounds[] = {128, 256, 512};
  // place=N: where the entry sits in a 64-byte line of code, 0 or one of these.
  static constexpr int kPlacements[] = {16, 32, 48};
  static constexpr int kPlacementLine = 64;
};

struct Params {
  Carry carry = Carry::Adc;
  int chains = 4;
  int unroll = 16;
  int prefetch = 0;  // bytes ahead of the load pointer; 0 = no prefetch
  Hint hint = Hint::T0;
  // The short path (keys added after the first five; their defaults give the kernels that
  // existed before them, byte for byte).
  Tail tail = Tail::Ladder;
  SumEntry sum = SumEntry::First;
  Entry entry = Entry::Checked;
  int exact = 0;  // a length with a straight-line path of its own (0 = none)
  // Accumulators the word tails spread over: 2 (independent chains), 1 (one add/adc
  // chain: fewer instructions, and a short path that never touches a second register), or
  // kShortTailChain (`tailchains=short`): one chain on the short paths (short, forty), two on
  // the tails after the main loop, where the second accumulator is live anyway and one chain
  // would be a long buffer's longest dependency. (The exact path keeps its own chains.)
  static constexpr int kShortTailChain = 3;
  int tailChains = 2;
  int shortBelow = 64;  // key `short`: buffers under it take the short path when the block
                        // is larger or block80=loop (0 = no short path)
  Words words = Words::Ladder;
  Kind kind = Kind::Sum;
  Store store = Store::Plain;
  Bounds bounds = Bounds::Strict;
  ByteLoad byteLoad = ByteLoad::Computed;  // key `byteload` (bounds=aligned only)
  Block80 block80 = Block80::Chain;        // key `block80` (entry=forty only)
  // SIMD families (kind=sum): buffers from the short bound (or 1) up to and including `mid` take
  // the middle path: the whole vectors in straight-line code and the last, partial one as a masked
  // load (AVX-512: vmovdqu8 under a byte mask; AVX2: vpmaskmovd of its whole dwords, the last 0..3
  // bytes by the frame's byte tail), one reduction, no loop set-up and no pushes. 0 = none.
  int mid = 0;
  VectorSum vsum = VectorSum::Halves;  // key `vsum` (carry=avx2 only)
  // Where the code sits: its first byte at this offset of a 64-byte line (the JIT places it
  // there, the .S files align and pad to it). Not an instruction of the kernel: the same
  // bytes run wherever they sit, but a short call's few cycles depend on how its branches and
  // their targets fall into the lines and windows the front end fetches, by a cycle either
  // way, and the file it is measured against sits wherever its link put it. 0 (a line's
  // start, what the JIT always did) or 16, 32, 48: the kernel aligns its functions to 16.
  int place = 0;
  Targets targets = Targets::Packed;

  // Chains the word tails spread over: on the short paths, or (afterLoop) after the main loop.
  int wordTailChains(bool afterLoop) const {
    if (tailChains == kShortTailChain) return afterLoop ? 2 : 1;
    return tailChains;
  }

  // Bytes consumed by one iteration of the main loop.
  int blockBytes() const { return unroll * traitsOf(carry).unitBytes; }

  // Canonical: the first five keys always, in their fixed order; the short-path keys after
  // them only where they differ from their defaults, so every string printed before they
  // existed is printed the same today.
  std::string toString() const;
  bool operator==(const Params&) const = default;
  // Any strict order (key by key), for sets of distinct kernels.
  auto operator<=>(const Params&) const = default;

  // The same kernel with equal parameters made equal: without prefetch the hint emits
  // nothing, so it is set to t0; a short bound the block does not exceed makes no short
  // path, so it is set to 64 (the default) — unless that would make one. Two Params give the
  // same code exactly when their canonical() forms are equal.
  Params canonical() const;

  // Whether the frame has a short path: a bound, and a block above it (or entry=forty's
  // looping 80-byte block, which takes any length under the bound).
  bool hasShortPath() const {
    return shortBelow > 0 &&
           (blockBytes() > shortBelow || (entry == Entry::Forty && block80 == Block80::Loop));
  }
  // Whether the frame has a middle path: a bound above the short path's (or a bound at all
  // when there is no short path).
  bool hasMidPath() const { return mid > (hasShortPath() ? shortBelow : 0); }
};

// Every value of `place`: a line's start and ParamLimits::kPlacements, in that order.
inline std::vector<int> allPlacements() {
  std::vector<int> out{0};
  out.insert(out.end(), std::begin(ParamLimits::kPlacements), std::end(ParamLimits::kPlacements));
  return out;
}

// Thrown for text that is not a well-formed parameter string, and for a parameter set
// that breaks a rule. The message names the key or the rule.
class ParamsError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Parses and validates. Throws ParamsError.
Params parseParams(std::string_view text);

// Parses without validating the cross-key rules (still rejects unknown keys and values).
Params parseParamsUnchecked(std::string_view text);

// Empty when valid; otherwise the message naming the first broken rule.
std::string validationError(const Params& params);

// Throws ParamsError when validationError() is non-empty.
void validate(const Params& params);

std::string_view toString(Tail tail);
std::string_view toString(Words words);
std::string_view toString(Kind kind);
std::string_view toString(Store store);
std::string_view toString(SumEntry sum);
std::string_view toString(Entry entry);
std::string_view toString(Bounds bounds);
std::string_view toString(ByteLoad byteLoad);
std::string_view toString(Block80 block80);
std::string_view toString(VectorSum vsum);
std::string_view toString(Targets targets);

// Features the CPU must have to run this kernel.
std::vector<CpuFeature> requiredFeatures(const Params& params);

struct SpaceFilter {
  bool kernelSafeOnly = false;
  bool distinctCodeOnly = false;  // only canonical() Params: one per distinct kernel
};

// The form of a loop the space has and the tuner searches: `p` with avx2 as vsum=madd (the
// halves form, vsum's default, stays valid but is not searched); any other family unchanged.
Params searchedForm(Params p);

// Every valid loop shape and prefetch setting (carry, chains, unroll, prefetch, hint) with the
// default short path, in a stable order, each in its searched form.
std::vector<Params> enumerateSpace(SpaceFilter filter = {});

// Which bounds frameVariants() tries: the strict form only (what tune's frame stage searches
// today), or strict and aligned (verify --frames, the tests).
enum class FrameBounds : std::uint8_t { StrictOnly, Both };

// The short-path variants of `loop` (its first five keys kept): every tail, sum entry,
// entry test, tail chain count and short bound, and exact paths for each of `exactLengths` (valid
// ones only) and none; with FrameBounds::Both each of them with bounds=aligned as well (where
// valid); distinct kernels only, the default first.
std::vector<Params> frameVariants(const Params& loop, const std::vector<int>& exactLengths,
                                  FrameBounds bounds = FrameBounds::StrictOnly);

// The size-class variants of `frame` (a SIMD kernel; none for the others): its other keys
// kept, every middle bound (kMidBounds) with every short bound (none included) below it; valid
// and distinct kernels only, each with a middle path. tune's frame stage measures those of its
// best SIMD frames (without the ones that lack a short path); the tests link a few.
std::vector<Params> sizeClassVariants(const Params& frame);

// The loop of `p`: its loop keys (the first five and vsum), kind and store, with every frame
// key at its default. The one place that says which keys make a loop: the tuner's stages
// rebuild loops through it (a key missing here would be dropped on the way).
Params loopKeysOf(const Params& p);

// `loop` (its loop keys, kind and store kept) in its most compact frame: the word loop
// instead of the unrolled ladder, no short path, the rest as by default. The smallest code a
// loop shape can have (within a few bytes), so a size-limited search can rank the shape.
Params compactFrame(const Params& loop);

}  // namespace csumtune::gen
