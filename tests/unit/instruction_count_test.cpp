// bench --count-instructions: functions whose instruction count is known by construction are
// counted exactly, at every length, for both call shapes; a kernel that faults is reported.
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "measure/instruction_count.hpp"

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

}  // namespace
}  // namespace csumtune::tuner
