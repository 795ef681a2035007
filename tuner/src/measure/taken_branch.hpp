// Whether one single-stepped instruction took a branch: from the address it ran at, the
// address the next step stopped at, and (only when that is within an instruction's length
// ahead) its first bytes. Single-stepping sees addresses, not decisions: a jump to the very
// next instruction looks like falling through, and a short forward jump looks like one too
// unless the bytes say it is a branch whose target is where execution went.
#pragma once

#include <cstdint>
#include <span>

namespace csumtune::tuner {

// The most bytes an x86 instruction has: a step that moved further, or backwards, branched.
inline constexpr std::uint64_t kMaxInstructionBytes = 15;

// True when the instruction at `from` (whose first bytes are `code`, at least 8 of them or
// all up to the end of its mapping) sent execution to `to` by a branch: a jump, call or
// return taken. Needs `code` only when 0 < to - from <= 15 (wantsCode).
bool tookBranch(std::uint64_t from, std::uint64_t to, std::span<const std::uint8_t> code);
inline bool wantsCode(std::uint64_t from, std::uint64_t to) {
  return to > from && to - from <= kMaxInstructionBytes;
}

}  // namespace csumtune::tuner
