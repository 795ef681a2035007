// Whether one single-stepped instruction took a branch: from the address it ran at, the
// address the next step stopped at, and (when that is the same address or within an
// instruction's length ahead) its first bytes. Single-stepping sees addresses, not
// decisions: a short forward move is a branch only when the bytes are a jump, call or return
// whose target is where execution went, and a step that stays in place is one only for a
// jump to itself (a `rep` string instruction stays in place for each iteration).
#pragma once

#include <cstdint>
#include <span>

namespace csumtune::tuner {

// The most bytes an x86 instruction has: a step that moved further, or backwards, branched.
inline constexpr std::uint64_t kMaxInstructionBytes = 15;

// True when the instruction at `from` (whose first bytes are `code`: up to 16, fewer at the
// end of its mapping) sent execution to `to` by a branch: a jump, call or return taken. A
// jump to the next instruction is not counted: it costs what falling through costs. Needs
// `code` only when 0 <= to - from <= 15 (wantsCode); without it such a move is falling
// through.
bool tookBranch(std::uint64_t from, std::uint64_t to, std::span<const std::uint8_t> code);
inline bool wantsCode(std::uint64_t from, std::uint64_t to) {
  return to >= from && to - from <= kMaxInstructionBytes;
}

}  // namespace csumtune::tuner
