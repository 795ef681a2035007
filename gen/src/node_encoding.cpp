#include "node_encoding.hpp"

#include "csumtune/gen/kernel_program.hpp"

namespace csumtune::gen::detail {

using namespace asmjit;

std::map<const BaseNode*, NodeBytes> encodeEachNode(const x86::Builder& builder,
                                                    std::vector<std::uint8_t>& bytes) {
  CodeHolder code;
  code.init(builder.code()->environment());
  x86::Assembler a(&code);
  a.addEncodingOptions(builder.encodingOptions());  // as Builder::finalize passes them on
  const auto labelCount = builder.code()->labelCount();
  for (std::size_t i = 0; i < labelCount; ++i) a.newLabel();
  std::map<const BaseNode*, NodeBytes> out;
  for (const BaseNode* node = builder.firstNode(); node; node = node->next()) {
    const std::size_t start = a.offset();
    if (node->type() == NodeType::kInst) {
      const auto* inst = static_cast<const InstNode*>(node);
      if (a.emitInst(inst->baseInst(), inst->operands(), inst->opCount()) != kErrorOk) {
        throw CodegenError("asmjit could not re-encode an instruction");
      }
    } else if (node->type() == NodeType::kLabel) {
      if (a.bind(Label(static_cast<const LabelNode*>(node)->labelId())) != kErrorOk)
        throw CodegenError("asmjit could not bind a label");
    } else if (node->type() == NodeType::kAlign) {
      const auto* align = static_cast<const AlignNode*>(node);
      if (a.align(align->alignMode(), align->alignment()) != kErrorOk)
        throw CodegenError("asmjit could not align");
    } else if (node->type() != NodeType::kSection) {
      throw CodegenError("node kind the generator never emits (data)");
    }
    out[node] = {start, a.offset() - start};
  }
  if (code.flatten() != kErrorOk || code.resolveUnresolvedLinks() != kErrorOk)
    throw CodegenError("asmjit could not resolve a jump (out of its encoding's reach?)");
  const CodeBuffer& text = code.textSection()->buffer();
  bytes.assign(text.data(), text.data() + text.size());
  return out;
}

namespace {

bool endsFallThrough(const BaseNode* node) {
  if (node == nullptr || node->type() != NodeType::kInst) return false;
  const auto flow = x86::InstDB::infoById(static_cast<const InstNode*>(node)->id()).controlFlow();
  return flow == InstControlFlow::kJump || flow == InstControlFlow::kReturn;
}

}  // namespace

void alignJumpOnlyTargets(x86::Builder& builder, std::uint32_t alignment) {
  BaseNode* const cursor = builder.cursor();
  for (BaseNode* node = builder.firstNode(); node; node = node->next()) {
    if (node->type() != NodeType::kLabel || !endsFallThrough(node->prev())) continue;
    builder.setCursor(node->prev());
    builder.align(AlignMode::kCode, alignment);
  }
  builder.setCursor(cursor);
}

namespace {

bool isLabelJump(const BaseNode* node) {
  if (node->type() != NodeType::kInst) return false;
  const auto* inst = static_cast<const InstNode*>(node);
  return inst->opCount() == 1 && inst->op(0).isLabel();
}

bool isLongJump(const BaseNode* node, const NodeBytes& at) {
  return isLabelJump(node) && at.size > 2;
}

}  // namespace

void relaxJumps(x86::Builder& builder) {
  // Without fill, shortening a jump only brings other jumps' ends and targets closer, so a
  // jump that reaches now still reaches after the others shrink: repeat until nothing changes.
  // With fill, a shortening may widen a fill instead, and asmjit would then give a backward
  // jump that no longer reaches in 2 bytes its 6-byte form (it sizes those itself), growing the
  // code that forward jumps were judged across: so every jump starts in its long form and only
  // shrinks, and is judged with every fill at its widest.
  bool filled = false;
  for (const BaseNode* node = builder.firstNode(); node; node = node->next())
    filled |= node->type() == NodeType::kAlign;
  if (filled) {
    for (BaseNode* node = builder.firstNode(); node; node = node->next()) {
      if (!isLabelJump(node)) continue;
      auto* inst = static_cast<InstNode*>(node);
      inst->clearOptions(InstOptions::kShortForm);
      inst->addOptions(InstOptions::kLongForm);
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<std::uint8_t> bytes;
    const auto placed = encodeEachNode(builder, bytes);
    // Offsets with every fill at its widest (alignment - 1 bytes): an upper bound on any
    // distance across fills, which no shortening elsewhere can exceed.
    std::map<const BaseNode*, std::int64_t> widest;
    std::int64_t widened = 0;
    for (const BaseNode* node = builder.firstNode(); node; node = node->next()) {
      const NodeBytes& at = placed.at(node);
      widest[node] = static_cast<std::int64_t>(at.offset) + widened;
      if (node->type() == NodeType::kAlign) {
        widened += static_cast<std::int64_t>(static_cast<const AlignNode*>(node)->alignment()) - 1 -
                   static_cast<std::int64_t>(at.size);
      }
    }
    std::map<std::uint32_t, std::int64_t> labelAt;
    for (const auto& [node, at] : placed) {
      if (node->type() == NodeType::kLabel)
        labelAt[static_cast<const LabelNode*>(node)->labelId()] = widest.at(node);
    }
    for (BaseNode* node = builder.firstNode(); node; node = node->next()) {
      const NodeBytes at = placed.at(node);
      if (!isLongJump(node, at)) continue;
      auto* inst = static_cast<InstNode*>(node);
      const auto target = labelAt.find(inst->op(0).id());
      if (target == labelAt.end()) continue;
      // The rel8 displacement: from the end of the 2-byte form, to a target that, when it
      // lies ahead, comes as many bytes closer as this jump sheds.
      const std::int64_t to = target->second;
      const std::int64_t from = widest.at(node);
      const std::int64_t distance =
          to > from ? to - (from + static_cast<std::int64_t>(at.size)) : to - (from + 2);
      if (distance >= -128 && distance <= 127) {
        inst->clearOptions(InstOptions::kLongForm);
        inst->addOptions(InstOptions::kShortForm);
        changed = true;
      }
    }
  }
}

}  // namespace csumtune::gen::detail
