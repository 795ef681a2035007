// verifyCopyKernel: the checks of verifyKernel, and the copy's own — every byte copied, none
// written outside the destination.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "verify/dirty_call.hpp"
#include "verify/fault_trap.hpp"
#include "verify/verify.hpp"

namespace csumtune::tuner {
namespace {

constexpr int kCanaryBytes = 256;  // checked on either side of the destination
constexpr std::uint8_t kCanary = 0x5a;

// The destination of a case: at another alignment than the source, and against the other
// guard page when the source is against one, so that both buffers meet both guard pages.
Placement destinationFor(Placement source) {
  switch (source.kind) {
    case Placement::AgainstEnd:
      return {Placement::AgainstStart, 0};
    case Placement::AgainstStart:
      return {Placement::AgainstEnd, 0};
    case Placement::Aligned:
      break;
  }
  return {Placement::Aligned, (source.alignment * 5 + 17) % 64};
}

// [from, to) clamped to the buffer.
struct CanaryWindow {
  std::uint8_t* from;
  std::uint8_t* to;
};
CanaryWindow around(const GuardedBuffer& buffer, std::uint8_t* dst, int len) {
  return {std::max(buffer.data(), dst - kCanaryBytes),
          std::min(buffer.end(), dst + len + kCanaryBytes)};
}

// The destination is written: a buffer of the thread's own (the fixture is shared), kept from
// kernel to kernel, since each case fills the canary bytes around its destination first.
GuardedBuffer& threadTarget() {
  thread_local GuardedBuffer target(VerifyFixture::kMaxLength + 64 + 64);
  return target;
}

}  // namespace

VerifyOutcome verifyCopyKernel(CopyFn fn, const VerifyFixture& fixture, const VerifyPlan& plan) {
  VerifyOutcome outcome;
  GuardedBuffer& target = threadTarget();
  const VerifyCase* current = nullptr;
  const std::uint8_t* currentSrc = nullptr;
  const std::uint8_t* currentDst = nullptr;
  const auto where = [&](const VerifyCase& c) {
    return fmt::format("len={} src {} dst {} data={} sum={:#010x}", c.len,
                       describePlacement(c.placement),
                       describePlacement(destinationFor(c.placement)), toString(c.pattern), c.sum);
  };

  const auto fault = runTrappingFaults([&] {
    for (const VerifyCase& c : plan.cases) {
      current = &c;
      const auto& region = fixture.region(c.pattern);
      std::uint32_t expected;
      std::uint8_t* dst = nullptr;
      CanaryWindow canary{nullptr, nullptr};
      if (c.len <= 0) {
        // Touches nothing: both pointers are in a guard page.
        currentSrc = static_cast<const std::uint8_t*>(fixture.unreadable());
        dst = target.data() - 4096;
        currentDst = dst;
        expected = residue(c.sum);
      } else {
        currentSrc = placeBuffer(region.buffer, c.len, c.placement, plan.trailingSlack);
        dst = placeBuffer(target, c.len, destinationFor(c.placement), 0);
        currentDst = dst;
        canary = around(target, dst, c.len);
        std::fill(canary.from, canary.to, kCanary);
        expected =
            region.reference.residueAt(static_cast<std::size_t>(currentSrc - region.buffer.data()),
                                       static_cast<std::size_t>(c.len), c.sum);
      }
      // About half the cases with garbage above the 32-bit length and sum (verify.cpp).
      const auto upper = dirtyUpperHalf(static_cast<std::size_t>(&c - plan.cases.data()), c.len);
      const std::uint32_t got = callWithUpperHalves(fn, currentSrc, dst, c.len, c.sum, upper);
      ++outcome.calls;
      if (residue(got) != expected) {
        outcome.failure = fmt::format(
            "wrong sum for {}: expected residue {:#06x}, kernel returned {:#010x} (residue "
            "{:#06x}){}",
            where(c), expected, got, residue(got), describeUpperHalf(upper));
        return;
      }
      if (c.len <= 0) continue;
      const auto len = static_cast<std::size_t>(c.len);
      if (std::memcmp(dst, currentSrc, len) != 0) {
        const auto wrong = std::mismatch(dst, dst + len, currentSrc).first - dst;
        outcome.failure =
            fmt::format("wrong copy for {}: dst[{}] differs from src", where(c), wrong);
        return;
      }
      const auto stray = [&](std::uint8_t* from, std::uint8_t* to) {
        return std::find_if(from, to, [](std::uint8_t b) { return b != kCanary; });
      };
      if (auto* before = stray(canary.from, dst); before != dst) {
        outcome.failure =
            fmt::format("wrote outside the destination for {}: dst{:+}", where(c), before - dst);
        return;
      }
      if (auto* after = stray(dst + len, canary.to); after != canary.to) {
        outcome.failure =
            fmt::format("wrote outside the destination for {}: dst{:+}", where(c), after - dst);
        return;
      }
    }
  });
  if (fault && fault->ranPastItsCode()) {
    outcome.failure = fmt::format("ran past the end of its own code for {}", where(*current));
  } else if (fault) {
    const auto at = static_cast<std::intptr_t>(fault->address);
    outcome.failure =
        fmt::format("touched memory outside the buffers for {}: fault at src{:+} / dst{:+}",
                    where(*current), at - reinterpret_cast<std::intptr_t>(currentSrc),
                    at - reinterpret_cast<std::intptr_t>(currentDst));
  }
  return outcome;
}

}  // namespace csumtune::tuner
