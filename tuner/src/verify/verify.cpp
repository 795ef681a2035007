#include "verify/verify.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <memory>
#include <optional>
#include <random>
#include <set>

#include <fmt/format.h>

#include "verify/dirty_call.hpp"
#include "verify/fault_trap.hpp"

namespace csumtune::tuner {
namespace {

constexpr DataPattern kPatterns[] = {DataPattern::Random, DataPattern::AllOnes,
                                     DataPattern::AllZeros};
constexpr int kNegativeLengths[] = {-1, -2, -64, INT_MIN};

std::vector<std::uint32_t> initialSums(std::mt19937_64& rng) {
  // 0, the all-ones sum (carry storms; DPDK and passt lose carries from sums >= 2^31) and
  // random values, some of them with the top bit set.
  return {0u, 0xffffffffu, static_cast<std::uint32_t>(rng()),
          static_cast<std::uint32_t>(rng()) | 0x80000000u};
}

}  // namespace

std::uint8_t* placeBuffer(const GuardedBuffer& buffer, int len, Placement placement, int slack) {
  switch (placement.kind) {
    case Placement::AgainstStart:
      return buffer.data() + placement.gap;
    case Placement::AgainstEnd:
      return buffer.end() - len - slack - placement.gap;
    case Placement::Aligned:
      break;
  }
  // As close to the trailing guard as the requested alignment allows (0..63 bytes of slack,
  // at least `slack`).
  std::uint8_t* at = buffer.end() - len - slack;
  const auto misalign = (reinterpret_cast<std::uintptr_t>(at) - placement.alignment) & 63;
  return at - misalign;
}

std::string describePlacement(Placement placement) {
  switch (placement.kind) {
    case Placement::AgainstStart:
      return placement.gap == 0
                 ? std::string("starting right after a guard page")
                 : fmt::format("starting {} bytes after a guard page", placement.gap);
    case Placement::AgainstEnd:
      return placement.gap == 0 ? std::string("ending right before a guard page")
                                : fmt::format("ending {} bytes before a guard page", placement.gap);
    case Placement::Aligned:
      break;
  }
  return fmt::format("at alignment {} mod 64", placement.alignment);
}

const char* toString(DataPattern pattern) {
  switch (pattern) {
    case DataPattern::Random:
      return "random";
    case DataPattern::AllOnes:
      return "all-0xff";
    case DataPattern::AllZeros:
      return "all-0x00";
  }
  return "?";
}

VerifyPlan fullPlan(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto sums = initialSums(rng);
  std::vector<int> lengths;
  for (int len = 0; len <= 1024; ++len) lengths.push_back(len);
  for (int len : {1500, 2047, 2048, 4095, 4096, 4097, 9000, 65535, 65536}) lengths.push_back(len);
  std::uniform_int_distribution<int> longLength(1025, static_cast<int>(VerifyFixture::kMaxLength));
  for (int i = 0; i < 40; ++i) lengths.push_back(longLength(rng));

  VerifyPlan plan{"full", {}};
  std::size_t rotate = 0;
  for (DataPattern pattern : kPatterns) {
    for (int len : lengths) {
      // Long lengths at every 8th alignment: the code paths do not depend on more.
      const int step = len <= 1024 ? 1 : 8;
      for (int alignment = 0; alignment < 64; alignment += step) {
        plan.cases.push_back(
            {len, {Placement::Aligned, alignment}, pattern, sums[rotate++ % sums.size()]});
      }
      for (std::uint32_t sum : sums) {
        plan.cases.push_back({len, {Placement::AgainstEnd, 0}, pattern, sum});
        plan.cases.push_back({len, {Placement::AgainstStart, 0}, pattern, sum});
      }
    }
  }
  for (int len : kNegativeLengths) {
    for (std::uint32_t sum : sums) plan.cases.push_back({len, {}, DataPattern::Random, sum});
  }
  return plan;
}

VerifyPlan withTrailingSlack(VerifyPlan plan, int bytes) {
  plan.trailingSlack = bytes;
  plan.name += fmt::format(", {} readable bytes after each buffer", bytes);
  return plan;
}

VerifyPlan withoutNegativeLengths(VerifyPlan plan) {
  std::erase_if(plan.cases, [](const VerifyCase& c) { return c.len < 0; });
  plan.name += ", len >= 0";
  return plan;
}

VerifyPlan withOverReads(VerifyPlan plan, int block) {
  std::set<int> lengths;  // (a plan has hundreds of thousands of cases: no linear search)
  for (const VerifyCase& c : plan.cases) {
    if (c.len >= 0) lengths.insert(c.len);
  }
  std::vector<std::uint32_t> sums;
  for (const VerifyCase& c : plan.cases) {
    if (sums.size() < 4 && std::find(sums.begin(), sums.end(), c.sum) == sums.end())
      sums.push_back(c.sum);
  }
  if (sums.empty()) sums.push_back(0);
  std::size_t i = 0;
  const auto add = [&](int len, Placement::Kind kind, int gap) {
    plan.cases.push_back({len, {kind, 0, gap}, kPatterns[i % 3], sums[i % sums.size()]});
    ++i;
  };
  constexpr int kEveryGapUpTo = 136;
  for (int len = 0; len <= kEveryGapUpTo; ++len) {
    if (plan.sampled) {
      for (int gap : {len / 8 % 8, (len * 13 + 5) % 64}) {
        add(len, Placement::AgainstEnd, gap);
        add(len, Placement::AgainstStart, gap);
      }
      continue;
    }
    for (int gap = 0; gap < 64; ++gap) {
      add(len, Placement::AgainstEnd, gap);
      add(len, Placement::AgainstStart, gap);
    }
  }
  for (int len : lengths) {
    if (len <= kEveryGapUpTo) continue;
    for (int gap : {len % block, (len * 7 + 3) % 64}) {
      add(len, Placement::AgainstEnd, gap);
      add(len, Placement::AgainstStart, gap);
    }
  }
  plan.overReadBlock = block;
  plan.name += fmt::format(", over-reads inside aligned {}-byte blocks", block);
  return plan;
}

VerifyPlan forParams(VerifyPlan plan, const gen::Params& params) {
  if (params.bounds == gen::Bounds::Aligned) return withOverReads(std::move(plan), 8);
  return plan;
}

namespace {

// Every length 0..pathsEnd + 2 blocks + 72, then long ones.
VerifyPlan quickPlanFrom(int pathsEnd, int blockBytes, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto sums = initialSums(rng);
  std::vector<int> lengths;
  for (int len = 0; len <= pathsEnd + 2 * blockBytes + 72; ++len) lengths.push_back(len);
  for (int len : {1500, 4095, 4096 + blockBytes + 7, 65535, 65536}) lengths.push_back(len);

  VerifyPlan plan{"quick", {}};
  plan.sampled = true;
  std::size_t i = 0;
  for (int len : lengths) {
    const DataPattern pattern = kPatterns[i % 3];
    const DataPattern other = kPatterns[(i + 1) % 3];
    const int alignment = static_cast<int>((i * 37 + 1) % 64);
    plan.cases.push_back({len, {Placement::Aligned, alignment}, pattern, sums[i % sums.size()]});
    plan.cases.push_back({len, {Placement::AgainstEnd, 0}, other, sums[(i + 1) % sums.size()]});
    ++i;
  }
  plan.cases.push_back({64, {Placement::AgainstStart, 0}, DataPattern::AllOnes, 0xffffffffu});
  for (int len : kNegativeLengths) plan.cases.push_back({len, {}, DataPattern::Random, sums[2]});
  return plan;
}

}  // namespace

VerifyPlan quickPlan(int blockBytes, std::uint64_t seed) {
  return quickPlanFrom(0, blockBytes, seed);
}

VerifyPlan quickPlan(const gen::Params& params, std::uint64_t seed) {
  // The main loop starts where the short and middle paths end: from there, every tail path
  // and zero, one and two iterations.
  int pathsEnd = 0;
  if (params.hasShortPath()) pathsEnd = params.shortBelow;
  if (params.hasMidPath()) pathsEnd = std::max(pathsEnd, params.mid + 1);
  if (pathsEnd <= params.blockBytes()) pathsEnd = 0;  // two blocks and 72 bytes cover them
  return quickPlanFrom(pathsEnd, params.blockBytes(), seed);
}

VerifyFixture::VerifyFixture(std::uint64_t seed) {
  static std::atomic<std::uint64_t> fixtures{0};
  id_ = ++fixtures;
  std::mt19937_64 rng(seed);
  // Room for the longest buffer at any alignment, plus slack for code that reads past the end.
  const std::size_t size = kMaxLength + 64 + 64;
  for (DataPattern pattern : kPatterns) {
    auto region = std::make_unique<Region>(size);
    GuardedBuffer& buffer = region->buffer;
    switch (pattern) {
      case DataPattern::Random:
        std::generate(buffer.data(), buffer.end(),
                      [&] { return static_cast<std::uint8_t>(rng()); });
        break;
      case DataPattern::AllOnes:
        std::fill(buffer.data(), buffer.end(), 0xff);
        break;
      case DataPattern::AllZeros:
        std::fill(buffer.data(), buffer.end(), 0x00);
        break;
    }
    region->reference = PrefixReference(buffer.data(), buffer.size());
    regions_.push_back(std::move(region));
  }
}

VerifyFixture::~VerifyFixture() = default;

const VerifyFixture::Region& VerifyFixture::region(DataPattern pattern) const {
  return *regions_.at(static_cast<std::size_t>(pattern));
}

const void* VerifyFixture::unreadable() const {
  return regions_.front()->buffer.data() - 4096;
}

namespace {

// A thread's copies of one fixture's regions, kept from kernel to kernel: verifying the space
// runs one short plan per kernel, and mapping, filling and unmapping three fresh copies each
// time cost more than the plan. Every user puts back what it changed.
struct RegionCopies {
  std::uint64_t fixture = 0;
  std::unique_ptr<GuardedBuffer> copies[3];
};
thread_local RegionCopies threadCopies;

// overReadBlock: copies of the fixture's regions (the fixture is shared and read-only) in
// which the other bytes of the aligned blocks that hold a buffer are complemented for one
// call and put back after it, so the second run costs a call, not a copy of the buffer.
class OtherGarbage {
 public:
  // One at a time on a thread (verifying is not re-entrant): another fixture's copies are
  // dropped here.
  OtherGarbage(const VerifyFixture& fixture, int block) : fixture_(fixture), block_(block) {
    if (threadCopies.fixture != fixture.id()) threadCopies = {fixture.id(), {}};
  }
  ~OtherGarbage() { restore(); }
  OtherGarbage(const OtherGarbage&) = delete;
  OtherGarbage& operator=(const OtherGarbage&) = delete;

  // The buffer at the same offset (so at the same place against the guard pages) in this
  // pattern's copy, its neighbours in its first and last blocks complemented.
  const std::uint8_t* around(DataPattern pattern, const std::uint8_t* buf, int len) {
    const GuardedBuffer& region = fixture_.region(pattern).buffer;
    GuardedBuffer& own = copyOf(pattern, region);
    restore();
    const auto offset = static_cast<std::size_t>(buf - region.data());
    const auto at = reinterpret_cast<std::uintptr_t>(buf);
    const auto mask = static_cast<std::uintptr_t>(block_) - 1;
    const std::size_t before = std::min<std::size_t>(at & mask, offset);
    const std::size_t after = std::min<std::size_t>(
        (-(at + static_cast<std::uintptr_t>(len))) & mask, region.size() - offset - len);
    changed_ = {&own, &region, offset - before, before, offset + len, after};
    complement(changed_.before, changed_.beforeBytes);
    complement(changed_.after, changed_.afterBytes);
    return own.data() + offset;
  }

 private:
  struct Changed {
    GuardedBuffer* own = nullptr;
    const GuardedBuffer* region = nullptr;
    std::size_t before = 0, beforeBytes = 0, after = 0, afterBytes = 0;
  };

  GuardedBuffer& copyOf(DataPattern pattern, const GuardedBuffer& region) {
    auto& slot = threadCopies.copies[static_cast<std::size_t>(pattern)];
    if (!slot) {
      slot = std::make_unique<GuardedBuffer>(region.size());
      std::copy(region.data(), region.end(), slot->data());
    }
    return *slot;
  }
  void complement(std::size_t from, std::size_t bytes) {
    for (std::size_t j = from; j < from + bytes; ++j)
      changed_.own->data()[j] = static_cast<std::uint8_t>(~changed_.region->data()[j]);
  }
  void restore() {
    if (!changed_.own) return;
    const auto put = [&](std::size_t from, std::size_t bytes) {
      std::copy_n(changed_.region->data() + from, bytes, changed_.own->data() + from);
    };
    put(changed_.before, changed_.beforeBytes);
    put(changed_.after, changed_.afterBytes);
    changed_ = {};
  }

  const VerifyFixture& fixture_;
  int block_;
  Changed changed_;
};

}  // namespace

VerifyOutcome verifyKernel(KernelFn fn, const VerifyFixture& fixture, const VerifyPlan& plan) {
  VerifyOutcome outcome;
  // Written before every call and read after a fault: lives outside the trapped body.
  const VerifyCase* current = nullptr;
  const std::uint8_t* currentBuf = nullptr;
  const char* currentRun = "";
  std::optional<OtherGarbage> otherGarbage;
  if (plan.overReadBlock > 0) otherGarbage.emplace(fixture, plan.overReadBlock);

  const auto fault = runTrappingFaults([&] {
    for (const VerifyCase& c : plan.cases) {
      current = &c;
      const auto& region = fixture.region(c.pattern);
      std::uint32_t expected;
      if (c.len <= 0) {
        // Reads nothing: the pointer is unreadable, and must not be touched.
        currentBuf = static_cast<const std::uint8_t*>(fixture.unreadable());
        expected = residue(c.sum);
      } else {
        currentBuf = placeBuffer(region.buffer, c.len, c.placement, plan.trailingSlack);
        expected =
            region.reference.residueAt(static_cast<std::size_t>(currentBuf - region.buffer.data()),
                                       static_cast<std::size_t>(c.len), c.sum);
      }
      currentRun = "";
      // About half the cases with garbage above the 32-bit length and sum (the second call
      // below the other way round).
      const auto index = static_cast<std::size_t>(&c - plan.cases.data());
      std::optional<std::uint32_t> upper = dirtyUpperHalf(index, c.len);
      const std::uint32_t got = callWithUpperHalves(fn, currentBuf, c.len, c.sum, upper);
      ++outcome.calls;
      if (residue(got) != expected) {
        outcome.failure = fmt::format(
            "wrong sum for len={} {} data={} sum={:#010x}: expected residue {:#06x}, kernel "
            "returned {:#010x} (residue {:#06x}){}",
            c.len, describePlacement(c.placement), toString(c.pattern), c.sum, expected, got,
            residue(got), describeUpperHalf(upper));
        return;
      }
      if (!otherGarbage || c.len <= 0) continue;
      // Which bytes beside the buffer a load may bring in depends on the start's offset in
      // its block, not on the alignment beyond it: the alignments below one block already
      // give every offset at every length.
      if (c.placement.kind == Placement::Aligned && c.placement.alignment >= plan.overReadBlock)
        continue;
      // The same bytes with other garbage around them in the blocks it may read.
      currentBuf = otherGarbage->around(c.pattern, currentBuf, c.len);
      currentRun = " (other bytes around it)";
      upper = upper ? std::nullopt : std::optional(upperHalfPattern(index));
      const std::uint32_t again = callWithUpperHalves(fn, currentBuf, c.len, c.sum, upper);
      ++outcome.calls;
      if (residue(again) != expected) {
        outcome.failure = fmt::format(
            "bytes outside the buffer changed the sum for len={} {} data={} sum={:#010x}: "
            "expected residue {:#06x}, kernel returned {:#010x} (residue {:#06x}) with the "
            "bytes around the buffer complemented{}",
            c.len, describePlacement(c.placement), toString(c.pattern), c.sum, expected, again,
            residue(again), describeUpperHalf(upper));
        return;
      }
    }
  });
  if (fault && fault->ranPastItsCode()) {
    outcome.failure =
        fmt::format("ran past the end of its own code for len={} {}{} data={}", current->len,
                    describePlacement(current->placement), currentRun, toString(current->pattern));
  } else if (fault) {
    const auto offset =
        static_cast<std::intptr_t>(fault->address) - reinterpret_cast<std::intptr_t>(currentBuf);
    const std::string what =
        plan.overReadBlock > 0
            ? fmt::format("read outside the aligned {}-byte blocks of the buffer",
                          plan.overReadBlock)
            : std::string("read outside the buffer");
    outcome.failure = fmt::format("{} for len={} {}{} data={} sum={:#010x}: fault at buf{:+}", what,
                                  current->len, describePlacement(current->placement), currentRun,
                                  toString(current->pattern), current->sum, offset);
  }
  return outcome;
}

}  // namespace csumtune::tuner
