#include "csumtune/gen/params.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace csumtune::gen {
namespace {

constexpr std::array<std::string_view, kHintCount> kHintNames{"t0", "t1", "t2", "nta"};
constexpr std::array<std::string_view, 5> kFeatureNames{"ADX", "AVX2", "AVX512F", "AVX512_VNNI",
                                                        "AVX512BW"};
constexpr std::array<std::string_view, kTailCount> kTailNames{"ladder", "overlap"};
constexpr std::array<std::string_view, kWordsCount> kWordsNames{"ladder", "loop"};
constexpr std::array<std::string_view, kSumEntryCount> kSumNames{"first", "last"};
constexpr std::array<std::string_view, kEntryCount> kEntryNames{"checked", "lean", "range", "forty",
                                                                "inline"};
constexpr std::array<std::string_view, kKindCount> kKindNames{"sum", "copy"};
constexpr std::array<std::string_view, kStoreCount> kStoreNames{"plain", "nt"};
constexpr std::array<std::string_view, kBoundsCount> kBoundsNames{"strict", "aligned"};
constexpr std::array<std::string_view, kByteLoadCount> kByteLoadNames{"computed", "pointer",
                                                                      "straight"};
constexpr std::array<std::string_view, kBlock80Count> kBlock80Names{"chain", "pair", "loop"};
constexpr std::array<std::string_view, kVectorSumCount> kVectorSumNames{"halves", "madd"};
constexpr std::array<std::string_view, kTargetsCount> kTargetsNames{"packed", "aligned"};

// "a, b, c": the names a message lists as the accepted values.
template <typename Names>
std::string listOf(const Names& names) {
  std::string out;
  for (std::string_view name : names) out += fmt::format("{}{}", out.empty() ? "" : ", ", name);
  return out;
}

std::vector<std::string_view> carryNames() {
  std::vector<std::string_view> names;
  for (const CarryTraits* traits : allCarryTraits()) names.push_back(traits->name);
  return names;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

int parseInt(std::string_view key, std::string_view value) {
  int out = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
  if (value.empty() || ec != std::errc() || ptr != value.data() + value.size()) {
    throw ParamsError(fmt::format("{}={} is not an integer", key, value));
  }
  return out;
}

Carry parseCarry(std::string_view value) {
  for (const CarryTraits* traits : allCarryTraits()) {
    if (traits->name == value) return traits->carry;
  }
  throw ParamsError(fmt::format("carry={} is unknown (expected {})", value, listOf(carryNames())));
}

// The enum value whose name (in `names`, in enum order) is `value`.
template <typename Enum, typename Names>
Enum parseName(std::string_view key, std::string_view value, const Names& names) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == value) return static_cast<Enum>(i);
  }
  throw ParamsError(fmt::format("{}={} is unknown (expected {})", key, value, listOf(names)));
}

}  // namespace

std::string_view toString(Carry carry) {
  return traitsOf(carry).name;
}
std::string_view toString(Words words) {
  return kWordsNames.at(static_cast<std::size_t>(words));
}

std::string_view toString(Store store) {
  return kStoreNames.at(static_cast<std::size_t>(store));
}

std::string_view toString(Bounds bounds) {
  return kBoundsNames.at(static_cast<std::size_t>(bounds));
}

std::string_view toString(ByteLoad byteLoad) {
  return kByteLoadNames.at(static_cast<std::size_t>(byteLoad));
}
std::string_view toString(Block80 block80) {
  return kBlock80Names.at(static_cast<std::size_t>(block80));
}
std::string_view toString(VectorSum vsum) {
  return kVectorSumNames.at(static_cast<std::size_t>(vsum));
}
std::string_view toString(Targets targets) {
  return kTargetsNames.at(static_cast<std::size_t>(targets));
}

std::string_view toString(Kind kind) {
  return kKindNames.at(static_cast<std::size_t>(kind));
}
std::string_view toString(Tail tail) {
  return kTailNames.at(static_cast<std::size_t>(tail));
}
std::string_view toString(SumEntry sum) {
  return kSumNames.at(static_cast<std::size_t>(sum));
}
std::string_view toString(Entry entry) {
  return kEntryNames.at(static_cast<std::size_t>(entry));
}
std::string_view toString(Hint hint) {
  return kHintNames.at(static_cast<std::size_t>(hint));
}

std::string_view toString(CpuFeature feature) {
  return kFeatureNames.at(static_cast<std::size_t>(feature));
}

std::string Params::toString() const {
  const Params defaults;
  std::string text =
      fmt::format("carry={},chains={},unroll={},prefetch={},hint={}", gen::toString(carry), chains,
                  unroll, prefetch, gen::toString(hint));
  if (tail != defaults.tail) text += fmt::format(",tail={}", gen::toString(tail));
  if (sum != defaults.sum) text += fmt::format(",sum={}", gen::toString(sum));
  if (entry != defaults.entry) text += fmt::format(",entry={}", gen::toString(entry));
  if (exact != defaults.exact) text += fmt::format(",exact={}", exact);
  if (shortBelow != defaults.shortBelow) text += fmt::format(",short={}", shortBelow);
  if (tailChains == kShortTailChain) {
    text += ",tailchains=short";
  } else if (tailChains != defaults.tailChains) {
    text += fmt::format(",tailchains={}", tailChains);
  }
  if (words != defaults.words) text += fmt::format(",words={}", gen::toString(words));
  if (kind != defaults.kind) text += fmt::format(",kind={}", gen::toString(kind));
  if (store != defaults.store) text += fmt::format(",store={}", gen::toString(store));
  if (bounds != defaults.bounds) text += fmt::format(",bounds={}", gen::toString(bounds));
  if (byteLoad != defaults.byteLoad) text += fmt::format(",byteload={}", gen::toString(byteLoad));
  if (block80 != defaults.block80) text += fmt::format(",block80={}", gen::toString(block80));
  if (mid != defaults.mid) text += fmt::format(",mid={}", mid);
  if (vsum != defaults.vsum) text += fmt::format(",vsum={}", gen::toString(vsum));
  if (place != defaults.place) text += fmt::format(",place={}", place);
  if (targets != defaults.targets) text += fmt::format(",targets={}", gen::toString(targets));
  return text;
}

namespace {

// The keys of a parameter string, in canonical order, each with what it sets: the parser
// reads this table, so a new key is one row (and its field, default and printing).
struct KeyRule {
  std::string_view name;
  void (*set)(Params& params, std::string_view key, std::string_view value);
};
constexpr KeyRule kKeyRules[] = {
    {"carry", [](Params& p, std::string_view, std::string_view v) { p.carry = parseCarry(v); }},
    {"chains",
     [](Params& p, std::string_view k, std::string_view v) { p.chains = parseInt(k, v); }},
    {"unroll",
     [](Params& p, std::string_view k, std::string_view v) { p.unroll = parseInt(k, v); }},
    {"prefetch",
     [](Params& p, std::string_view k, std::string_view v) { p.prefetch = parseInt(k, v); }},
    {"hint", [](Params& p, std::string_view k,
                std::string_view v) { p.hint = parseName<Hint>(k, v, kHintNames); }},
    {"tail", [](Params& p, std::string_view k,
                std::string_view v) { p.tail = parseName<Tail>(k, v, kTailNames); }},
    {"sum", [](Params& p, std::string_view k,
               std::string_view v) { p.sum = parseName<SumEntry>(k, v, kSumNames); }},
    {"entry", [](Params& p, std::string_view k,
                 std::string_view v) { p.entry = parseName<Entry>(k, v, kEntryNames); }},
    {"exact", [](Params& p, std::string_view k, std::string_view v) { p.exact = parseInt(k, v); }},
    {"short",
     [](Params& p, std::string_view k, std::string_view v) { p.shortBelow = parseInt(k, v); }},
    {"tailchains",
     [](Params& p, std::string_view k, std::string_view v) {
       // A count of chains, or `short` (whose stand-in value is not one).
       if (v == "short") {
         p.tailChains = Params::kShortTailChain;
       } else if (v == "1" || v == "2") {
         p.tailChains = parseInt(k, v);
       } else {
         throw ParamsError(fmt::format("tailchains must be 1, 2 or short (got {})", v));
       }
     }},
    {"words", [](Params& p, std::string_view k,
                 std::string_view v) { p.words = parseName<Words>(k, v, kWordsNames); }},
    {"kind", [](Params& p, std::string_view k,
                std::string_view v) { p.kind = parseName<Kind>(k, v, kKindNames); }},
    {"store", [](Params& p, std::string_view k,
                 std::string_view v) { p.store = parseName<Store>(k, v, kStoreNames); }},
    {"bounds", [](Params& p, std::string_view k,
                  std::string_view v) { p.bounds = parseName<Bounds>(k, v, kBoundsNames); }},
    {"byteload",
     [](Params& p, std::string_view k, std::string_view v) {
       p.byteLoad = parseName<ByteLoad>(k, v, kByteLoadNames);
     }},
    {"block80", [](Params& p, std::string_view k,
                   std::string_view v) { p.block80 = parseName<Block80>(k, v, kBlock80Names); }},
    {"mid", [](Params& p, std::string_view k, std::string_view v) { p.mid = parseInt(k, v); }},
    {"vsum", [](Params& p, std::string_view k,
                std::string_view v) { p.vsum = parseName<VectorSum>(k, v, kVectorSumNames); }},
    {"place", [](Params& p, std::string_view k, std::string_view v) { p.place = parseInt(k, v); }},
    {"targets", [](Params& p, std::string_view k,
                   std::string_view v) { p.targets = parseName<Targets>(k, v, kTargetsNames); }},
};
constexpr std::size_t kKeyCount = std::size(kKeyRules);

std::string keyList() {
  std::string out;
  for (const KeyRule& rule : kKeyRules)
    out += fmt::format("{}{}", out.empty() ? "" : ", ", rule.name);
  return out;
}

}  // namespace

Params parseParamsUnchecked(std::string_view text) {
  Params params;
  std::array<bool, kKeyCount> seen{};
  text = trim(text);
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (item.empty()) throw ParamsError("empty item in parameter string (two commas in a row?)");
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) {
      throw ParamsError(fmt::format("'{}' is not key=value", item));
    }
    const std::string_view key = trim(item.substr(0, eq));
    const std::string_view value = trim(item.substr(eq + 1));
    const auto rule = std::find_if(std::begin(kKeyRules), std::end(kKeyRules),
                                   [&](const KeyRule& r) { return r.name == key; });
    if (rule == std::end(kKeyRules)) {
      throw ParamsError(fmt::format("unknown key '{}' (expected {})", key, keyList()));
    }
    const auto index = static_cast<std::size_t>(rule - std::begin(kKeyRules));
    if (seen[index]) throw ParamsError(fmt::format("key '{}' given twice", key));
    seen[index] = true;
    rule->set(params, key, value);
  }
  return params;
}

Params Params::canonical() const {
  Params out = *this;
  if (out.prefetch == 0) out.hint = Hint::T0;
  // Every bound that makes no short path gives the same code: the default when it makes
  // none for this block, else 0.
  // A kernel with one accumulator has one tail chain whatever is asked.
  if (!traitsOf(out.carry).isVector() && out.chains == 1) out.tailChains = Params{}.tailChains;
  // The word loop runs on one chain: the tail chains make no difference then.
  if (out.words == Words::Loop) out.tailChains = Params{}.tailChains;
  // A middle bound at or below the short path's makes no middle path (decided before the
  // short bound is normalised: it is compared with the bound that takes effect).
  if (!out.hasMidPath()) out.mid = 0;
  // Only bounds=aligned loads the last bytes as one word: the strict forms have no such load.
  if (out.bounds == Bounds::Strict) out.byteLoad = ByteLoad::Computed;
  // block80 is entry=forty's. `pair` makes no difference where its 80-byte block is on two
  // chains already (two tail chains on the word ladder) or can have only one; `loop` always
  // does (the block repeats, and the short bound may pass the main loop's block).
  const bool oneAccumulator = !traitsOf(out.carry).isVector() && out.chains == 1;
  if (!out.hasShortPath() || out.entry != Entry::Forty ||
      (out.block80 == Block80::Pair &&
       (oneAccumulator || (out.tailChains == 2 && out.words == Words::Ladder))))
    out.block80 = Block80::Chain;
  if (!out.hasShortPath()) {
    out.shortBelow = out.blockBytes() <= Params{}.shortBelow ? 64 : 0;
    out.entry = Entry::Checked;
    // tailchains=short differs from 2 only on the short paths (the exact and tiny paths do not
    // read it): without one it is 2's code.
    if (out.tailChains == kShortTailChain) out.tailChains = Params{}.tailChains;
  }
  return out;
}

Params parseParams(std::string_view text) {
  Params params = parseParamsUnchecked(text);
  validate(params);
  return params;
}

std::string validationError(const Params& p) {
  using L = ParamLimits;
  const CarryTraits& traits = traitsOf(p.carry);
  if (p.chains < L::kMinChains || p.chains > L::kMaxChains) {
    return fmt::format("chains must be in {}..{} (got {})", L::kMinChains, L::kMaxChains, p.chains);
  }
  if (p.unroll < L::kMinUnroll || p.unroll > L::kMaxUnroll) {
    return fmt::format("unroll must be in {}..{} (got {})", L::kMinUnroll, L::kMaxUnroll, p.unroll);
  }
  if (p.unroll % p.chains != 0) {
    return fmt::format("unroll must be a multiple of chains (got unroll={}, chains={})", p.unroll,
                       p.chains);
  }
  if (traits.needsEvenChains && p.chains % 2 != 0) {
    return fmt::format("{} needs an even chain count (CF and OF chains come in pairs; got {})",
                       traits.name, p.chains);
  }
  if (p.prefetch < 0 || p.prefetch > L::kMaxPrefetch || p.prefetch % L::kPrefetchStep != 0) {
    return fmt::format("prefetch must be 0..{} in steps of {} (got {})", L::kMaxPrefetch,
                       L::kPrefetchStep, p.prefetch);
  }
  if (p.tailChains != 1 && p.tailChains != 2 && p.tailChains != Params::kShortTailChain) {
    return fmt::format("tailchains must be 1, 2 or short (got {})", p.tailChains);
  }
  if (p.exact != 0 && (p.exact < L::kMinExact || p.exact > L::kMaxExact)) {
    return fmt::format("exact must be 0 (none) or {}..{} (got {})", L::kMinExact, L::kMaxExact,
                       p.exact);
  }
  if (p.vsum != VectorSum::Halves && p.carry != Carry::Avx2) {
    return fmt::format("vsum={} is for carry=avx2 (carry={} has one way to sum)", toString(p.vsum),
                       toString(p.carry));
  }
  // avx512vnni counts its iterations in r10, the register a copied word passes through.
  if (p.kind == Kind::Copy && p.carry == Carry::Avx512Vnni) {
    return "kind=copy is for adc, adcx, add32, cmov, avx2 and avx512 (not avx512vnni)";
  }
  if (p.store == Store::Nt && (p.kind != Kind::Copy || !traitsOf(p.carry).kernelSafe())) {
    return "store=nt is for copying kernels (kind=copy) of the general-purpose families: "
           "movnti stores general-purpose registers";
  }
  if (p.bounds == Bounds::Aligned && p.kind != Kind::Sum) {
    return "bounds=aligned is for summing kernels (kind=sum): a copy must not store the bytes "
           "it reads outside the buffer";
  }
  if ((p.entry == Entry::Range || p.entry == Entry::Forty) && p.tail != Tail::Overlap) {
    return fmt::format(
        "entry={} is for tail=overlap: its short path takes the last bytes as the word that "
        "ends the buffer, which needs len >= 8",
        toString(p.entry));
  }
  if (p.entry == Entry::Forty && p.hasShortPath() && p.shortBelow < 128) {
    return fmt::format(
        "entry=forty is for short=128 or 256 (or 512 with block80=loop): it tells 80 bytes "
        "and more from fewer (got short={})",
        p.shortBelow);
  }
  const auto& loopBounds = L::kLoopShortBounds;
  const bool looping = p.block80 == Block80::Loop && p.entry == Entry::Forty;
  if (looping && p.shortBelow != 0 &&
      std::find(std::begin(loopBounds), std::end(loopBounds), p.shortBelow) ==
          std::end(loopBounds)) {
    return fmt::format(
        "block80=loop is for short={}: below 256 the 80-byte block cannot repeat (got short={})",
        fmt::join(std::begin(loopBounds), std::end(loopBounds), " or "), p.shortBelow);
  }
  if (p.entry == Entry::Forty && p.exact == 40) {
    return "entry=forty has its own path for exactly 40 bytes: leave exact=40 out";
  }
  const auto& bounds = L::kShortBounds;
  if (p.shortBelow != 0 && !looping &&
      std::find(std::begin(bounds), std::end(bounds), p.shortBelow) == std::end(bounds)) {
    return fmt::format("short must be 0 (none) or one of {} (got {})",
                       fmt::join(std::begin(bounds), std::end(bounds), ", "), p.shortBelow);
  }
  const auto& mids = L::kMidBounds;
  if (p.mid != 0 && std::find(std::begin(mids), std::end(mids), p.mid) == std::end(mids)) {
    return fmt::format("mid must be 0 (none) or one of {} (got {})",
                       fmt::join(std::begin(mids), std::end(mids), ", "), p.mid);
  }
  if (p.mid != 0 && (!traits.isVector() || p.kind != Kind::Sum)) {
    return "mid is for summing kernels (kind=sum) of the SIMD families (avx2, avx512, "
           "avx512vnni): its last vector is a masked load";
  }
  const auto& places = L::kPlacements;
  if (p.place != 0 &&
      std::find(std::begin(places), std::end(places), p.place) == std::end(places)) {
    return fmt::format(
        "place must be 0 or one of {} (the entry's offset in a {}-byte line; got {})",
        fmt::join(std::begin(places), std::end(places), ", "), L::kPlacementLine, p.place);
  }
  return {};
}

void validate(const Params& params) {
  if (std::string error = validationError(params); !error.empty()) throw ParamsError(error);
}

std::vector<CpuFeature> requiredFeatures(const Params& params) {
  const auto features = traitsOf(params.carry).features;
  std::vector<CpuFeature> out{features.begin(), features.end()};
  // The AVX-512 middle path's byte-masked load (vmovdqu8, kmovq) is AVX512BW.
  if (params.hasMidPath() && traitsOf(params.carry).unitBytes == 64)
    out.push_back(CpuFeature::Avx512Bw);
  return out;
}

Params searchedForm(Params p) {
  // avx2 is searched in its madd form: three vector instructions a vector where the halves
  // take five (both stay valid; an avx2 string without vsum is halves).
  if (p.carry == Carry::Avx2) p.vsum = VectorSum::Madd;
  return p;
}

std::vector<Params> enumerateSpace(SpaceFilter filter) {
  using L = ParamLimits;
  std::vector<Params> space;
  for (const CarryTraits* traits : allCarryTraits()) {
    if (filter.kernelSafeOnly && !traits->kernelSafe()) continue;
    for (int chains = L::kMinChains; chains <= L::kMaxChains; ++chains) {
      for (int unroll = chains; unroll <= L::kMaxUnroll; unroll += chains) {
        for (int prefetch = 0; prefetch <= L::kMaxPrefetch; prefetch += L::kPrefetchStep) {
          for (int hint = 0; hint < kHintCount; ++hint) {
            const Params p = searchedForm(
                Params{traits->carry, chains, unroll, prefetch, static_cast<Hint>(hint)});
            if (filter.distinctCodeOnly && !(p.canonical() == p)) continue;
            if (validationError(p).empty()) space.push_back(p);
          }
        }
      }
    }
  }
  return space;
}

namespace {

// Variants in the order they are first made, each once. A loop has thousands of frame
// variants: a linear search of the list for each new one made listing them quadratic.
class DistinctVariants {
 public:
  // Adds `p` when it is valid and not there yet.
  void add(const Params& p) {
    if (validationError(p).empty() && seen_.insert(p).second) list_.push_back(p);
  }
  std::size_t size() const { return list_.size(); }
  const Params& operator[](std::size_t i) const { return list_[i]; }
  std::vector<Params> take() { return std::move(list_); }

 private:
  std::vector<Params> list_;
  std::set<Params> seen_;
};

}  // namespace

std::vector<Params> frameVariants(const Params& loop, const std::vector<int>& exactLengths,
                                  FrameBounds which) {
  std::vector<int> exacts{0};
  for (int n : exactLengths) {
    if (n >= ParamLimits::kMinExact && n <= ParamLimits::kMaxExact &&
        std::find(exacts.begin(), exacts.end(), n) == exacts.end())
      exacts.push_back(n);
  }
  std::vector<int> bounds{Params{}.shortBelow, 0};
  for (int b : ParamLimits::kShortBounds)
    if (std::find(bounds.begin(), bounds.end(), b) == bounds.end()) bounds.push_back(b);
  DistinctVariants out;
  for (int t = 0; t < kTailCount * kSumEntryCount * kEntryCount * 2 * kWordsCount; ++t) {
    for (int exact : exacts) {
      for (int bound : bounds) {
        Params p = loop;
        p.tail = static_cast<Tail>(t % kTailCount);
        p.sum = static_cast<SumEntry>(t / kTailCount % kSumEntryCount);
        p.entry = static_cast<Entry>(t / (kTailCount * kSumEntryCount) % kEntryCount);
        p.tailChains = 2 - t / (kTailCount * kSumEntryCount * kEntryCount) % 2;
        p.words = static_cast<Words>(t / (kTailCount * kSumEntryCount * kEntryCount * 2));
        p.exact = exact;
        p.shortBelow = bound;
        out.add(p.canonical());
      }
    }
  }
  // tailchains=short after the others, so that the variants that existed before it keep
  // their order: every one-chain frame again, with two chains after the main loop.
  const std::size_t withoutShortChain = out.size();
  for (std::size_t i = 0; i < withoutShortChain; ++i) {
    if (out[i].tailChains != 1) continue;
    Params p = out[i];
    p.tailChains = Params::kShortTailChain;
    out.add(p.canonical());
  }
  // block80=pair after those, for the same reason: every entry=forty frame whose 80-byte block
  // is one chain, again with two.
  const std::size_t withoutPair = out.size();
  for (std::size_t i = 0; i < withoutPair; ++i) {
    Params p = out[i];
    p.block80 = Block80::Pair;
    p = p.canonical();
    if (p.block80 == Block80::Pair) out.add(p);
  }
  // block80=loop after those: every frame again as entry=forty with each of its bounds, where
  // the 80-byte block repeats; from every entry, since a main loop's block no larger than the
  // bound has no short path of another entry to start from.
  const std::size_t withoutLoop = out.size();
  for (int bound : ParamLimits::kLoopShortBounds) {
    for (std::size_t i = 0; i < withoutLoop; ++i) {
      Params p = out[i];
      p.entry = Entry::Forty;
      p.block80 = Block80::Loop;
      p.shortBelow = bound;
      p = p.canonical();
      if (p.block80 == Block80::Loop) out.add(p);
    }
  }
  if (which == FrameBounds::Both) {
    const std::size_t strict = out.size();
    for (ByteLoad load : {ByteLoad::Computed, ByteLoad::Pointer, ByteLoad::Straight}) {
      for (std::size_t i = 0; i < strict; ++i) {
        Params p = out[i];
        p.bounds = Bounds::Aligned;
        p.byteLoad = load;
        out.add(p.canonical());
      }
    }
  }
  return out.take();
}

std::vector<Params> sizeClassVariants(const Params& frame) {
  DistinctVariants out;
  if (!traitsOf(frame.carry).isVector() || frame.kind != Kind::Sum) return out.take();
  for (int mid : ParamLimits::kMidBounds) {
    std::vector<int> shorts{0};
    for (int b : ParamLimits::kShortBounds) shorts.push_back(b);
    for (int bound : shorts) {
      if (bound >= mid) continue;
      Params p = frame;
      p.mid = mid;
      p.shortBelow = bound;
      // The entry test only differs with a short path: keep the frame's where there is one.
      p = p.canonical();
      if (p.hasMidPath()) out.add(p);
    }
  }
  return out.take();
}

Params loopKeysOf(const Params& p) {
  Params loop{p.carry, p.chains, p.unroll, p.prefetch, p.hint};
  loop.vsum = p.vsum;
  loop.kind = p.kind;
  loop.store = p.store;
  return loop;
}

Params compactFrame(const Params& loop) {
  Params p = loopKeysOf(loop);
  p.words = Words::Loop;
  p.shortBelow = 0;
  return p.canonical();
}

}  // namespace csumtune::gen
