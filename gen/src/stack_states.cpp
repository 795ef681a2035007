#include "stack_states.hpp"

#include <fmt/format.h>

#include "csumtune/gen/kernel_program.hpp"

namespace csumtune::gen::detail {

using namespace asmjit;

std::map<const BaseNode*, PushedRegisters> pushedRegistersAt(const x86::Builder& builder) {
  std::map<uint32_t, const BaseNode*> labels;
  for (const BaseNode* node = builder.firstNode(); node; node = node->next()) {
    if (node->type() == NodeType::kLabel) {
      labels[static_cast<const LabelNode*>(node)->labelId()] = node;
    }
  }
  auto target = [&](const InstNode* jump) {
    const auto found = labels.find(jump->op(0).id());
    if (found == labels.end()) throw CodegenError("stack analysis: a jump to an unbound label");
    return found->second;
  };

  std::map<const BaseNode*, PushedRegisters> states;
  std::vector<std::pair<const BaseNode*, PushedRegisters>> paths{{builder.firstNode(), {}}};
  while (!paths.empty()) {
    auto [node, stack] = std::move(paths.back());
    paths.pop_back();
    for (; node; node = node->next()) {
      if (node->type() != NodeType::kInst && node->type() != NodeType::kLabel) continue;
      const auto [state, first] = states.try_emplace(node, stack);
      if (!first) {
        if (state->second != stack) {
          throw CodegenError("stack analysis: two paths meet with different registers pushed");
        }
        break;  // this path joins one already followed
      }
      if (node->type() == NodeType::kLabel) continue;
      const auto* inst = static_cast<const InstNode*>(node);
      const InstId id = inst->id();
      if (id == x86::Inst::kIdPush) {
        stack.push_back(inst->op(0).id());
      } else if (id == x86::Inst::kIdPop) {
        if (stack.empty() || stack.back() != inst->op(0).id()) {
          throw CodegenError("stack analysis: a pop that does not match the last push");
        }
        stack.pop_back();
      } else if (id == x86::Inst::kIdRet) {
        if (!stack.empty()) throw CodegenError("stack analysis: ret with registers still pushed");
        break;
      } else if (inst->opCount() == 1 && inst->op(0).isLabel()) {
        paths.emplace_back(target(inst), stack);
        if (id == x86::Inst::kIdJmp) break;  // conditional jumps also fall through
      }
    }
  }
  return states;
}

}  // namespace csumtune::gen::detail
