#include "verify/verify.hpp"

#include <algorithm>
#include <climits>
#include <random>

#include <fmt/format.h>

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
      return buffer.data();
    case Placement::AgainstEnd:
      return buffer.end() - len - slack;
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
      return "starting right after a guard page";
    case Placement::AgainstEnd:
      return "ending right before a guard page";
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

VerifyPlan quickPlan(int blockBytes, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const auto sums = initialSums(rng);
  std::vector<int> lengths;
  for (int len = 0; len <= 2 * blockBytes + 72; ++len) lengths.push_back(len);
  for (int len : {1500, 4095, 4096 + blockBytes + 7, 65535, 65536}) lengths.push_back(len);

  VerifyPlan plan{"quick", {}};
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

VerifyFixture::VerifyFixture(std::uint64_t seed) {
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

VerifyOutcome verifyKernel(KernelFn fn, const VerifyFixture& fixture, const VerifyPlan& plan) {
  VerifyOutcome outcome;
  // Written before every call and read after a fault: lives outside the trapped body.
  const VerifyCase* current = nullptr;
  const std::uint8_t* currentBuf = nullptr;

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
      const std::uint32_t got = fn(currentBuf, c.len, c.sum);
      ++outcome.calls;
      if (residue(got) != expected) {
        outcome.failure = fmt::format(
            "wrong sum for len={} {} data={} sum={:#010x}: expected residue {:#06x}, kernel "
            "returned {:#010x} (residue {:#06x})",
            c.len, describePlacement(c.placement), toString(c.pattern), c.sum, expected, got,
            residue(got));
        return;
      }
    }
  });
  if (fault) {
    const auto offset =
        static_cast<std::intptr_t>(*fault) - reinterpret_cast<std::intptr_t>(currentBuf);
    outcome.failure =
        fmt::format("read outside the buffer for len={} {} data={} sum={:#010x}: fault at buf{:+}",
                    current->len, describePlacement(current->placement), toString(current->pattern),
                    current->sum, offset);
  }
  return outcome;
}

}  // namespace csumtune::tuner
