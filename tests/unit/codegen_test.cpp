// Structural rules of the DESIGN contract, checked on the Builder node list of every shape
// with asmjit's own instruction validation on: leaf function, no stack memory (no red zone),
// only direct jumps, callee-saved registers pushed before use and popped on every path.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "../../gen/src/node_encoding.hpp"  // white box: where each node landed
#include "csumtune/cpu.hpp"
#include "csumtune/gen/kernel_program.hpp"
#include "csumtune/jit.hpp"
#include "shapes.hpp"

namespace csumtune::gen {
namespace {

using namespace asmjit;

struct Lint {
  std::vector<std::string> problems;
  int returns = 0;
};

std::vector<const BaseNode*> nodesOf(const x86::Builder& builder) {
  std::vector<const BaseNode*> nodes;
  for (const BaseNode* n = builder.firstNode(); n; n = n->next()) nodes.push_back(n);
  return nodes;
}

// Walks every path through the function, tracking the registers pushed so far.
Lint lintPaths(const std::vector<const BaseNode*>& nodes) {
  Lint lint;
  std::map<uint32_t, std::size_t> labelAt;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i]->type() == NodeType::kLabel) {
      labelAt[static_cast<const LabelNode*>(nodes[i])->labelId()] = i;
    }
  }
  std::map<std::size_t, std::vector<uint32_t>> seen;  // stack state when first reaching a node
  std::vector<std::pair<std::size_t, std::vector<uint32_t>>> work{{0, {}}};
  while (!work.empty()) {
    auto [i, stack] = work.back();
    work.pop_back();
    for (; i < nodes.size(); ++i) {
      if (auto it = seen.find(i); it != seen.end()) {
        if (it->second != stack) lint.problems.push_back("stack differs where paths meet");
        break;
      }
      seen[i] = stack;
      if (nodes[i]->type() != NodeType::kInst) continue;
      const auto* inst = static_cast<const InstNode*>(nodes[i]);
      const auto flow = x86::InstDB::infoById(inst->id()).controlFlow();
      if (inst->id() == x86::Inst::kIdPush) stack.push_back(inst->op(0).id());
      if (inst->id() == x86::Inst::kIdPop) {
        if (stack.empty() || stack.back() != inst->op(0).id()) {
          lint.problems.push_back("pop does not match the last push");
        } else {
          stack.pop_back();
        }
      }
      if (flow == InstControlFlow::kCall) lint.problems.push_back("call in a leaf function");
      if (flow == InstControlFlow::kReturn) {
        ++lint.returns;
        if (!stack.empty()) lint.problems.push_back("return with registers still pushed");
        break;
      }
      if (flow == InstControlFlow::kJump || flow == InstControlFlow::kBranch) {
        if (!inst->op(0).isLabel()) {
          lint.problems.push_back("indirect jump");
          break;
        }
        work.push_back({labelAt.at(inst->op(0).id()), stack});
        if (flow == InstControlFlow::kJump) break;
      }
    }
  }
  return lint;
}

std::vector<Params> shapesWithPrefetch() {
  std::vector<Params> out;
  for (const Params& p : enumerateSpace({false, true})) {
    if (p.prefetch == 0 || (p.prefetch == 4096 && p.hint == Hint::Nta)) out.push_back(p);
  }
  for (const Params& p : testing::representativeFrames()) out.push_back(p);
  return out;
}

TEST(Codegen, EveryShapePassesValidationAndTheStructuralRules) {
  const std::set<uint32_t> calleeSaved{x86::Gp::kIdBx,  x86::Gp::kIdBp,  x86::Gp::kIdR12,
                                       x86::Gp::kIdR13, x86::Gp::kIdR14, x86::Gp::kIdR15};
  std::map<Carry, std::size_t> checked;
  for (const Params& params : shapesWithPrefetch()) {
    SCOPED_TRACE(params.toString());
    KernelProgram program(params, ProgramOptions{.validate = true});
    const RegisterPlan& plan = program.registers();
    std::set<uint32_t> pushed;
    for (const auto& r : plan.calleeSaved) pushed.insert(r.id());

    const auto nodes = nodesOf(program.builder());
    for (const BaseNode* node : nodes) {
      // (Alignment fill only where targets=aligned asks, and only behind a jump or a ret.)
      ASSERT_TRUE(node->type() == NodeType::kInst || node->type() == NodeType::kLabel ||
                  node->type() == NodeType::kSection ||
                  (node->type() == NodeType::kAlign && params.targets == Targets::Aligned))
          << "data or other non-instruction node in .text";
      if (node->type() != NodeType::kInst) continue;
      const auto* inst = static_cast<const InstNode*>(node);
      for (uint32_t i = 0; i < inst->opCount(); ++i) {
        const Operand& op = inst->op(i);
        if (op.isMem()) {
          const auto& mem = op.as<x86::Mem>();
          ASSERT_TRUE(mem.hasBaseReg()) << "absolute memory operand";
          ASSERT_NE(mem.baseId(), uint32_t(x86::Gp::kIdSp)) << "stack memory access (red zone)";
          // Only the word loop indexes: buffer + 8 * (negative word count), in a register;
          // entry=range/forty's last-bytes word: buffer + (count mod 8) - 8, in rcx; and
          // the AVX-512 middle path's masked last vector: buffer + ((len - 1) & -64), in r8.
          // (bounds=aligned's lea of the tail's end computes an address and loads nothing.)
          if (mem.hasIndex() && inst->id() != x86::Inst::kIdLea) {
            ASSERT_EQ(mem.baseId(), plan.buffer.id());
            const bool endWord = mem.shift() == 0 && mem.indexId() == x86::Gp::kIdCx &&
                                 mem.offset() == -8 && params.tail == Tail::Overlap &&
                                 (params.entry == Entry::Range || params.entry == Entry::Forty);
            const bool maskedLast = mem.shift() == 0 && mem.indexId() == x86::Gp::kIdR8 &&
                                    mem.offset() == 0 && params.hasMidPath() &&
                                    inst->id() == x86::Inst::kIdVmovdqu8;
            if (!endWord && !maskedLast) {
              ASSERT_EQ(params.words, Words::Loop);
              ASSERT_EQ(mem.shift(), 3u);
            }
          }
        }
        if (op.isReg() && op.as<x86::Reg>().isGp() && calleeSaved.count(op.id())) {
          ASSERT_TRUE(pushed.count(op.id())) << "callee-saved register used without a push";
        }
      }
    }
    const Lint lint = lintPaths(nodes);
    EXPECT_TRUE(lint.problems.empty()) << lint.problems.front();
    // One return for len <= 0, one after the sum, and one for each of the short, tiny
    // (overlapping tail), exact and middle paths the frame has; entry=forty has four more:
    // exactly 40 bytes, a multiple of 40 from 80 up, and the ladders of 41..79 and from 80
    // (each path falls into a ladder of its own), and block80=loop three more: the ladders
    // after its first 160 bytes and after its loop, and its 40-byte block's own.
    const bool forty = params.hasShortPath() && params.entry == Entry::Forty;
    const bool fortyLoop = forty && params.block80 == Block80::Loop;
    EXPECT_EQ(lint.returns, 2 + params.hasShortPath() + (params.tail == Tail::Overlap) +
                                (params.exact != 0) + params.hasMidPath() + 4 * forty +
                                3 * fortyLoop);

    // Nothing falls off the end: the last instruction is a ret, or byteload=straight's jump
    // back from the computed load laid out after it.
    const auto last = std::find_if(nodes.rbegin(), nodes.rend(), [](const BaseNode* node) {
      return node->type() == NodeType::kInst;
    });
    ASSERT_NE(last, nodes.rend());
    const auto lastId = static_cast<const InstNode*>(*last)->id();
    if (params.byteLoad == ByteLoad::Straight) {
      EXPECT_EQ(lastId, x86::Inst::kIdJmp) << "the function ends with the jump back";
    } else {
      EXPECT_EQ(lastId, x86::Inst::kIdRet) << "the function ends with ret";
      const auto bytes = program.bytes();
      ASSERT_FALSE(bytes.empty());
      EXPECT_EQ(bytes.back(), 0xc3) << "the function ends with ret";
    }
    ++checked[params.carry];
  }
  for (const CarryTraits* traits : allCarryTraits()) EXPECT_GT(checked[traits->carry], 0u);
}

// A frame key that changes nothing without a short path (the entry test) must give the code
// of its canonical name, which drops it: the name is what results files and digests record.
TEST(Codegen, AnEntryWithoutAShortPathGivesItsCanonicalCode) {
  for (const char* raw : {"carry=adc,chains=6,unroll=30,tail=overlap,entry=range,short=0",
                          "carry=avx2,chains=4,unroll=16,tail=overlap,entry=forty,short=0,mid=256",
                          "carry=adc,chains=2,unroll=8,tail=overlap,entry=lean",
                          // The word loop reads no tail chains (canonically 2).
                          "carry=adc,chains=4,unroll=16,words=loop,tailchains=1"}) {
    const Params p = parseParams(raw);
    EXPECT_EQ(KernelProgram(p).bytes(), KernelProgram(p.canonical()).bytes()) << raw;
  }
}

TEST(Codegen, RegisterPlanPrefersCallerSavedRegisters) {
  EXPECT_TRUE(planRegisters(parseParams("carry=adc,chains=4,unroll=16")).calleeSaved.empty());
  EXPECT_TRUE(planRegisters(parseParams("carry=adc,chains=6,unroll=12")).calleeSaved.empty());
  EXPECT_EQ(planRegisters(parseParams("carry=adc,chains=8,unroll=16")).calleeSaved.size(), 2u);
  // cmov with 8 chains: 8 accumulators, 4 shared counters, a scratch = 13 registers.
  const auto cmov = planRegisters(parseParams("carry=cmov,chains=8,unroll=16"));
  EXPECT_EQ(cmov.carryCounters.size(), 4u);
  EXPECT_EQ(cmov.calleeSaved.size(), 6u);
}

TEST(Codegen, InvalidParamsNeverReachTheEmitter) {
  EXPECT_THROW(KernelProgram(Params{Carry::Adcx, 3, 3, 0, Hint::T0}), ParamsError);
  EXPECT_THROW(KernelProgram(Params{Carry::Avx2, 3, 2, 0, Hint::T0}), ParamsError);
}

// Jump relaxation is complete: a jump keeps its rel32 form only when rel8 cannot reach (GNU as
// would shorten any other one, and the .S would then print {disp32} where it need not), and
// main loops longer than 160 bytes load with 8-bit displacements only (the biased pointer).
TEST(Codegen, NoJumpOrLoopLoadIsLongerThanItNeedsToBe) {
  std::vector<Params> shapes = testing::representativeShapes();
  const std::vector<Params> frames = testing::representativeFrames();
  shapes.insert(shapes.end(), frames.begin(), frames.end());
  int longJumps = 0;
  for (const Params& p : shapes) {
    KernelProgram program(p);
    std::vector<std::uint8_t> bytes;
    const auto placed = detail::encodeEachNode(program.builder(), bytes);
    // With targets=aligned a jump across fill is judged with every fill at its widest (15
    // bytes), the reach no later shortening can take from it (relaxJumps).
    std::map<const BaseNode*, std::int64_t> offset;
    std::int64_t widened = 0;
    for (const BaseNode* node = program.builder().firstNode(); node; node = node->next()) {
      offset[node] = static_cast<std::int64_t>(placed.at(node).offset) + widened;
      if (node->type() == NodeType::kAlign)
        widened += kTargetAlignment - 1 - static_cast<std::int64_t>(placed.at(node).size);
    }
    std::map<std::uint32_t, std::int64_t> labelAt;
    for (const auto& [node, at] : placed) {
      if (node->type() == NodeType::kLabel)
        labelAt[static_cast<const LabelNode*>(node)->labelId()] = offset.at(node);
    }
    // General-purpose kernels with blocks up to 128 bytes, or of 160..256 (biased), and exact
    // paths up to 128 bytes: every load (prefetches aside: their distance is the user's) has
    // an 8-bit displacement.
    const int block = p.blockBytes();
    const bool loadsShort = traitsOf(p.carry).kernelSafe() &&
                            (block <= 128 || (block >= 160 && block <= 256)) && p.exact <= 128;
    for (const auto& [node, at] : placed) {
      if (node->type() != NodeType::kInst) continue;
      const auto* inst = static_cast<const InstNode*>(node);
      const bool prefetch =
          inst->id() == x86::Inst::kIdPrefetcht0 || inst->id() == x86::Inst::kIdPrefetcht1 ||
          inst->id() == x86::Inst::kIdPrefetcht2 || inst->id() == x86::Inst::kIdPrefetchnta;
      for (std::uint32_t i = 0; loadsShort && !prefetch && i < inst->opCount(); ++i) {
        if (!inst->op(i).isMem()) continue;
        const std::int64_t disp = inst->op(i).as<x86::Mem>().offset();
        EXPECT_TRUE(disp >= -128 && disp <= 127) << p.toString() << ": a load at " << disp;
      }
      if (inst->opCount() != 1 || !inst->op(0).isLabel() || at.size == 2) continue;
      ++longJumps;
      const std::int64_t target = labelAt.at(inst->op(0).id());
      const std::int64_t end = offset.at(node) + static_cast<std::int64_t>(at.size);
      // The rel8 form: 2 bytes, and a forward target that many bytes closer.
      const std::int64_t shortDisp = target > end ? target - end : target - (offset.at(node) + 2);
      EXPECT_TRUE(shortDisp < -128 || shortDisp > 127)
          << p.toString() << ": a rel32 jump whose rel8 form reaches (" << shortDisp << ")";
    }
  }
  EXPECT_GT(longJumps, 0) << "no long jump at all: the check would not notice a broken one";
}

// targets=aligned moves the code that only jumps reach to 16-byte boundaries and changes
// nothing that runs: the same instructions in the same order (jumps may keep a longer form),
// fill only right after a ret or jmp, and every label there on a boundary of the code.
TEST(Codegen, AlignedTargetsRunTheSameInstructionsWithTheirTargetsOn16ByteBoundaries) {
  int filled = 0;
  for (const Params& frame : testing::representativeFrames()) {
    if (frame.targets != Targets::Aligned) continue;
    SCOPED_TRACE(frame.toString());
    Params packedFrame = frame;
    packedFrame.targets = Targets::Packed;
    KernelProgram aligned(frame), packed(packedFrame);
    std::vector<const InstNode*> ran, packedRan;
    for (const BaseNode* n : nodesOf(packed.builder()))
      if (n->type() == NodeType::kInst) packedRan.push_back(static_cast<const InstNode*>(n));
    std::vector<std::uint8_t> bytes;
    const auto placed = detail::encodeEachNode(aligned.builder(), bytes);
    const auto nodes = nodesOf(aligned.builder());
    int labelsBehindJumps = 0;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i]->type() == NodeType::kInst) {
        ran.push_back(static_cast<const InstNode*>(nodes[i]));
      } else if (nodes[i]->type() == NodeType::kAlign) {
        ASSERT_GT(i, 0u);
        ASSERT_EQ(nodes[i - 1]->type(), NodeType::kInst);
        const auto flow =
            x86::InstDB::infoById(static_cast<const InstNode*>(nodes[i - 1])->id()).controlFlow();
        EXPECT_TRUE(flow == InstControlFlow::kJump || flow == InstControlFlow::kReturn)
            << "fill that a fall-through would run";
        ASSERT_LT(i + 1, nodes.size());
        EXPECT_EQ(nodes[i + 1]->type(), NodeType::kLabel) << "fill in front of no target";
        EXPECT_EQ(placed.at(nodes[i + 1]).offset % kTargetAlignment, 0u);
        filled += placed.at(nodes[i]).size != 0;
        ++labelsBehindJumps;
      }
    }
    EXPECT_GT(labelsBehindJumps, 0) << "no label behind a jump: the key would change nothing";
    ASSERT_EQ(ran.size(), packedRan.size());
    for (std::size_t i = 0; i < ran.size(); ++i) {
      EXPECT_EQ(ran[i]->id(), packedRan[i]->id()) << "instruction " << i;
      ASSERT_EQ(ran[i]->opCount(), packedRan[i]->opCount());
      for (std::uint32_t k = 0; k < ran[i]->opCount(); ++k)
        EXPECT_TRUE(ran[i]->op(k) == packedRan[i]->op(k))
            << "instruction " << i << " operand " << k;
    }
    // What the printer reads (the fill it prints) is what the JIT runs, where the JIT puts it:
    // its entry on a 16-byte boundary (at `place` in a line), so the targets are on the CPU's.
    EXPECT_EQ(bytes, aligned.bytes());
    if (missingFeatures(frame).empty()) {
      const Kernel jit = Jit::compile(frame);
      const auto* entry = reinterpret_cast<const std::uint8_t*>(jit.fn());
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(entry) % 64,
                static_cast<std::uintptr_t>(frame.place));
      EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), entry)) << "the JIT runs other bytes";
    }
    // The bytes differ only by the fill and longer jumps: never fewer.
    EXPECT_GE(bytes.size(), packed.bytes().size());
  }
  EXPECT_GT(filled, 0) << "no frame needed fill: the check would not notice misplaced fill";
}

TEST(Codegen, SameParamsSameBytes) {
  const Params p = parseParams("carry=cmov,chains=3,unroll=9,prefetch=640,hint=t1");
  KernelProgram a(p), b(p);
  EXPECT_EQ(a.bytes(), b.bytes());
}

}  // namespace
}  // namespace csumtune::gen
