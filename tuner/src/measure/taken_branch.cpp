#include "measure/taken_branch.hpp"

#include <cstring>

namespace csumtune::tuner {
namespace {

// A branch as its encoding gives it.
struct Branch {
  enum class Kind { None, Relative, Always } kind = Kind::None;
  std::uint64_t length = 0;  // Relative: the instruction's length
  std::int64_t displacement = 0;
};

Branch branchAt(std::span<const std::uint8_t> code) {
  std::size_t at = 0;
  // Legacy prefixes a branch may carry: the segment-override branch hints (and notrack), BND,
  // REP (`rep ret`), operand and address size; then at most one REX.
  while (at < code.size() && at < 4 &&
         (code[at] == 0x2E || code[at] == 0x3E || code[at] == 0xF2 || code[at] == 0xF3 ||
          code[at] == 0x66 || code[at] == 0x67))
    ++at;
  if (at < code.size() && (code[at] & 0xF0) == 0x40) ++at;
  if (at >= code.size()) return {};
  const std::uint8_t op = code[at];
  const auto rel8 = [&](std::size_t i) {
    return static_cast<std::int64_t>(static_cast<std::int8_t>(code[i]));
  };
  const auto rel32 = [&](std::size_t i) {
    std::int32_t value = 0;
    std::memcpy(&value, code.data() + i, sizeof value);
    return static_cast<std::int64_t>(value);
  };
  using K = Branch::Kind;
  // jcc rel8, loop/jrcxz rel8 (0x70-0x7F, 0xE0-0xE3), jmp rel8: two bytes after the prefixes.
  if (((op >= 0x70 && op <= 0x7F) || (op >= 0xE0 && op <= 0xE3) || op == 0xEB) &&
      at + 1 < code.size())
    return {K::Relative, at + 2, rel8(at + 1)};
  if ((op == 0xE9 || op == 0xE8) && at + 4 < code.size())  // jmp, call rel32
    return {K::Relative, at + 5, rel32(at + 1)};
  if (op == 0x0F && at + 5 < code.size() && code[at + 1] >= 0x80 && code[at + 1] <= 0x8F)
    return {K::Relative, at + 6, rel32(at + 2)};  // jcc rel32
  // Returns, and indirect calls and jumps (FF /2, /4): they always go somewhere else.
  if (op == 0xC3 || op == 0xC2) return {K::Always};
  if (op == 0xFF && at + 1 < code.size()) {
    const int reg = (code[at + 1] >> 3) & 7;
    if (reg == 2 || reg == 4) return {K::Always};
  }
  return {};
}

}  // namespace

bool tookBranch(std::uint64_t from, std::uint64_t to, std::span<const std::uint8_t> code) {
  if (!wantsCode(from, to)) return true;  // backwards, or further than one instruction ahead
  const Branch branch = branchAt(code);
  switch (branch.kind) {
    case Branch::Kind::Always:
      return true;
    case Branch::Kind::Relative: {
      const std::uint64_t next = from + branch.length;
      // A jump to the next instruction costs what falling through costs: not counted.
      if (to == next) return false;
      return to == next + static_cast<std::uint64_t>(branch.displacement);
    }
    case Branch::Kind::None:
      break;
  }
  // Not a branch: it fell through, or (in place) a `rep` string instruction stepped one
  // iteration.
  return false;
}

}  // namespace csumtune::tuner
