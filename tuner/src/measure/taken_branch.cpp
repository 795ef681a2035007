#include "measure/taken_branch.hpp"

#include <cstring>

namespace csumtune::tuner {
namespace {

// A relative branch as its encoding gives it: its length and, for a conditional one, where it
// goes when taken.
struct RelativeBranch {
  std::uint64_t length = 0;  // 0: not a relative branch (or not one this reads)
  std::int64_t displacement = 0;
  bool conditional = false;
};

RelativeBranch relativeBranchAt(std::span<const std::uint8_t> code) {
  std::size_t at = 0;
  // Prefixes a branch may carry: the segment-override branch hints, BND, and a data-size
  // override nobody uses on a jump but assemblers accept.
  while (at < code.size() && at < 4 &&
         (code[at] == 0x2E || code[at] == 0x3E || code[at] == 0xF2 || code[at] == 0x66))
    ++at;
  if (at >= code.size()) return {};
  const std::uint8_t op = code[at];
  auto rel8 = [&](std::size_t i) {
    return static_cast<std::int64_t>(static_cast<std::int8_t>(code[i]));
  };
  auto rel32 = [&](std::size_t i) {
    std::int32_t value = 0;
    std::memcpy(&value, code.data() + i, sizeof value);
    return static_cast<std::int64_t>(value);
  };
  // jcc rel8, jrcxz and loop rel8 (0x70-0x7F, 0xE0-0xE3): conditional, two bytes.
  if (((op >= 0x70 && op <= 0x7F) || (op >= 0xE0 && op <= 0xE3)) && at + 1 < code.size())
    return {at + 2, rel8(at + 1), true};
  if (op == 0xEB && at + 1 < code.size()) return {at + 2, rel8(at + 1), false};  // jmp rel8
  if ((op == 0xE9 || op == 0xE8) && at + 4 < code.size())                        // jmp, call rel32
    return {at + 5, rel32(at + 1), false};
  if (op == 0x0F && at + 5 < code.size() && code[at + 1] >= 0x80 && code[at + 1] <= 0x8F)
    return {at + 6, rel32(at + 2), true};  // jcc rel32
  return {};
}

}  // namespace

bool tookBranch(std::uint64_t from, std::uint64_t to, std::span<const std::uint8_t> code) {
  if (!wantsCode(from, to)) return true;  // backwards, in place, or further than one instruction
  const RelativeBranch branch = relativeBranchAt(code);
  if (branch.length == 0) return false;  // not a relative branch: it fell through
  const std::uint64_t next = from + branch.length;
  // Not taken: it fell through (a conditional branch) - or it jumped to the next instruction,
  // which costs what falling through costs and is counted so.
  if (to == next) return false;
  return to == next + static_cast<std::uint64_t>(branch.displacement);
}

}  // namespace csumtune::tuner
