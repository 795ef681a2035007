// The checker must be able to fail: each deliberately broken kernel below has a bug seen in
// real checksum code, and each must be caught.
#include <gtest/gtest.h>

#include <cstring>
#include <set>

#include "measure/baselines.hpp"
#include "verify/verify.hpp"

// Runs on past its last instruction into what the JIT leaves after a kernel: int3.
asm(R"(
  .text
  .type verifier_test_runs_on, @function
verifier_test_runs_on:
  mov %edx, %eax
  int3
  .size verifier_test_runs_on, .-verifier_test_runs_on
)");
extern "C" std::uint32_t verifier_test_runs_on(const void*, int, std::uint32_t);

// Read the 32-bit length and sum as 64 bits, whose upper halves the ABI leaves undefined: a
// `test %rsi` that takes garbage for a negative length, an `add %rdx` that adds it.
asm(R"(
  .text
  .type verifier_test_wide_length, @function
verifier_test_wide_length:
  test %rsi, %rsi
  jle 1f
  jmp verifier_test_plain@PLT
1:
  mov %edx, %eax
  ret
  .size verifier_test_wide_length, .-verifier_test_wide_length
  .type verifier_test_wide_sum, @function
verifier_test_wide_sum:
  push %rdx
  xor %edx, %edx
  call verifier_test_plain@PLT
  mov %eax, %eax
  pop %rdx
  add %rdx, %rax
  mov %rax, %rcx
  shr $32, %rcx
  add %ecx, %eax
  adc $0, %eax
  ret
  .size verifier_test_wide_sum, .-verifier_test_wide_sum
)");
extern "C" std::uint32_t verifier_test_wide_length(const void*, int, std::uint32_t);
extern "C" std::uint32_t verifier_test_wide_sum(const void*, int, std::uint32_t);

namespace csumtune::tuner {
namespace {

// A correct kernel in plain C: 16-bit words, 64-bit sum, folded to 32 bits.
std::uint32_t plainKernel(const void* buf, int len, std::uint32_t sum) {
  const auto* p = static_cast<const std::uint8_t*>(buf);
  std::uint64_t total = sum;
  int i = 0;
  for (; i + 1 < len; i += 2) total += p[i] | (p[i + 1] << 8);
  if (i < len) total += p[i];
  total = (total & 0xffffffff) + (total >> 32);
  total = (total & 0xffffffff) + (total >> 32);
  return static_cast<std::uint32_t>(total);
}

// Reads a whole 8-byte word for the tail: one of the classic over-reads.
std::uint32_t overReadsTail(const void* buf, int len, std::uint32_t sum) {
  if (len <= 0) return sum;
  const auto* p = static_cast<const std::uint8_t*>(buf);
  const int whole = len & ~7;
  std::uint32_t s = plainKernel(buf, whole, sum);
  if (len != whole) {
    std::uint64_t word;
    std::memcpy(&word, p + whole, 8);  // past the end when len % 8 != 0
    word &= (~std::uint64_t{0}) >> (64 - 8 * (len - whole));
    std::uint64_t total = std::uint64_t{s} + (word & 0xffffffff) + (word >> 32);
    total = (total & 0xffffffff) + (total >> 32);
    s = static_cast<std::uint32_t>(total);
  }
  return s;
}

// Touches the byte before the buffer (an "align down" bug).
std::uint32_t underReads(const void* buf, int len, std::uint32_t sum) {
  if (len <= 0) return sum;
  volatile std::uint8_t before = static_cast<const std::uint8_t*>(buf)[-1];
  (void)before;
  return plainKernel(buf, len, sum);
}

// Loses the carry of the initial sum when it is >= 2^31 (the DPDK/passt bug).
std::uint32_t losesCarryOfLargeSum(const void* buf, int len, std::uint32_t sum) {
  std::uint32_t s = plainKernel(buf, len, 0);
  return s + sum;  // 32-bit add, carry dropped
}

// Forgets the odd last byte.
std::uint32_t dropsOddByte(const void* buf, int len, std::uint32_t sum) {
  return plainKernel(buf, len & ~1, sum);
}

// Reads the buffer even when len <= 0.
std::uint32_t readsOnEmpty(const void* buf, int len, std::uint32_t sum) {
  volatile std::uint8_t first = *static_cast<const std::uint8_t*>(buf);
  (void)first;
  return plainKernel(buf, len, sum);
}

// Wrong only for long buffers (the VPP AVX-512 bug shape: lengths >= 512).
std::uint32_t wrongFrom512(const void* buf, int len, std::uint32_t sum) {
  return plainKernel(buf, len, sum) + (len >= 512 ? 1 : 0);
}

}  // namespace
}  // namespace csumtune::tuner

// The plain kernel for the assembly above.
extern "C" std::uint32_t verifier_test_plain(const void* buf, int len, std::uint32_t sum) {
  return csumtune::tuner::plainKernel(buf, len, sum);
}

namespace csumtune::tuner {
namespace {

class VerifierTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { fixture_ = new VerifyFixture(42); }
  static void TearDownTestSuite() { delete fixture_; }
  static VerifyFixture* fixture_;
};
VerifyFixture* VerifierTest::fixture_ = nullptr;

TEST_F(VerifierTest, PlainKernelPassesBothPlans) {
  EXPECT_TRUE(verifyKernel(plainKernel, *fixture_, fullPlan(1)).ok());
  EXPECT_TRUE(verifyKernel(plainKernel, *fixture_, quickPlan(64, 1)).ok());
}

struct Broken {
  const char* name;
  KernelFn fn;
  const char* expectedWords;
};

class CatchesBrokenKernels : public VerifierTest, public ::testing::WithParamInterface<Broken> {};

TEST_P(CatchesBrokenKernels, InBothPlans) {
  for (const VerifyPlan& plan : {fullPlan(3), quickPlan(64, 3)}) {
    const auto outcome = verifyKernel(GetParam().fn, *fixture_, plan);
    ASSERT_FALSE(outcome.ok()) << GetParam().name << " passed the " << plan.name << " plan";
    EXPECT_NE(outcome.failure->find(GetParam().expectedWords), std::string::npos)
        << *outcome.failure;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Bugs, CatchesBrokenKernels,
    ::testing::Values(Broken{"over-read", overReadsTail, "read outside the buffer"},
                      Broken{"under-read", underReads, "fault at buf-1"},
                      Broken{"large-sum", losesCarryOfLargeSum, "wrong sum"},
                      Broken{"odd-byte", dropsOddByte, "wrong sum"},
                      Broken{"reads-on-empty", readsOnEmpty, "read outside the buffer for len="},
                      Broken{"from-512", wrongFrom512, "wrong sum"},
                      Broken{"runs-on", verifier_test_runs_on, "ran past the end of its own code"},
                      Broken{"wide-length", verifier_test_wide_length, "wrong sum"},
                      Broken{"wide-sum", verifier_test_wide_sum, "wrong sum"}),
    [](const auto& info) {
      std::string name = info.param.name;
      for (char& c : name)
        if (c == '-') c = '_';
      return name;
    });

// Copying kernels (kind=copy): a correct one in plain C, and the bugs a copy can have.
std::uint32_t plainCopy(const void* src, void* dst, int len, std::uint32_t sum) {
  if (len > 0) std::memcpy(dst, src, static_cast<std::size_t>(len));
  return plainKernel(src, len, sum);
}

// Leaves the last byte uncopied (a tail that sums but forgets to store).
std::uint32_t copiesOneShort(const void* src, void* dst, int len, std::uint32_t sum) {
  if (len > 1) std::memcpy(dst, src, static_cast<std::size_t>(len - 1));
  return plainKernel(src, len, sum);
}

// Stores the tail as a whole 8-byte word: up to 7 bytes past the destination.
std::uint32_t overWritesTail(const void* src, void* dst, int len, std::uint32_t sum) {
  if (len <= 0) return sum;
  const int whole = len & ~7;
  std::memcpy(dst, src, static_cast<std::size_t>(whole));
  if (len != whole) {
    std::uint8_t word[8] = {};
    std::memcpy(word, static_cast<const std::uint8_t*>(src) + whole,
                static_cast<std::size_t>(len - whole));
    std::memcpy(static_cast<std::uint8_t*>(dst) + whole, word, 8);
  }
  return plainKernel(src, len, sum);
}

// Writes one byte before the destination.
std::uint32_t writesBefore(const void* src, void* dst, int len, std::uint32_t sum) {
  if (len > 0) static_cast<volatile std::uint8_t*>(dst)[-1] = 0;
  return plainCopy(src, dst, len, sum);
}

// Sums the destination before it was written (a store/load mix-up).
std::uint32_t sumsTheDestination(const void* src, void* dst, int len, std::uint32_t sum) {
  const std::uint32_t s = plainKernel(dst, len, sum);
  if (len > 0) std::memcpy(dst, src, static_cast<std::size_t>(len));
  return s;
}

// Writes through dst even when len <= 0.
std::uint32_t writesOnEmpty(const void* src, void* dst, int len, std::uint32_t sum) {
  *static_cast<volatile std::uint8_t*>(dst) = 0;
  return plainCopy(src, dst, len, sum);
}

TEST_F(VerifierTest, PlainCopyPassesBothPlans) {
  EXPECT_TRUE(verifyCopyKernel(plainCopy, *fixture_, fullPlan(1)).ok());
  EXPECT_TRUE(verifyCopyKernel(plainCopy, *fixture_, quickPlan(64, 1)).ok());
}

TEST_F(VerifierTest, CatchesBrokenCopies) {
  const struct {
    const char* name;
    CopyFn fn;
    const char* expectedWords;
  } broken[] = {{"one short", copiesOneShort, "wrong copy"},
                {"over-write", overWritesTail, "wrote outside the destination"},
                {"writes before", writesBefore, "wrote outside the destination for len=1 "},
                {"sums dst", sumsTheDestination, "wrong sum"},
                {"writes on empty", writesOnEmpty, "touched memory outside the buffers"}};
  for (const auto& b : broken) {
    for (const VerifyPlan& plan : {fullPlan(3), quickPlan(64, 3)}) {
      const auto outcome = verifyCopyKernel(b.fn, *fixture_, plan);
      ASSERT_FALSE(outcome.ok()) << b.name << " passed the " << plan.name << " plan";
      EXPECT_NE(outcome.failure->find(b.expectedWords), std::string::npos)
          << b.name << ": " << *outcome.failure;
    }
  }
}

TEST_F(VerifierTest, TheProcessSurvivesAFaultAndKeepsChecking) {
  EXPECT_FALSE(verifyKernel(overReadsTail, *fixture_, quickPlan(8, 1)).ok());
  EXPECT_TRUE(verifyKernel(plainKernel, *fixture_, quickPlan(8, 1)).ok());
}

// bounds=aligned (issue 26): the contract lets a load touch bytes outside the buffer inside
// an aligned 8-byte block that holds a byte of it. These kernels load whole aligned words at
// the edges of the buffer, as arm64's do_csum does.
std::uint64_t loadAt(std::uintptr_t at) {
  return *reinterpret_cast<const volatile std::uint64_t*>(at);
}

// Right: the aligned words of the first and the last byte, the bytes outside the buffer
// shifted out of them (the sum itself is the plain one).
std::uint32_t readsAlignedWords(const void* buf, int len, std::uint32_t sum) {
  if (len <= 0) return sum;
  const auto at = reinterpret_cast<std::uintptr_t>(buf);
  const auto end = at + static_cast<std::uintptr_t>(len);
  const std::uint64_t first = loadAt(at & ~std::uintptr_t{7}) >> (8 * (at & 7));
  const std::uint64_t last = loadAt((end - 1) & ~std::uintptr_t{7}) << (8 * (-end & 7));
  const std::uint32_t s = plainKernel(buf, len, sum);
  // Both are the buffer's bytes only: their low / high byte is the first / last one.
  const auto* p = static_cast<const std::uint8_t*>(buf);
  if ((first & 0xff) != p[0] || (last >> 56) != p[len - 1]) return s + 1;
  return s;
}

// Wrong: also the aligned word after the one of the last byte (one block too far).
std::uint32_t readsOneBlockFurther(const void* buf, int len, std::uint32_t sum) {
  if (len <= 0) return sum;
  const auto end = reinterpret_cast<std::uintptr_t>(buf) + static_cast<std::uintptr_t>(len);
  (void)loadAt(((end - 1) & ~std::uintptr_t{7}) + 8);
  return plainKernel(buf, len, sum);
}

// Wrong: also the aligned word before the one of the first byte.
std::uint32_t readsOneBlockBefore(const void* buf, int len, std::uint32_t sum) {
  if (len <= 0) return sum;
  (void)loadAt((reinterpret_cast<std::uintptr_t>(buf) & ~std::uintptr_t{7}) - 8);
  return plainKernel(buf, len, sum);
}

// Wrong: Linux's load_unaligned_zeropad tail, 8 bytes from the last byte on: crosses into the
// next block (and page) unless the last byte starts one.
std::uint32_t readsUnalignedPastEnd(const void* buf, int len, std::uint32_t sum) {
  if (len <= 0) return sum;
  const auto* p = static_cast<const std::uint8_t*>(buf);
  std::uint64_t word;
  std::memcpy(&word, p + len - 1, 8);
  const std::uint32_t s = plainKernel(buf, len, sum);
  return static_cast<std::uint8_t>(word) == p[len - 1] ? s : s + 1;
}

// Wrong: counts the byte after the buffer when it shares the last byte's block (a tail that
// shifts the garbage out one byte short).
std::uint32_t sumsTheByteAfter(const void* buf, int len, std::uint32_t sum) {
  if (len <= 0) return sum;
  const auto end = reinterpret_cast<std::uintptr_t>(buf) + static_cast<std::uintptr_t>(len);
  const std::uint32_t s = plainKernel(buf, len, sum);
  if ((end & 7) == 0) return s;
  const std::uint64_t word = loadAt(end & ~std::uintptr_t{7});
  const auto after = static_cast<std::uint8_t>(word >> (8 * (end & 7)));
  return s + ((len & 1) ? after * 256u : after);
}

TEST_F(VerifierTest, OverReadPlansPutTheBufferAtEveryGapFromBothGuardPages) {
  const VerifyPlan plan = withOverReads(fullPlan(1), 8);
  EXPECT_EQ(plan.overReadBlock, 8);
  std::set<std::pair<int, int>> ends, starts;
  for (const VerifyCase& c : plan.cases) {
    if (c.placement.kind == Placement::AgainstEnd) ends.insert({c.len, c.placement.gap});
    if (c.placement.kind == Placement::AgainstStart) starts.insert({c.len, c.placement.gap});
  }
  for (int len = 0; len <= 136; ++len) {
    for (int gap = 0; gap < 64; ++gap) {
      EXPECT_TRUE(ends.count({len, gap})) << len << " ending " << gap << " before the guard";
      EXPECT_TRUE(starts.count({len, gap})) << len << " starting " << gap << " after the guard";
    }
  }
  // The plan's longer lengths too, each at a gap below the block.
  EXPECT_TRUE(ends.count({4097, 4097 % 8}));
  // The quick plan samples: every gap at both ends over the lengths, every gap below 8 for
  // every length mod 8.
  std::set<int> quickEnds, quickStarts;
  std::set<std::pair<int, int>> tails;
  for (const VerifyCase& c : withOverReads(quickPlan(64, 1), 8).cases) {
    if (c.len < 0 || c.len > 136 || c.placement.kind == Placement::Aligned) continue;
    (c.placement.kind == Placement::AgainstEnd ? quickEnds : quickStarts).insert(c.placement.gap);
    if (c.placement.kind == Placement::AgainstEnd && c.placement.gap < 8)
      tails.insert({c.len % 8, c.placement.gap});
  }
  EXPECT_EQ(quickEnds.size(), 64u);
  EXPECT_EQ(quickStarts.size(), 64u);
  EXPECT_EQ(tails.size(), 64u);
  // Strict kernels' plans are left alone.
  gen::Params strict;
  EXPECT_EQ(forParams(quickPlan(64, 1), strict).overReadBlock, 0);
  gen::Params aligned;
  aligned.bounds = gen::Bounds::Aligned;
  EXPECT_EQ(forParams(quickPlan(64, 1), aligned).overReadBlock, 8);
}

TEST_F(VerifierTest, AlignedWordReadsPassTheOverReadPlans) {
  for (const VerifyPlan& plan :
       {withOverReads(fullPlan(5), 8), withOverReads(quickPlan(64, 5), 8)}) {
    const auto outcome = verifyKernel(readsAlignedWords, *fixture_, plan);
    EXPECT_TRUE(outcome.ok()) << plan.name << ": " << outcome.failure.value_or("");
    EXPECT_TRUE(verifyKernel(plainKernel, *fixture_, plan).ok()) << plan.name;
  }
}

TEST_F(VerifierTest, OverReadPlansCatchReadsBeyondTheAlignedBlocks) {
  const struct {
    const char* name;
    KernelFn fn;
    const char* expectedWords;
  } broken[] = {
      {"one block further", readsOneBlockFurther, "read outside the aligned 8-byte blocks"},
      {"one block before", readsOneBlockBefore, "read outside the aligned 8-byte blocks"},
      {"unaligned past the end", readsUnalignedPastEnd, "read outside the aligned 8-byte blocks"},
      {"the buffer's edge one byte off", underReads, "read outside the aligned 8-byte blocks"},
      {"reads on empty", readsOnEmpty, "blocks of the buffer for len=0"},
      {"whole word past the end", overReadsTail, "read outside the aligned 8-byte blocks"}};
  for (const auto& b : broken) {
    for (const VerifyPlan& plan :
         {withOverReads(fullPlan(3), 8), withOverReads(quickPlan(64, 3), 8)}) {
      const auto outcome = verifyKernel(b.fn, *fixture_, plan);
      ASSERT_FALSE(outcome.ok()) << b.name << " passed the " << plan.name << " plan";
      EXPECT_NE(outcome.failure->find(b.expectedWords), std::string::npos)
          << b.name << ": " << *outcome.failure;
    }
  }
}

TEST_F(VerifierTest, OverReadPlansCatchBytesOutsideTheBufferInTheSum) {
  // Random data catches it as a wrong sum; all-zero data (the byte after is 0) only by the
  // second run, with the bytes around the buffer complemented.
  const auto outcome = verifyKernel(sumsTheByteAfter, *fixture_, withOverReads(fullPlan(3), 8));
  ASSERT_FALSE(outcome.ok());
  VerifyPlan zeros = withOverReads(quickPlan(64, 3), 8);
  std::erase_if(zeros.cases,
                [](const VerifyCase& c) { return c.pattern != DataPattern::AllZeros; });
  const auto second = verifyKernel(sumsTheByteAfter, *fixture_, zeros);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.failure->find("bytes outside the buffer changed the sum"), std::string::npos)
      << *second.failure;
}

// The baselines every figure is compared with are proven like any kernel: linux-v6.8 over
// Linux's domain (len >= 0), plain-c over the whole contract.
TEST_F(VerifierTest, TheBaselinesPassTheFullPlan) {
  for (const Baseline& b : builtinBaselines()) {
    auto plan = fullPlan(5);
    if (!b.acceptsNegativeLength) plan = withoutNegativeLengths(std::move(plan));
    const auto outcome = verifyKernel(b.fn, *fixture_, plan);
    EXPECT_TRUE(outcome.ok()) << b.name << ": " << outcome.failure.value_or("");
  }
  EXPECT_EQ(std::string(linuxV68Baseline().name), "linux-v6.8");
  // The copying kernels' reference, our own csum-copy_64.S algorithm, as a copy.
  const auto copy = verifyCopyKernel(csumtune_linux_csum_copy, *fixture_, fullPlan(5));
  EXPECT_TRUE(copy.ok()) << kLinuxCsumCopyName << ": " << copy.failure.value_or("");
}

}  // namespace
}  // namespace csumtune::tuner
