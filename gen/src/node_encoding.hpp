// Internal to gen/: where each node of a builder's list lands when encoded. The AT&T printer
// reads it to print exactly the encoding asmjit chose; jump relaxation to measure distances.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include <asmjit/x86.h>

namespace csumtune::gen::detail {

struct NodeBytes {
  std::size_t offset;
  std::size_t size;
};

// Encodes the node list instruction by instruction (as Builder::finalize does); fills `bytes`
// with the code and returns each node's place in it (labels have size 0).
std::map<const asmjit::BaseNode*, NodeBytes> encodeEachNode(const asmjit::x86::Builder& builder,
                                                            std::vector<std::uint8_t>& bytes);

// Puts every label that only jumps reach (one right after a `ret` or an unconditional `jmp`) at
// the next `alignment`-byte boundary: the fill lies behind the jump and never runs.
void alignJumpOnlyTargets(asmjit::x86::Builder& builder, std::uint32_t alignment);

// Every jump to a label that reaches in its 2-byte (rel8) form gets that form. asmjit alone
// encodes a jump to a label not yet bound in its rel32 form; GNU as relaxes, and so do we.
// Across alignment fill a jump is shortened only if it reaches with the fill at its widest,
// so that no later shortening (which may widen a fill) puts its target out of reach.
void relaxJumps(asmjit::x86::Builder& builder);

}  // namespace csumtune::gen::detail
