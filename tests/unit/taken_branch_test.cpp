// bench --count-instructions' taken branches: from a step's address, the next one's and the
// instruction's bytes, whether it branched. Table-driven over the encodings the kernels and
// compilers emit (short and near jcc, jmp, call, returns, indirect jumps and calls, branch-hint
// and REX prefixes), plain instructions, and a rep string instruction stepping in place.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "measure/taken_branch.hpp"

namespace csumtune::tuner {
namespace {

struct Step {
  const char* what;
  std::vector<std::uint8_t> code;
  std::int64_t moved;  // the next step's address minus this one's
  bool taken;
};

TEST(TakenBranch, EachEncodingByItsLengthAndTarget) {
  const std::vector<Step> steps = {
      {"add %rax,%rbx falls through", {0x48, 0x01, 0xC3}, 3, false},
      {"a 15-byte instruction falls through", std::vector<std::uint8_t>(15, 0x90), 15, false},
      {"jz rel8 +5 not taken", {0x74, 0x05}, 2, false},
      {"jz rel8 +5 taken", {0x74, 0x05}, 7, true},
      {"jz rel32 {disp32} +3 not taken", {0x0F, 0x84, 0x03, 0x00, 0x00, 0x00}, 6, false},
      {"jz rel32 {disp32} +3 taken", {0x0F, 0x84, 0x03, 0x00, 0x00, 0x00}, 9, true},
      {"ds-prefixed jnz rel8 +4 taken", {0x3E, 0x75, 0x04}, 7, true},
      {"ds-prefixed jnz rel8 +4 not taken", {0x3E, 0x75, 0x04}, 3, false},
      {"jmp rel8 +0: to the next instruction, not counted", {0xEB, 0x00}, 2, false},
      {"jmp rel8 +6", {0xEB, 0x06}, 8, true},
      {"jmp rel32 +1", {0xE9, 0x01, 0x00, 0x00, 0x00}, 6, true},
      {"a backward jump", {0x75, 0xF0}, -14, true},
      {"a far forward jump", {0x0F, 0x82, 0x00, 0x01, 0x00, 0x00}, 262, true},
      {"ret (a return lands anywhere)", {0xC3}, -4096, true},
      {"ret landing 5 bytes ahead", {0xC3}, 5, true},
      {"rep ret landing 3 bytes ahead", {0xF3, 0xC3}, 3, true},
      {"jmp *%rax landing 9 bytes ahead", {0xFF, 0xE0}, 9, true},
      {"notrack jmp *%rax landing 9 bytes ahead", {0x3E, 0xFF, 0xE0}, 9, true},
      {"call *%r8 landing 12 bytes ahead", {0x41, 0xFF, 0xD0}, 12, true},
      {"inc %rax (FF /0) falls through", {0x48, 0xFF, 0xC0}, 3, false},
      {"REX before jz rel8 +4, taken", {0x48, 0x74, 0x04}, 7, true},
      {"a jump to itself", {0xEB, 0xFE}, 0, true},
      {"rep movsb stepping one iteration (in place)", {0xF3, 0xA4}, 0, false},
      {"a NOP with prefixes falls through",
       {0x66, 0x66, 0x2E, 0x0F, 0x1F, 0x84, 0, 0, 0, 0, 0},
       11,
       false},
  };
  const std::uint64_t from = 0x401000;
  for (const Step& step : steps) {
    const std::uint64_t to = from + static_cast<std::uint64_t>(step.moved);
    EXPECT_EQ(tookBranch(from, to, step.code), step.taken) << step.what;
  }
}

TEST(TakenBranch, CodeIsWantedOnlyWithinOneInstructionAhead) {
  EXPECT_TRUE(wantsCode(100, 101));
  EXPECT_TRUE(wantsCode(100, 115));
  EXPECT_FALSE(wantsCode(100, 116));
  EXPECT_TRUE(wantsCode(100, 100));  // in place: a rep iteration or a jump to itself
  EXPECT_FALSE(wantsCode(100, 99));
  // Without bytes (a mapping that could not be read) a short move is taken as falling through.
  EXPECT_FALSE(tookBranch(100, 103, {}));
}

}  // namespace
}  // namespace csumtune::tuner
