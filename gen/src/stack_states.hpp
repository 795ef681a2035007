// The registers a function has pushed at each of its instructions, found by following its
// control flow (the kernel-style copy needs it: a fault's fixup must pop exactly those).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include <asmjit/x86.h>

namespace csumtune::gen::detail {

// Register ids in push order.
using PushedRegisters = std::vector<std::uint32_t>;

// For every instruction reachable from the first node: what is pushed when it runs. Throws
// CodegenError when two paths reach one instruction with different stacks, a pop does not
// match the last push, or a ret leaves something pushed; so the result is unambiguous.
std::map<const asmjit::BaseNode*, PushedRegisters> pushedRegistersAt(
    const asmjit::x86::Builder& builder);

}  // namespace csumtune::gen::detail
