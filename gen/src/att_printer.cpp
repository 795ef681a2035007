#include "csumtune/gen/att_printer.hpp"

#include <array>
#include <bit>
#include <map>

#include <fmt/format.h>

#include "node_encoding.hpp"
#include "stack_states.hpp"

namespace csumtune::gen {
namespace {

using namespace asmjit;
using detail::NodeBytes;

constexpr std::array<const char*, 16> kGp64{"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                            "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
constexpr std::array<const char*, 16> kGp32{"eax",  "ecx",  "edx",  "ebx", "esp",  "ebp",
                                            "esi",  "edi",  "r8d",  "r9d", "r10d", "r11d",
                                            "r12d", "r13d", "r14d", "r15d"};
constexpr std::array<const char*, 16> kGp16{"ax",   "cx",   "dx",   "bx",  "sp",   "bp",
                                            "si",   "di",   "r8w",  "r9w", "r10w", "r11w",
                                            "r12w", "r13w", "r14w", "r15w"};
constexpr std::array<const char*, 16> kGp8{"al",   "cl",   "dl",   "bl",  "spl",  "bpl",
                                           "sil",  "dil",  "r8b",  "r9b", "r10b", "r11b",
                                           "r12b", "r13b", "r14b", "r15b"};

std::string instName(InstId id) {
  String name;
  InstAPI::instIdToString(Arch::kX64, id, name);
  return name.data();
}

}  // namespace

std::string registerName(const x86::Reg& reg) {
  const auto id = reg.id();
  if (reg.type() == RegType::kX86_KReg) {
    if (id >= 8) throw CodegenError("AT&T printer: mask register id out of range");
    return fmt::format("%k{}", id);
  }
  if (reg.isVec()) {
    if (id >= 32) throw CodegenError("AT&T printer: vector register id out of range");
    const char* kind = reg.type() == RegType::kX86_Zmm   ? "zmm"
                       : reg.type() == RegType::kX86_Ymm ? "ymm"
                                                         : "xmm";
    return fmt::format("%{}{}", kind, id);
  }
  if (!reg.isGp()) throw CodegenError("AT&T printer: register class it cannot print");
  if (id >= 16) throw CodegenError("AT&T printer: register id out of range");
  switch (reg.size()) {
    case 8:
      return fmt::format("%{}", kGp64[id]);
    case 4:
      return fmt::format("%{}", kGp32[id]);
    case 2:
      return fmt::format("%{}", kGp16[id]);
    case 1:
      return fmt::format("%{}", kGp8[id]);
  }
  throw CodegenError("AT&T printer: register of unknown size");
}

namespace {

char sizeSuffix(uint32_t bytes) {
  switch (bytes) {
    case 1:
      return 'b';
    case 2:
      return 'w';
    case 4:
      return 'l';
    case 8:
      return 'q';
  }
  throw CodegenError(fmt::format("AT&T printer: no suffix for a {}-byte operand", bytes));
}

// Instructions the generator emits, with how to print them. Anything else is refused.
enum class Form {
  Plain,   // mnemonic as asmjit names it; size from the register operand
  RegReg,  // two-register ALU/mov: in asmjit's load direction, printed as its bytes
  Zx,      // movzx: AT&T movz<src><dst>
  Jump,    // jmp/jcc to a label: may need {disp32}
  Return,  // ret (or the kernel's RET macro)
};

const std::map<InstId, Form>& vocabulary() {
  static const std::map<InstId, Form> table{
      {x86::Inst::kIdAdd, Form::RegReg},
      {x86::Inst::kIdAdc, Form::RegReg},
      {x86::Inst::kIdSub, Form::RegReg},
      {x86::Inst::kIdXor, Form::RegReg},
      {x86::Inst::kIdAnd, Form::RegReg},
      {x86::Inst::kIdCmp, Form::RegReg},
      {x86::Inst::kIdMov, Form::RegReg},
      {x86::Inst::kIdTest, Form::Plain},
      {x86::Inst::kIdLea, Form::Plain},
      {x86::Inst::kIdShr, Form::Plain},
      {x86::Inst::kIdPush, Form::Plain},
      {x86::Inst::kIdPop, Form::Plain},
      {x86::Inst::kIdCmovc, Form::Plain},
      {x86::Inst::kIdImul, Form::Plain},  // imul $imm, src, dst (bounds=aligned)
      {x86::Inst::kIdAdcx, Form::Plain},
      {x86::Inst::kIdAdox, Form::Plain},
      {x86::Inst::kIdPrefetcht0, Form::Plain},
      {x86::Inst::kIdPrefetcht1, Form::Plain},
      {x86::Inst::kIdPrefetcht2, Form::Plain},
      {x86::Inst::kIdPrefetchnta, Form::Plain},
      {x86::Inst::kIdMovzx, Form::Zx},
      {x86::Inst::kIdMovnti, Form::Plain},
      {x86::Inst::kIdSfence, Form::Plain},
      {x86::Inst::kIdJmp, Form::Jump},
      {x86::Inst::kIdJb, Form::Jump},
      {x86::Inst::kIdJae, Form::Jump},
      {x86::Inst::kIdJz, Form::Jump},
      {x86::Inst::kIdJnz, Form::Jump},
      {x86::Inst::kIdJle, Form::Jump},
      {x86::Inst::kIdJl, Form::Jump},
      {x86::Inst::kIdJs, Form::Jump},
      {x86::Inst::kIdRet, Form::Return},
      {x86::Inst::kIdShl, Form::Plain},
      {x86::Inst::kIdDec, Form::Plain},
      {x86::Inst::kIdNeg, Form::Plain},
      {x86::Inst::kIdInc, Form::Plain},
      {x86::Inst::kIdClc, Form::Plain},
      {x86::Inst::kIdJne, Form::Jump},
      {x86::Inst::kIdJc, Form::Jump},
      {x86::Inst::kIdJnc, Form::Jump},
      // SIMD families: operands print in AT&T order, sizes come from the registers.
      {x86::Inst::kIdVpxor, Form::Plain},
      {x86::Inst::kIdVpxorq, Form::Plain},
      {x86::Inst::kIdVpand, Form::Plain},
      {x86::Inst::kIdVpandq, Form::Plain},
      {x86::Inst::kIdVpsrlq, Form::Plain},
      {x86::Inst::kIdVpsrld, Form::Plain},  // the AVX-512 middle path
      {x86::Inst::kIdVpslld, Form::Plain},
      {x86::Inst::kIdVpsubd, Form::Plain},
      {x86::Inst::kIdVpaddq, Form::Plain},
      {x86::Inst::kIdVpaddd, Form::Plain},
      {x86::Inst::kIdVmovdqu, Form::Plain},
      {x86::Inst::kIdVmovdqu64, Form::Plain},
      {x86::Inst::kIdVmovq, Form::Plain},
      {x86::Inst::kIdVpbroadcastq, Form::Plain},
      {x86::Inst::kIdVpbroadcastd, Form::Plain},
      {x86::Inst::kIdVextracti128, Form::Plain},
      {x86::Inst::kIdVextracti64x4, Form::Plain},
      {x86::Inst::kIdVpextrq, Form::Plain},
      {x86::Inst::kIdVpmovsxdq, Form::Plain},
      {x86::Inst::kIdVpdpwssd, Form::Plain},
      {x86::Inst::kIdVpmaddwd, Form::Plain},
      {x86::Inst::kIdVpcmpeqd, Form::Plain},
      {x86::Inst::kIdVpsllw, Form::Plain},
      {x86::Inst::kIdVpsrlw, Form::Plain},
      {x86::Inst::kIdVzeroupper, Form::Plain},
      // The middle path (mid=N): AVX-512's byte mask, AVX2's dword mask.
      {x86::Inst::kIdKmovq, Form::Plain},
      {x86::Inst::kIdVmovdqu8, Form::Plain},  // under {%kN}{z}
      {x86::Inst::kIdVmovd, Form::Plain},
      {x86::Inst::kIdVpmovzxbd, Form::Plain},
      {x86::Inst::kIdVpcmpgtd, Form::Plain},
      {x86::Inst::kIdVpmaskmovd, Form::Plain},
  };
  return table;
}

// True when asmjit put the destination in ModRM.reg (the "load" direction, opcode with the
// 0x02 direction bit set), which GNU as and clang never pick for a register-register form
// by themselves.
bool usesLoadDirection(const std::vector<uint8_t>& bytes, NodeBytes at) {
  std::size_t i = at.offset;
  const std::size_t end = at.offset + at.size;
  while (i < end && (bytes[i] == 0x66 || (bytes[i] & 0xf0) == 0x40)) ++i;  // prefixes, REX
  if (i >= end) throw CodegenError("AT&T printer: empty encoding");
  const uint8_t opcode = bytes[i];
  if (opcode < 0x40 && (opcode & 0x07) < 4) return (opcode & 0x02) != 0;  // add/adc/sub/xor...
  if (opcode >= 0x88 && opcode <= 0x8b) return (opcode & 0x02) != 0;      // mov
  return false;
}

class Printer {
 public:
  Printer(const x86::Builder& builder, const AttOptions& options)
      : builder_(builder), options_(options), encoded_(detail::encodeEachNode(builder, bytes_)) {}

  std::string print() {
    std::string out;
    if (options_.faultFixups) pushed_ = detail::pushedRegistersAt(builder_);
    for (const BaseNode* node = builder_.firstNode(); node; node = node->next()) {
      if (node->type() == NodeType::kLabel) {
        out += label(static_cast<const LabelNode*>(node)->labelId()) + ":\n";
      } else if (node->type() == NodeType::kAlign) {
        // Behind a ret or jmp: the fill never runs.
        const auto alignment = static_cast<const AlignNode*>(node)->alignment();
        const NodeBytes at = encoded_.at(node);
        if (options_.kernelStyle) {
          out += fmt::format("\t.p2align {}\t/* the next target on a boundary; never runs */\n",
                             std::countr_zero(alignment));
        } else if (at.size != 0) {
          // The JIT's own fill, byte for byte (`.p2align` would let the assembler pick its NOPs).
          out += "\t" + byteDirective(at) + "\t/* fill to a boundary; never runs */\n";
        }
      } else if (node->type() == NodeType::kInst) {
        const auto* inst = static_cast<const InstNode*>(node);
        const std::string text = "\t" + instruction(inst, encoded_.at(node)) + "\n";
        if (!options_.faultFixups || !canFault(inst)) {
          out += text;
          continue;
        }
        const std::string at = fmt::format(".L{}_access{}", options_.symbol, accesses_++);
        out += at + ":\n" + text;
        out += fmt::format("\t_ASM_EXTABLE_UA({}, {})\n", at, fixupFor(node));
      }
    }
    return out + fixups_;
  }

 private:
  std::string label(uint32_t id) const { return fmt::format(".L{}_{}", options_.symbol, id); }

  // A load or store of the caller's memory: any memory operand except the stack's, in an
  // instruction that touches memory (lea computes an address, a prefetch never faults).
  static bool canFault(const InstNode* inst) {
    const InstId id = inst->id();
    if (id == x86::Inst::kIdLea || id == x86::Inst::kIdPrefetcht0 ||
        id == x86::Inst::kIdPrefetcht1 || id == x86::Inst::kIdPrefetcht2 ||
        id == x86::Inst::kIdPrefetchnta) {
      return false;
    }
    for (uint32_t i = 0; i < inst->opCount(); ++i) {
      const Operand& op = inst->op(i);
      if (op.isMem() && op.as<x86::Mem>().baseId() != x86::Gp::kIdSp) return true;
    }
    return false;
  }

  // The fixup for a fault at `node`: one per set of pushed registers, written once.
  std::string fixupFor(const BaseNode* node) {
    const auto state = pushed_.find(node);
    if (state == pushed_.end()) {
      throw CodegenError("AT&T printer: a memory access the control flow never reaches");
    }
    const auto known = fixupLabels_.find(state->second);
    if (known != fixupLabels_.end()) return known->second;
    const std::string name = fmt::format(".L{}_fault{}", options_.symbol, fixupLabels_.size());
    fixupLabels_.emplace(state->second, name);
    fixups_ += name + ":\t/* a load or store faulted: restore, return 0 */\n";
    for (auto reg = state->second.rbegin(); reg != state->second.rend(); ++reg) {
      fixups_ += "\tpop\t" + registerName(x86::gpq(*reg)) + "\n";
    }
    fixups_ += fmt::format("\txor\t%eax, %eax\n\t{}\n", options_.kernelStyle ? "RET" : "ret");
    return name;
  }

  std::string operand(const Operand& op) const {
    if (op.isReg()) return registerName(op.as<x86::Reg>());
    if (op.isImm()) return fmt::format("${}", op.as<Imm>().value());
    if (op.isLabel()) return label(op.id());
    if (op.isMem()) {
      const auto& mem = op.as<x86::Mem>();
      if (!mem.hasBaseReg() || mem.hasSegment()) {
        throw CodegenError(
            "AT&T printer: only disp(base) and disp(base,index,scale) memory operands are "
            "supported");
      }
      const std::string base = registerName(x86::gpq(mem.baseId()));
      const std::string index =
          mem.hasIndex()
              ? fmt::format(",{},{}", registerName(x86::gpq(mem.indexId())), 1 << mem.shift())
              : "";
      return mem.offset() == 0 ? fmt::format("({}{})", base, index)
                               : fmt::format("{}({}{})", mem.offset(), base, index);
    }
    throw CodegenError("AT&T printer: operand kind it cannot print");
  }

  // `.byte 0x48, 0x03, 0xc8`: the node's encoding as data.
  std::string byteDirective(NodeBytes at) const {
    std::string text = ".byte\t";
    for (std::size_t i = 0; i < at.size; ++i)
      text += fmt::format("{}{:#04x}", i ? ", " : "", bytes_.at(at.offset + i));
    return text;
  }

  std::string instruction(const InstNode* inst, NodeBytes at) const {
    const auto found = vocabulary().find(inst->id());
    if (found == vocabulary().end()) {
      throw CodegenError(fmt::format("AT&T printer cannot print '{}'", instName(inst->id())));
    }
    std::string mnemonic = instName(inst->id());
    // AT&T lists operands source first.
    std::vector<std::string> ops;
    for (uint32_t i = inst->opCount(); i-- > 0;) ops.push_back(operand(inst->op(i)));

    bool hasReg = false;
    uint32_t memSize = 0;
    for (uint32_t i = 0; i < inst->opCount(); ++i) {
      hasReg |= inst->op(i).isReg();
      if (inst->op(i).isMem()) memSize = inst->op(i).as<x86::Mem>().size();
    }

    switch (found->second) {
      case Form::Return:
        return options_.kernelStyle ? "RET" : "ret";
      case Form::Jump:
        if (inst->opCount() != 1 || !inst->op(0).isLabel()) {
          throw CodegenError(
              fmt::format("AT&T printer: '{}' to something other than a label "
                          "(indirect jumps are not allowed)",
                          mnemonic));
        }
        // asmjit's 2-byte form is rel8; anything longer is rel32, which GNU as would shrink.
        return fmt::format("{}{}\t{}", at.size > 2 ? "{disp32} " : "", mnemonic, ops.front());
      case Form::Zx: {
        const auto dst = inst->op(0).as<x86::Gp>().size();
        const uint32_t src = inst->op(1).isMem() ? memSize : inst->op(1).as<x86::Gp>().size();
        mnemonic = fmt::format("movz{}{}", sizeSuffix(src), sizeSuffix(dst));
        break;
      }
      case Form::RegReg:
        if (inst->opCount() == 2 && inst->op(0).isReg() && inst->op(1).isReg() &&
            usesLoadDirection(bytes_, at)) {
          // GNU as would be told `{load}`, but clang's integrated assembler rejects that
          // pseudo-prefix ("unknown prefix") and `.s` for ALU mnemonics: the instruction's
          // own bytes, named in a comment, are the same to every assembler.
          return fmt::format("{}\t/* {}\t{}, {}: the load-direction encoding */", byteDirective(at),
                             mnemonic, ops[0], ops[1]);
        }
        [[fallthrough]];
      case Form::Plain:
        // Without a register operand GNU as cannot infer the size.
        if (!hasReg && memSize != 0) mnemonic += sizeSuffix(memSize);
        break;
    }
    // An AVX-512 write mask and zeroing follow the destination (the last AT&T operand).
    if (inst->hasExtraReg() && !ops.empty()) {
      const auto& extra = inst->extraReg();
      if (extra.type() != RegType::kX86_KReg) {
        throw CodegenError("AT&T printer: an extra register that is not a write mask");
      }
      ops.back() += fmt::format("{{%k{}}}", extra.id());
      if (inst->hasOption(InstOptions::kX86_ZMask)) ops.back() += "{z}";
    }
    std::string text = mnemonic;
    for (std::size_t i = 0; i < ops.size(); ++i) text += (i == 0 ? "\t" : ", ") + ops[i];
    return text;
  }

  const x86::Builder& builder_;
  const AttOptions& options_;
  std::vector<uint8_t> bytes_;
  std::map<const BaseNode*, NodeBytes> encoded_;
  // faultFixups only
  std::map<const BaseNode*, detail::PushedRegisters> pushed_;
  std::map<detail::PushedRegisters, std::string> fixupLabels_;
  std::string fixups_;
  int accesses_ = 0;
};

}  // namespace

std::string printAtt(const asmjit::x86::Builder& builder, const AttOptions& options) {
  return Printer(builder, options).print();
}

std::string printAtt(const KernelProgram& program, const AttOptions& options) {
  return printAtt(program.builder(), options);
}

}  // namespace csumtune::gen
