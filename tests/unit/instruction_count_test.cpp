// bench --count-instructions: functions whose instruction count is known by construction are
// counted exactly, at every length, for both call shapes; a kernel that faults is reported.
#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "csumtune/cpu.hpp"
#include "csumtune/gen/params.hpp"
#include "csumtune/jit.hpp"
#include "measure/instruction_count.hpp"
#include "tune/middle_path.hpp"

// Three instructions whatever the length; 4 + 3 x len; a copy-shaped one of five; and one that
// reads address 0.
asm(R"(
  .text
  .type count_test_three, @function
count_test_three:
  mov %edx, %eax
  add %esi, %eax
  ret
  .size count_test_three, .-count_test_three

  .type count_test_loop, @function
count_test_loop:
  mov %edx, %eax
  test %esi, %esi
  jle 2f
1:
  add $1, %eax
  dec %esi
  jnz 1b
2:
  ret
  .size count_test_loop, .-count_test_loop

  .type count_test_copy, @function
count_test_copy:
  mov %ecx, %eax
  add %edx, %eax
  nop
  nop
  ret
  .size count_test_copy, .-count_test_copy

  .type count_test_fault, @function
count_test_fault:
  xor %eax, %eax
  mov (%rax), %eax
  ret
  .size count_test_fault, .-count_test_fault
)");
extern "C" std::uint32_t count_test_three(const void*, int, std::uint32_t);
extern "C" std::uint32_t count_test_loop(const void*, int, std::uint32_t);
extern "C" std::uint32_t count_test_copy(const void*, void*, int, std::uint32_t);
extern "C" std::uint32_t count_test_fault(const void*, int, std::uint32_t);

namespace csumtune::tuner {
namespace {

// ptrace may be forbidden where a developer runs the tests (never in CI, which has root).
#define SKIP_WITHOUT_PTRACE(statement)                                                  \
  try {                                                                                 \
    statement;                                                                          \
  } catch (const InstructionCountError& e) {                                            \
    const std::string what = e.what();                                                  \
    if (what.find("not permitted") != std::string::npos && !std::getenv("CSUMTUNE_CI")) \
      GTEST_SKIP() << what;                                                             \
    throw;                                                                              \
  }

TEST(InstructionCount, AStraightFunctionCountsItsOwnInstructionsAtEveryLength) {
  TimedKernel kernel{"three", "", TimedKind::Linked, &count_test_three};
  InstructionCountRequest request;
  request.sizes = {1, 2, 40, 1500};
  std::vector<std::uint64_t> counts;
  SKIP_WITHOUT_PTRACE(counts = countInstructions(kernel, request));
  EXPECT_EQ(counts, (std::vector<std::uint64_t>{3, 3, 3, 3}));
}

TEST(InstructionCount, ALoopCountsEveryIteration) {
  TimedKernel kernel{"loop", "", TimedKind::Linked, &count_test_loop};
  InstructionCountRequest request;
  request.sizes = {1, 7, 64, 1000};
  request.offset = 5;
  std::vector<std::uint64_t> counts;
  SKIP_WITHOUT_PTRACE(counts = countInstructions(kernel, request));
  ASSERT_EQ(counts.size(), request.sizes.size());
  for (std::size_t i = 0; i < counts.size(); ++i)
    EXPECT_EQ(counts[i], 4u + 3u * static_cast<unsigned>(request.sizes[i])) << request.sizes[i];
}

// Taken branches by construction: the straight function takes only its ret; the loop its
// back edge len - 1 times, plus the ret (the jnz falls through once; jle never jumps).
TEST(InstructionCount, TakenBranchesAreTheJumpsTakenAndTheRet) {
  InstructionCountRequest request;
  request.sizes = {1, 7, 64};
  std::vector<CallCount> three, loop;
  SKIP_WITHOUT_PTRACE(three =
                          countCalls({"three", "", TimedKind::Linked, &count_test_three}, request));
  SKIP_WITHOUT_PTRACE(loop =
                          countCalls({"loop", "", TimedKind::Linked, &count_test_loop}, request));
  ASSERT_EQ(loop.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(three[i].takenBranches, 1u);
    EXPECT_EQ(loop[i].takenBranches, static_cast<std::uint64_t>(request.sizes[i]))
        << request.sizes[i];
    EXPECT_EQ(loop[i].instructions, 4u + 3u * static_cast<unsigned>(request.sizes[i]));
  }
}

// entry=forty's first compare sends exactly 40 bytes to straight-line code: one jump and the
// ret. Under 8 bytes it jumps to the tiny path (and returns); a Linux-style frame's tests fall
// through more.
TEST(InstructionCount, EntryFortyTakesOneJumpAtFortyBytes) {
  const csumtune::Kernel kernel =
      csumtune::Jit::compile("carry=adc,chains=6,unroll=30,tail=overlap,entry=forty,short=128");
  InstructionCountRequest request;
  request.sizes = {40};
  std::vector<CallCount> counts;
  SKIP_WITHOUT_PTRACE(counts = countCalls({"forty", "", TimedKind::Linked, kernel.fn()}, request));
  ASSERT_EQ(counts.size(), 1u);
  EXPECT_EQ(counts[0].takenBranches, 2u);
}

// entry=inline runs lean's instructions in another order: a short call falls through both
// entry compares (lean with an exact path jumps past it, then to the short path), so it takes
// two jumps fewer at every length 1..127 but 40 (the exact path: one more, its jz), as many
// from 128 (its jump over the short path for lean's past the exact one), and the same count
// of instructions everywhere. The layout is the frame's, whatever the carry: adc runs on any
// x86-64.
TEST(InstructionCount, EntryInlineTakesNoJumpBeforeTheShortPath) {
  const std::string frame =
      "carry=adc,chains=6,unroll=30,tail=overlap,sum=last,exact=40,short=128,tailchains=1,"
      "bounds=aligned";
  const csumtune::Kernel lean = csumtune::Jit::compile(frame + ",entry=lean");
  const csumtune::Kernel inlined = csumtune::Jit::compile(frame + ",entry=inline");
  InstructionCountRequest request;
  for (int len = 1; len <= 160; ++len) request.sizes.push_back(len);
  std::vector<CallCount> leanCounts, inlineCounts;
  SKIP_WITHOUT_PTRACE(leanCounts = countCalls({"lean", "", TimedKind::Linked, lean.fn()}, request));
  inlineCounts = countCalls({"inline", "", TimedKind::Linked, inlined.fn()}, request);
  ASSERT_EQ(inlineCounts.size(), request.sizes.size());
  for (std::size_t i = 0; i < request.sizes.size(); ++i) {
    const int len = request.sizes[i];
    EXPECT_EQ(inlineCounts[i].instructions, leanCounts[i].instructions) << len << " bytes";
    const std::uint64_t expected = len == 40   ? leanCounts[i].takenBranches + 1
                                   : len < 128 ? leanCounts[i].takenBranches - 2
                                               : leanCounts[i].takenBranches;
    EXPECT_EQ(inlineCounts[i].takenBranches, expected) << len << " bytes";
  }
}

// tailchains=short is tailchains=1 on the short paths and tailchains=2 after the main loop:
// the same instructions as the one at every length under the short bound, as the other from
// it up (the long path's word tails on two chains, the second accumulator live anyway).
TEST(InstructionCount, ShortTailChainIsOneChainBelowTheBoundAndTwoAfterTheLoop) {
  const std::string frame =
      "carry=adc,chains=6,unroll=30,tail=overlap,sum=last,entry=forty,short=128";
  const csumtune::Kernel one = csumtune::Jit::compile(frame + ",tailchains=1");
  const csumtune::Kernel two = csumtune::Jit::compile(frame);
  const csumtune::Kernel split = csumtune::Jit::compile(frame + ",tailchains=short");
  InstructionCountRequest request;
  for (int len = 1; len <= 520; ++len) request.sizes.push_back(len);
  std::vector<CallCount> oneCounts, twoCounts, splitCounts;
  SKIP_WITHOUT_PTRACE(oneCounts = countCalls({"1", "", TimedKind::Linked, one.fn()}, request));
  twoCounts = countCalls({"2", "", TimedKind::Linked, two.fn()}, request);
  splitCounts = countCalls({"short", "", TimedKind::Linked, split.fn()}, request);
  ASSERT_EQ(splitCounts.size(), request.sizes.size());
  int differ = 0;  // lengths where 1 and 2 differ: the test must see some on both sides
  for (std::size_t i = 0; i < request.sizes.size(); ++i) {
    const int len = request.sizes[i];
    const CallCount& expected = len < 128 ? oneCounts[i] : twoCounts[i];
    EXPECT_EQ(splitCounts[i].instructions, expected.instructions) << len << " bytes";
    EXPECT_EQ(splitCounts[i].takenBranches, expected.takenBranches) << len << " bytes";
    if (oneCounts[i].instructions != twoCounts[i].instructions) differ += len < 128 ? 1 : 1000;
  }
  EXPECT_GT(differ % 1000, 0) << "no length under the bound tells 1 from 2";
  EXPECT_GT(differ / 1000, 0) << "no length from the bound up tells 1 from 2";
}

// The middle-path stage compares a SIMD winner's middle bounds only where they can run
// different instructions (lengthsWhereMiddleBoundsDiffer): below the short bound and at the
// exact length every bound must run the same instructions, whatever the entry; from the short
// bound up some length must tell them apart. The families this CPU lacks are left out.
TEST(InstructionCount, MiddleBoundsRunTheSameInstructionsWhereTheStageSkipsThem) {
  // avx512 shares avx512vnni's middle path.
  const char* loops[] = {"carry=avx2,chains=2,unroll=8", "carry=avx512vnni,chains=4,unroll=16"};
  const char* frames[] = {"tail=overlap,sum=last,entry=inline,exact=40,short=128,bounds=aligned",
                          "tail=overlap,sum=first,entry=forty,short=128",
                          "tail=ladder,sum=last,entry=lean,exact=40,short=128",
                          "tail=overlap,entry=range,short=64,bounds=aligned,byteload=pointer",
                          "tail=ladder,entry=checked,short=64",
                          // The exact length above the short bound; no short path at all.
                          "tail=overlap,sum=last,entry=inline,exact=200,short=128",
                          "tail=overlap,sum=last,short=0"};
  InstructionCountRequest request;
  for (int len = 1; len <= 132; ++len) request.sizes.push_back(len);
  for (int len : {160, 200, 255, 256, 257, 384, 511, 512, 513}) request.sizes.push_back(len);
  int compared = 0;
  for (const char* loop : loops) {
    for (const char* frame : frames) {
      const gen::Params winner = gen::parseParams(std::string(loop) + "," + frame).canonical();
      if (!csumtune::missingFeatures(winner).empty()) continue;
      const auto bounds = middleVariants(winner);
      ASSERT_GE(bounds.size(), 2u) << winner.toString();
      const auto differ = lengthsWhereMiddleBoundsDiffer(winner, request.sizes);
      std::vector<std::vector<CallCount>> counts;
      for (const gen::Params& p : bounds) {
        const csumtune::Kernel kernel = csumtune::Jit::compile(p);
        SKIP_WITHOUT_PTRACE(counts.push_back(
            countCalls({p.toString(), "", TimedKind::Linked, kernel.fn()}, request)));
      }
      bool told = false;
      for (std::size_t i = 0; i < request.sizes.size(); ++i) {
        const int len = request.sizes[i];
        const bool skipped = std::find(differ.begin(), differ.end(), len) == differ.end();
        for (std::size_t b = 1; b < bounds.size(); ++b) {
          const bool same = counts[b][i].instructions == counts[0][i].instructions &&
                            counts[b][i].takenBranches == counts[0][i].takenBranches;
          if (skipped) {
            EXPECT_TRUE(same) << bounds[b].toString() << " at " << len << " bytes";
          } else {
            told = told || !same;
          }
        }
      }
      EXPECT_TRUE(told) << winner.toString() << ": no compared length tells its bounds apart";
      ++compared;
    }
  }
  if (compared == 0) GTEST_SKIP() << "no SIMD family runs on this CPU";
}

// block80=pair sums entry=forty's 80-byte block as Linux's loop does, on two chains of five
// words: three instructions more than one chain of ten (a mov for an add, the second chain's
// adc $0, the add of the two) at 80..127 bytes and nowhere else, and no more taken jumps.
TEST(InstructionCount, Block80PairCostsThreeInstructionsFrom80BytesOnly) {
  const std::string frame =
      "carry=adc,chains=6,unroll=30,tail=overlap,entry=forty,short=128,tailchains=short";
  const csumtune::Kernel chain = csumtune::Jit::compile(frame);
  const csumtune::Kernel pair = csumtune::Jit::compile(frame + ",block80=pair");
  InstructionCountRequest request;
  for (int len = 1; len <= 200; ++len) request.sizes.push_back(len);
  std::vector<CallCount> chainCounts, pairCounts;
  SKIP_WITHOUT_PTRACE(chainCounts =
                          countCalls({"chain", "", TimedKind::Linked, chain.fn()}, request));
  pairCounts = countCalls({"pair", "", TimedKind::Linked, pair.fn()}, request);
  ASSERT_EQ(pairCounts.size(), request.sizes.size());
  for (std::size_t i = 0; i < request.sizes.size(); ++i) {
    const int len = request.sizes[i];
    const bool block80 = len >= 80 && len < 128;
    EXPECT_EQ(pairCounts[i].instructions, chainCounts[i].instructions + (block80 ? 3 : 0))
        << len << " bytes";
    EXPECT_EQ(pairCounts[i].takenBranches, chainCounts[i].takenBranches) << len << " bytes";
  }
}

// block80=loop (short=256): below 160 bytes the same instructions and taken jumps as its
// twin without the loop (pair's block with one tail chain, the two chains' with two), but for
// 121..159 bytes, where the loop's path knows that under 40 are left after its 40-byte block
// and falls into the ladder (two instructions and a taken jump fewer than the twin's second
// compare; at 120 one taken jump more, to the fold): at
// short=128 below 128 bytes, at short=256 (a block wider than 256 bytes) below 160; from 160
// to 255 bytes Linux's loop, 16 instructions (ten loads, two adc $0, the pointer, the count,
// the compare and the jump) for each further 80 bytes, and over those lengths at least 5 %
// fewer than a short=128 twin where its main loop takes them (a block of 160 bytes); from 256
// the twin's path behind one compare more.
TEST(InstructionCount, Block80LoopRunsLinuxsLoopFrom160Bytes) {
  const std::pair<const char*, int> frames[] = {
      {"carry=adc,chains=6,unroll=30,tail=overlap,entry=forty,tailchains=short", 128},
      {"carry=adcx,chains=4,unroll=20,tail=overlap,sum=last,entry=forty,bounds=aligned", 128},
      {"carry=avx2,chains=2,unroll=30,tail=overlap,entry=forty,tailchains=1", 256}};
  for (const auto& [frame, twinBound] : frames) {
    SCOPED_TRACE(frame);
    const std::string twinParams = std::string(frame) + ",short=" + std::to_string(twinBound);
    const gen::Params base = gen::parseParams(twinParams);
    if (!csumtune::missingFeatures(base).empty()) continue;
    const std::string pair = base.tailChains == 2 ? "" : ",block80=pair";
    const csumtune::Kernel twin = csumtune::Jit::compile(twinParams + pair);
    const csumtune::Kernel loop =
        csumtune::Jit::compile(std::string(frame) + ",short=256,block80=loop");
    InstructionCountRequest request;
    for (int len = 1; len <= 400; len += len < 256 ? 1 : 29) request.sizes.push_back(len);
    std::vector<CallCount> t, l;
    SKIP_WITHOUT_PTRACE(t = countCalls({"twin", "", TimedKind::Linked, twin.fn()}, request));
    l = countCalls({"loop", "", TimedKind::Linked, loop.fn()}, request);
    ASSERT_EQ(l.size(), request.sizes.size());
    std::uint64_t loopSum = 0, twinSum = 0;
    for (std::size_t i = 0; i < request.sizes.size(); ++i) {
      const int len = request.sizes[i];
      if (len < std::min(twinBound, 160)) {
        const std::uint64_t saved = len > 120 ? 2 : 0;
        EXPECT_EQ(l[i].instructions + saved, t[i].instructions) << len << " bytes";
        // The loop's 40-byte block falls into its ladder: one taken jump fewer at 121..159,
        // one more at 120 (to the fold).
        const std::uint64_t fewerJumps = len > 120 ? 1 : 0;
        const std::uint64_t moreJumps = len == 120 ? 1 : 0;
        EXPECT_EQ(l[i].takenBranches + fewerJumps, t[i].takenBranches + moreJumps)
            << len << " bytes";
      } else if (len >= 160 && len < 256) {
        if (twinBound == 128 && len >= base.blockBytes()) {
          loopSum += l[i].instructions;
          twinSum += t[i].instructions;
        }
        if (len < 176) {
          EXPECT_EQ(l[i + 80].instructions, l[i].instructions + 16) << len << " bytes";
        }
      } else if (len >= 256) {
        EXPECT_EQ(l[i].instructions, t[i].instructions + 2) << len << " bytes";
        EXPECT_EQ(l[i].takenBranches, t[i].takenBranches) << len << " bytes";
      }
    }
    EXPECT_LE(loopSum, twinSum * 0.95);
  }
}

// byteload=straight lays byteload=pointer's computed load out of line: an 8-aligned buffer
// falls through (one instruction and one taken jump fewer wherever 1..7 bytes are left), an
// unaligned one jumps there and back (one of each more); with no bytes left, the same. Every
// path that loads the last bytes is counted: the tiny path, the short paths, the mid path,
// the tails after the loop.
TEST(InstructionCount, ByteLoadStraightFallsThroughForAnAlignedPointer) {
  const char* frames[] = {
      "carry=adc,chains=6,unroll=30,tail=overlap,sum=last,entry=inline,exact=40,short=128,"
      "tailchains=short,bounds=aligned",
      "carry=adc,chains=4,unroll=16,tail=ladder,entry=lean,bounds=aligned",
      "carry=avx512vnni,chains=4,unroll=16,tail=ladder,sum=last,entry=inline,"
      "tailchains=short,bounds=aligned,mid=512"};
  for (const char* frame : frames) {
    const gen::Params base = gen::parseParams(frame);
    if (!csumtune::missingFeatures(base).empty()) continue;
    const csumtune::Kernel pointer =
        csumtune::Jit::compile(std::string(frame) + ",byteload=pointer");
    const csumtune::Kernel straight =
        csumtune::Jit::compile(std::string(frame) + ",byteload=straight");
    for (const int offset : {0, 8, 3}) {
      SCOPED_TRACE(std::string(frame) + " at offset " + std::to_string(offset));
      InstructionCountRequest request;
      for (int len = 1; len <= 600; len += len < 140 ? 1 : 37) request.sizes.push_back(len);
      request.offset = offset;
      std::vector<CallCount> p, s;
      SKIP_WITHOUT_PTRACE(
          p = countCalls({"pointer", "", TimedKind::Linked, pointer.fn()}, request));
      s = countCalls({"straight", "", TimedKind::Linked, straight.fn()}, request);
      ASSERT_EQ(s.size(), request.sizes.size());
      int moved = 0;
      for (std::size_t i = 0; i < request.sizes.size(); ++i) {
        const int len = request.sizes[i];
        const std::int64_t di = static_cast<std::int64_t>(s[i].instructions) -
                                static_cast<std::int64_t>(p[i].instructions);
        const std::int64_t db = static_cast<std::int64_t>(s[i].takenBranches) -
                                static_cast<std::int64_t>(p[i].takenBranches);
        // The one load of the last bytes: the tiny path's, and with tail=ladder every byte
        // tail's but the AVX-512 middle path's (its masked vector takes them).
        const bool masked = base.hasMidPath() && len >= base.shortBelow && len <= base.mid;
        const bool loads = len % 8 != 0 && (len < 8 || (base.tail == gen::Tail::Ladder && !masked));
        if (!loads) {
          EXPECT_EQ(di, 0) << len << " bytes";
          EXPECT_EQ(db, 0) << len << " bytes";
          continue;
        }
        const int expected = offset % 8 == 0 ? -1 : 1;
        EXPECT_EQ(di, expected) << len << " bytes";
        EXPECT_EQ(db, expected) << len << " bytes";
        ++moved;
      }
      EXPECT_GT(moved, 0);
    }
  }
}

TEST(InstructionCount, ACopyingCallIsCountedWithItsOwnSignature) {
  TimedKernel kernel{"copy", "", TimedKind::Linked, nullptr};
  kernel.call = TimedKernel::Call::Copy;
  kernel.copyFn = &count_test_copy;
  InstructionCountRequest request;
  request.sizes = {3, 300};
  std::vector<std::uint64_t> counts;
  SKIP_WITHOUT_PTRACE(counts = countInstructions(kernel, request));
  EXPECT_EQ(counts, (std::vector<std::uint64_t>{5, 5}));
}

TEST(InstructionCount, AFaultIsReportedNotCounted) {
  TimedKernel kernel{"faults", "", TimedKind::Linked, &count_test_fault};
  InstructionCountRequest request;
  request.sizes = {8};
  try {
    countInstructions(kernel, request);
    FAIL() << "a call that faults was counted";
  } catch (const InstructionCountError& e) {
    const std::string what = e.what();
    if (what.find("not permitted") != std::string::npos && !std::getenv("CSUMTUNE_CI"))
      GTEST_SKIP() << what;
    EXPECT_NE(what.find("faults at 8 bytes: signal 11"), std::string::npos) << what;
  }
}

// Linux 6.12's own arch/x86/lib/csum-partial_64.c built as the kernel builds it and as
// --baseline-source does (gcc -O2 -falign-jumps=1 -falign-loops=1): the instructions one call
// executes at 1..159 bytes, as bench --count-instructions counted them
// (results/amd-19-01-1-ce148854/short-paths/file-as-built-2026-12-07/instruction-counts-1-511.txt;
// gcc's default loop alignment runs one NOP more from 80 bytes up). Its short path is the
// budget entry=forty was designed to: a count is the same on every CPU.
constexpr std::array<std::uint64_t, 159> kLinux612Counts{
    27, 27, 27, 27, 27, 27, 27, 22, 30, 30, 30, 30, 30, 30, 30, 23,  //
    31, 31, 31, 31, 31, 31, 31, 26, 34, 34, 34, 34, 34, 34, 34, 25,  //
    33, 33, 33, 33, 33, 33, 33, 20, 36, 36, 36, 36, 36, 36, 36, 31,  //
    39, 39, 39, 39, 39, 39, 39, 32, 40, 40, 40, 40, 40, 40, 40, 35,  //
    43, 43, 43, 43, 43, 43, 43, 34, 42, 42, 42, 42, 42, 42, 42, 38,  //
    46, 46, 46, 46, 46, 46, 46, 41, 49, 49, 49, 49, 49, 49, 49, 42,  //
    50, 50, 50, 50, 50, 50, 50, 45, 53, 53, 53, 53, 53, 53, 53, 44,  //
    52, 52, 52, 52, 52, 52, 52, 39, 55, 55, 55, 55, 55, 55, 55, 50,  //
    58, 58, 58, 58, 58, 58, 58, 51, 59, 59, 59, 59, 59, 59, 59, 54,  //
    62, 62, 62, 62, 62, 62, 62, 53, 61, 61, 61, 61, 61, 61, 61};

// From 160 bytes each further 80 bytes run the file's loop body once more: its two chains of
// five words and their carries (12), the pointer, the count, the compare and the branch.
constexpr std::uint64_t kLinux612LoopPass = 16;
std::uint64_t linux612Count(int len) {
  if (len < 160) return kLinux612Counts[static_cast<std::size_t>(len - 1)];
  return linux612Count(len - 80) + kLinux612LoopPass;
}

std::vector<std::uint64_t> countAt1To(int upTo, const char* params, int offset) {
  const csumtune::Kernel kernel = csumtune::Jit::compile(params);
  TimedKernel timed{params, "", TimedKind::Linked, kernel.fn()};
  InstructionCountRequest request;
  for (int len = 1; len <= upTo; ++len) request.sizes.push_back(len);
  request.offset = offset;
  return countInstructions(timed, request);
}

// The frame's tests cost instructions at every length; entry=forty orders them as Linux's
// file does (40 first, 40-byte blocks before the ladder) with a cheaper last-bytes word, and
// must stay at or under the file's count at every length of its short path, whatever the
// alignment. block80=loop's path runs to 511 bytes: from 160 it repeats the 80-byte block as
// the file's loop does. With short=128, 128 bytes take the long path: at or under the file's
// count too for a loop that pushes nothing (six chains), not for eight chains, whose two pushes
// and pops cost three more.
TEST(InstructionCount, EntryFortyExecutesNoMoreThanLinuxsOwnFileAtEveryShortLength) {
  const struct {
    const char* params;
    int upTo;
  } frames[] = {
      {"carry=adc,chains=6,unroll=30,tail=overlap,entry=forty,short=128,tailchains=1,"
       "bounds=aligned",
       128},
      {"carry=adc,chains=8,unroll=32,prefetch=512,tail=overlap,entry=forty,short=128,"
       "tailchains=1,bounds=aligned",
       127},
      {"carry=adc,chains=6,unroll=30,tail=overlap,entry=forty,short=512,tailchains=1,"
       "bounds=aligned,block80=loop",
       511},
      {"carry=adc,chains=6,unroll=30,tail=overlap,entry=forty,short=512,tailchains=short,"
       "bounds=aligned,block80=loop",
       511},
  };
  for (const auto& frame : frames) {
    for (int offset : {0, 3}) {
      std::vector<std::uint64_t> counts;
      SKIP_WITHOUT_PTRACE(counts = countAt1To(frame.upTo, frame.params, offset));
      ASSERT_EQ(counts.size(), static_cast<std::size_t>(frame.upTo));
      for (int len = 1; len <= frame.upTo; ++len) {
        EXPECT_LE(counts[static_cast<std::size_t>(len - 1)], linux612Count(len))
            << frame.params << " at " << len << " bytes, offset " << offset;
      }
      EXPECT_LT(counts[39], linux612Count(40)) << "40 bytes is the hot case: " << frame.params;
    }
  }
}

// sum=last keeps the sum in edx and adds it in the fold (one adc), where sum=first moves it
// into the accumulator at entry: the same count wherever a path starts with a block, which
// loads its first word into the empty accumulator (41..511 bytes here); the ladder under 40
// bytes zeroes it first, one instruction more from 8 bytes.
TEST(InstructionCount, SumLastCostsNothingOnTheBlockPaths) {
  const std::string frame =
      "carry=adc,chains=6,unroll=30,tail=overlap,entry=forty,short=512,tailchains=1,"
      "bounds=aligned,block80=loop";
  std::vector<std::uint64_t> first, last;
  SKIP_WITHOUT_PTRACE(first = countAt1To(511, frame.c_str(), 0));
  last = countAt1To(511, (frame + ",sum=last").c_str(), 0);
  for (int len = 8; len <= 511; ++len) {
    const auto i = static_cast<std::size_t>(len - 1);
    EXPECT_EQ(last[i], first[i] + (len < 40 ? 1 : 0)) << len << " bytes";
  }
}

// entry=range is one unsigned compare short of entry=lean at 8..127 bytes and needs no
// separate len < 8 test; the same frame with entry=lean executes more at every one of them.
TEST(InstructionCount, EntryRangeSavesTheTinyTestOnTheShortPath) {
  const char* base = "carry=adc,chains=6,unroll=30,tail=overlap,short=128,tailchains=1";
  std::vector<std::uint64_t> lean, range;
  SKIP_WITHOUT_PTRACE(lean = countAt1To(128, (std::string(base) + ",entry=lean").c_str(), 0));
  range = countAt1To(128, (std::string(base) + ",entry=range").c_str(), 0);
  for (int len = 8; len < 128; ++len) EXPECT_LT(range[len - 1], lean[len - 1]) << len << " bytes";
}

// A cold call costs about as much per instruction as it runs. With sum=last the tiny path
// (1..7 bytes) loads its word into the empty accumulator: no zeroing, no add, no carry, and
// so three instructions under the file's count there.
TEST(InstructionCount, SumLastLoadsTheTinyWordIntoTheEmptyAccumulator) {
  const char* lean =
      "carry=adc,chains=6,unroll=30,tail=overlap,sum=last,entry=forty,short=128,tailchains=1,"
      "bounds=aligned";
  for (int offset : {0, 5}) {
    std::vector<std::uint64_t> counts;
    SKIP_WITHOUT_PTRACE(counts = countAt1To(128, lean, offset));
    for (int len = 1; len < 8; ++len) {
      const auto i = static_cast<std::size_t>(len - 1);
      EXPECT_LE(counts[i] + 3, linux612Count(len)) << len << " bytes at offset " << offset;
    }
  }
}

}  // namespace
}  // namespace csumtune::tuner
