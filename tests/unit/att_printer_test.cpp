// The .S side of "one instruction stream, two outputs": text printed from the Builder node
// list, assembled by GNU as at build time and linked into this binary, must be the JIT's
// bytes exactly and pass the same full correctness suite.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "csumtune/cpu.hpp"
#include "csumtune/gen/att_printer.hpp"
#include "csumtune/gen/kernel_program.hpp"
#include "linked_kernels.hpp"
#include "shapes.hpp"
#include "source_file.hpp"
#include "verify/verify.hpp"

namespace csumtune {
namespace {

// Every loop shape the rules allow, counted here from the registry and the limits (not from
// the generator's own list), has exactly one .S-linked kernel.
TEST(LinkedKernels, OnePerShape) {
  std::map<std::string, int> linked;
  std::size_t frames = 0;
  for (const LinkedKernel& k : linkedKernels()) {
    gen::Params p = gen::parseParams(k.params);
    if (!testing::hasDefaultFrame(p) || !testing::inSpaceForm(p)) {
      ++frames;
      continue;
    }
    ++linked[testing::shapeName(p)];
  }
  EXPECT_EQ(frames, linkedFramesIncluded() ? testing::representativeFrames().size() : 0);
  std::size_t shapes = 0;
  using L = gen::ParamLimits;
  for (const gen::CarryTraits* traits : gen::allCarryTraits()) {
    for (int chains = L::kMinChains; chains <= L::kMaxChains; ++chains) {
      for (int unroll = L::kMinUnroll; unroll <= L::kMaxUnroll; ++unroll) {
        const gen::Params p{traits->carry, chains, unroll, 0, gen::Hint::T0};
        if (!gen::validationError(p).empty()) continue;
        ++shapes;
        EXPECT_EQ(linked[testing::shapeName(p)], 1) << p.toString();
      }
    }
  }
  EXPECT_EQ(linked.size(), shapes);
}

TEST(LinkedKernels, GnuAsBytesEqualJitBytes) {
  for (const LinkedKernel& linked : linkedKernels()) {
    gen::KernelProgram program(gen::parseParams(linked.params));
    const auto jit = program.bytes();
    const auto* assembled = reinterpret_cast<const std::uint8_t*>(linked.fn);
    EXPECT_EQ(std::memcmp(assembled, jit.data(), jit.size()), 0)
        << linked.params << ": the assembled .S differs from the JIT's code";
  }
}

// The loop shapes (default frame) take the full plan. A frame variant differs from its loop
// shape only in the code around the loop, which the lengths up to 1024 reach at every
// alignment: its long lengths are the plan's fixed ones, not its 40 random ones. A
// bounds=aligned kernel's over-reads come from its tail code, which depends on the carry
// family, the tail strategy, the tail chains and whether a middle path (mid=N) ends in it,
// not on the rest of the frame: the first kernel of each such group puts the buffer at every
// gap 0..63 from both guard pages, the others at sampled gaps (every kernel's bytes are the JIT's,
// which `verify --frames` checks as well).
TEST(LinkedKernels, PassTheFullCorrectnessSuite) {
  const tuner::VerifyFixture fixture(77);
  const auto full = tuner::fullPlan(77);
  auto frames = full;
  const std::set<int> fixedLong{1500, 2047, 2048, 4095, 4096, 4097, 9000, 65535, 65536};
  std::erase_if(frames.cases, [&](const tuner::VerifyCase& c) {
    return c.len > 1024 && !fixedLong.count(c.len);
  });
  const auto aligned = tuner::withOverReads(frames, 8);
  auto sampled = frames;
  sampled.sampled = true;
  sampled = tuner::withOverReads(sampled, 8);
  std::set<std::tuple<gen::Carry, gen::Tail, int, bool, gen::ByteLoad>> everyGapShown;
  for (const LinkedKernel& linked : linkedKernels()) {
    const gen::Params params = gen::parseParams(linked.params);
    if (!missingFeatures(params).empty()) continue;
    const tuner::VerifyPlan* plan = testing::hasDefaultFrame(params) ? &full : &frames;
    if (params.bounds == gen::Bounds::Aligned) {
      const bool everyGap = everyGapShown
                                .insert({params.carry, params.tail, params.tailChains,
                                         params.mid != 0, params.byteLoad})
                                .second;
      plan = everyGap ? &aligned : &sampled;
    }
    const auto outcome = tuner::verifyKernel(linked.fn, fixture, *plan);
    EXPECT_TRUE(outcome.ok()) << linked.params << ": " << *outcome.failure;
  }
}

// The printer refuses what it does not know instead of printing something plausible.
class PrinterRefuses : public ::testing::Test {
 protected:
  PrinterRefuses() {
    code.init(asmjit::Environment(asmjit::Arch::kX64));
    code.attach(&builder);
  }
  void expectRefusal(const char* words) {
    try {
      gen::printAtt(builder);
      ADD_FAILURE() << "printed something it should refuse";
    } catch (const gen::CodegenError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  }
  asmjit::CodeHolder code;
  asmjit::x86::Builder builder;
};

TEST_F(PrinterRefuses, AnInstructionOutsideItsVocabulary) {
  builder.cpuid();
  expectRefusal("cannot print 'cpuid'");
}

TEST_F(PrinterRefuses, AnIndirectJump) {
  builder.jmp(asmjit::x86::rax);
  expectRefusal("indirect jumps are not allowed");
}

TEST_F(PrinterRefuses, ASegmentOverride) {
  auto mem = asmjit::x86::qword_ptr(asmjit::x86::rdi);
  mem.setSegment(asmjit::x86::fs);
  builder.add(asmjit::x86::rax, mem);
  expectRefusal("only disp(base) and disp(base,index,scale) memory operands");
}

TEST(Printer, PrintsAnIndexedOperandInAttOrder) {
  asmjit::CodeHolder code;
  code.init(asmjit::Environment(asmjit::Arch::kX64));
  asmjit::x86::Builder builder(&code);
  builder.adc(asmjit::x86::rax, asmjit::x86::qword_ptr(asmjit::x86::rdi, asmjit::x86::r9, 3));
  builder.adc(asmjit::x86::rax, asmjit::x86::qword_ptr(asmjit::x86::rdi, asmjit::x86::r9, 3, 8));
  const std::string text = gen::printAtt(builder);
  EXPECT_NE(text.find("adc\t(%rdi,%r9,8), %rax"), std::string::npos) << text;
  EXPECT_NE(text.find("adc\t8(%rdi,%r9,8), %rax"), std::string::npos) << text;
}

// clang's integrated assembler rejects GNU as's `{load}` ("unknown prefix"): a
// register-register instruction asmjit encoded in the load direction is printed as its bytes
// (the instruction in a comment), which GNU as and clang assemble alike. Whole kernels go
// through both assemblers in tests/e2e/assemblers.sh.
TEST(Printer, PrintsTheLoadDirectionAsBytesNotAPseudoPrefix) {
  using namespace asmjit::x86;
  asmjit::CodeHolder code;
  code.init(asmjit::Environment(asmjit::Arch::kX64));
  Builder builder(&code);
  builder.mod_rm().add(rcx, rax);  // 48 03 c8
  builder.mod_rm().mov(ecx, eax);  // 8b c8
  builder.add(rcx, rax);           // 48 01 c1: the direction assemblers pick by themselves
  builder.mod_rm().adc(r9, r10);   // 4d 13 ca
  const std::string text = gen::printAtt(builder);
  EXPECT_EQ(text.find('{'), std::string::npos) << text;
  EXPECT_NE(text.find("\t.byte\t0x48, 0x03, 0xc8\t/* add\t%rax, %rcx: the load-direction "
                      "encoding */\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\t.byte\t0x8b, 0xc8\t/* mov\t%eax, %ecx: "), std::string::npos) << text;
  EXPECT_NE(text.find("\t.byte\t0x4d, 0x13, 0xca\t/* adc\t%r10, %r9: "), std::string::npos) << text;
  EXPECT_NE(text.find("\tadd\t%rax, %rcx\n"), std::string::npos) << text;

  // Each assembler installed here turns the text into the JIT's bytes.
  ASSERT_EQ(builder.finalize(), asmjit::kErrorOk);
  const auto& buffer = code.textSection()->buffer();
  const std::vector<std::uint8_t> jit(buffer.data(), buffer.data() + buffer.size());
  ASSERT_EQ(jit, (std::vector<std::uint8_t>{0x48, 0x03, 0xc8, 0x8b, 0xc8, 0x48, 0x01, 0xc1, 0x4d,
                                            0x13, 0xca}));
  const std::string dir = ::testing::TempDir() + "printer-load-" + std::to_string(::getpid());
  ASSERT_EQ(std::system(("mkdir -p '" + dir + "'").c_str()), 0);
  std::ofstream(dir + "/load.S") << "\t.text\n" << text;
  int assembled = 0;
  for (const auto& [tool, command] : std::vector<std::pair<std::string, std::string>>{
           {"as", "as '{0}/load.S' -o '{0}/{1}.o'"},
           {"clang", "clang -c '{0}/load.S' -o '{0}/{1}.o'"}}) {
    if (std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) != 0) continue;
    ++assembled;
    std::string run = command;
    for (std::size_t at; (at = run.find("{0}")) != std::string::npos;) run.replace(at, 3, dir);
    for (std::size_t at; (at = run.find("{1}")) != std::string::npos;) run.replace(at, 3, tool);
    ASSERT_EQ(std::system((run + " 2>'" + dir + "/" + tool + ".err'").c_str()), 0)
        << tool << " refused the text:\n"
        << text;
    ASSERT_EQ(std::system(("objcopy -O binary -j .text '" + dir + "/" + tool + ".o' '" + dir + "/" +
                           tool + ".bin'")
                              .c_str()),
              0);
    std::ifstream in(dir + "/" + tool + ".bin", std::ios::binary);
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                          std::istreambuf_iterator<char>());
    EXPECT_EQ(bytes, jit) << tool;
  }
  std::system(("rm -rf '" + dir + "'").c_str());
  if (assembled < 2) GTEST_SKIP() << "GNU as or clang is not installed: not both assembled it";
}

TEST_F(PrinterRefuses, DataInText) {
  builder.embedUInt8(0x90);
  expectRefusal("never emits (data)");
}

// Kernel-style output: leave only through RET, no indirect jumps, no data in .text, every
// pushed register popped on every path (walked over the text's own jumps and labels). With
// `extable` (the copy, csum_partial_copy_generic): every access to memory other than the
// stack sits right after its own label and right before the _ASM_EXTABLE_UA entry that names
// it, and the walk follows each entry to its fixup with the stack of the faulting access.
std::vector<std::string> lintKernelText(const std::string& text,
                                        const std::string& symbol = "csum_partial",
                                        bool extable = false) {
  std::vector<std::string> problems;
  std::vector<std::string> body;
  bool inside = false;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("SYM_FUNC_START(" + symbol + ")", 0) == 0)
      inside = true;
    else if (line.rfind("SYM_FUNC_END(" + symbol + ")", 0) == 0)
      inside = false;
    else if (inside)
      body.push_back(line);
  }
  if (body.empty()) return {"no " + symbol + " body found"};

  static const std::regex bareRet(R"(^\s*(\{[a-z0-9]+\}\s*)?ret[lq]?\b)");
  static const std::regex indirect(R"(^\s*(\{[a-z0-9]+\}\s*)?(jmp|call)[a-z]*\s+\*)");
  static const std::regex data(
      R"(^\s*\.(byte|word|short|long|quad|ascii|asciz|string|fill|zero|skip|space|octa)\b)");
  static const std::regex jump(R"(^\s*(\{disp32\}\s*)?(j[a-z]+)\s+(\S+)\s*$)");
  static const std::regex label(R"(^(\.L\w+):)");
  static const std::regex entry(R"(^\s*_ASM_EXTABLE_UA\((\.L\w+), (\.L\w+)\)\s*$)");
  static const std::regex access(R"(^\t(?!lea|prefetch)[a-z]+\t.*\((%r(?!sp)\w+)[,)])");
  std::map<std::string, std::size_t> labels;
  int entries = 0;
  for (std::size_t i = 0; i < body.size(); ++i) {
    std::smatch m;
    if (std::regex_search(body[i], m, label)) labels[m[1]] = i;
    if (std::regex_match(body[i], m, entry)) ++entries;
    if (extable && std::regex_search(body[i], access)) {
      std::smatch at, e;
      const bool labelled = i > 0 && std::regex_search(body[i - 1], at, label);
      const bool listed = i + 1 < body.size() && std::regex_match(body[i + 1], e, entry);
      if (!labelled || !listed || at[1] != e[1])
        problems.push_back("an access without its exception-table entry: " + body[i]);
    }
    if (std::regex_search(body[i], bareRet)) problems.push_back("bare ret: " + body[i]);
    if (std::regex_search(body[i], indirect)) problems.push_back("indirect jump: " + body[i]);
    if (std::regex_search(body[i], data)) problems.push_back("data in .text: " + body[i]);
  }
  // Walk every path from the entry, tracking pushed registers.
  std::map<std::size_t, std::vector<std::string>> seen;
  std::vector<std::pair<std::size_t, std::vector<std::string>>> work{{0, {}}};
  static const std::regex push(R"(^\s*push[q]?\s+(%\w+))"), pop(R"(^\s*pop[q]?\s+(%\w+))");
  static const std::regex ret(R"(^\s*RET\b)");
  // Boot-time patching: the jump stays on a CPU without the feature, becomes NOPs with it.
  static const std::regex alternative(
      R"re(^\s*ALTERNATIVE\s+"jmp\s+(\.L\w+)",\s*"",\s*X86_FEATURE_\w+\s*$)re");
  int returns = 0;
  while (!work.empty()) {
    auto [i, stack] = work.back();
    work.pop_back();
    for (; i < body.size(); ++i) {
      if (auto it = seen.find(i); it != seen.end()) {
        if (it->second != stack) problems.push_back("push depth differs where paths meet");
        break;
      }
      seen[i] = stack;
      std::smatch m;
      if (std::regex_search(body[i], m, push)) stack.push_back(m[1]);
      if (std::regex_search(body[i], m, pop)) {
        if (stack.empty() || stack.back() != m[1])
          problems.push_back("unmatched pop: " + body[i]);
        else
          stack.pop_back();
      }
      if (std::regex_search(body[i], ret)) {
        ++returns;
        if (!stack.empty()) problems.push_back("RET with " + stack.back() + " still pushed");
        break;
      }
      if (body[i].find("ALTERNATIVE") != std::string::npos) {
        if (!std::regex_match(body[i], m, alternative) || !labels.count(m[1])) {
          problems.push_back("an ALTERNATIVE the lint does not know: " + body[i]);
          break;
        }
        work.push_back({labels[m[1]], stack});  // both paths: with and without the feature
      }
      if (std::regex_match(body[i], m, entry)) {
        if (!labels.count(m[2])) {
          problems.push_back("an entry to an unknown fixup: " + body[i]);
          break;
        }
        work.push_back({labels[m[2]], stack});  // a fault: to the fixup, as pushed here
      }
      if (std::regex_match(body[i], m, jump)) {
        if (!labels.count(m[3])) {
          problems.push_back("jump to unknown label: " + body[i]);
          break;
        }
        work.push_back({labels[m[3]], stack});
        if (m[2] == "jmp") break;
      }
    }
  }
  if (returns == 0) problems.push_back("no RET reached");
  if (extable && entries == 0) problems.push_back("no exception-table entries");
  if (!extable && entries != 0) problems.push_back("exception-table entries in a sum");
  // (An alignment directive behind a RET or jmp is the assembler's fill, not code.)
  static const std::regex alignment(R"(^\t\.p2align\s+4\b)");
  for (std::size_t i = 0; i < body.size(); ++i) {
    if (!seen.count(i) && !body[i].empty() && body[i][0] == '\t' &&
        !std::regex_search(body[i], alignment))
      problems.push_back("unreachable: " + body[i]);
  }
  return problems;
}

// Runs `command` (with {0} replaced by dir) through the shell; true when it exits 0.
bool runIn(const std::string& dir, std::string command) {
  for (std::size_t at; (at = command.find("{0}")) != std::string::npos;)
    command.replace(at, 3, dir);
  return std::system((command + " 2>>'" + dir + "/err'").c_str()) == 0;
}

std::vector<std::uint8_t> fileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The .S files put the entry where the JIT does (place=N: byte N of a 64-byte line). GNU as:
// the section starts with N bytes of int3 and then the JIT's bytes. Kernel style: the lines in
// front of SYM_FUNC_START, followed by what that macro puts there (its alignment to 16 and,
// with CONFIG_CALL_PADDING, 16 bytes of NOPs), land the entry at N with and without padding.
TEST(Placement, TheSourceFilesPutTheEntryWhereTheJitDoes) {
  if (std::system("command -v as >/dev/null 2>&1 && command -v cpp >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "GNU as or cpp is not installed";
  const std::string dir = ::testing::TempDir() + "placement-" + std::to_string(::getpid());
  ASSERT_EQ(std::system(("mkdir -p '" + dir + "'").c_str()), 0);
  for (int place : gen::ParamLimits::kPlacements) {
    gen::Params params =
        gen::parseParams("carry=adc,chains=4,unroll=16,tail=overlap,entry=lean,short=64");
    params.place = place;
    std::ofstream(dir + "/gas.S") << tuner::renderSource(
        {params, tuner::SourceStyle::Gas, "csum_partial", {}, {}, {}});
    ASSERT_TRUE(runIn(dir,
                      "as '{0}/gas.S' -o '{0}/gas.o' && objcopy -O binary -j .text "
                      "'{0}/gas.o' '{0}/gas.bin'"))
        << place;
    std::vector<std::uint8_t> expected(static_cast<std::size_t>(place), 0xcc);
    const auto jit = gen::KernelProgram(params).bytes();
    expected.insert(expected.end(), jit.begin(), jit.end());
    EXPECT_EQ(fileBytes(dir + "/gas.bin"), expected) << "place=" << place;

    // The kernel file has the lines right in front of SYM_FUNC_START.
    const std::string kernelText =
        tuner::renderSource({params, tuner::SourceStyle::Kernel, "csum_partial", {}, {}, {}});
    const std::string lines = tuner::placementDirectives(params, tuner::SourceStyle::Kernel);
    EXPECT_NE(kernelText.find(lines + "SYM_FUNC_START(csum_partial)"), std::string::npos)
        << kernelText;
    struct Config {
      const char* defines;
      int alignment;
      bool padded;
      int expected;  // where the entry lands
    };
    for (const Config& config :
         {Config{"-DCONFIG_CALL_PADDING -DCONFIG_FUNCTION_ALIGNMENT=16", 16, true, place},
          Config{"-DCONFIG_FUNCTION_ALIGNMENT=16", 16, false, place},
          Config{"", 16, false, place},  // a tree before CONFIG_FUNCTION_ALIGNMENT (6.1)
          // Aligned to 64: nothing can put it at 16, 32 or 48, and the lines do nothing.
          Config{"-DCONFIG_CALL_PADDING -DCONFIG_FUNCTION_ALIGNMENT=64", 64, true, 0}}) {
      std::ofstream(dir + "/kernel.S")
          << "\t.text\n\tnop\n"
          << lines << "\t.balign " << config.alignment << ", 0x90\n"
          << (config.padded ? "\t.skip " + std::to_string(config.alignment) + ", 0x90\n" : "")
          << "entry:\n\tret\n";
      ASSERT_TRUE(runIn(dir, std::string("cpp -P ") + config.defines +
                                 " '{0}/kernel.S' > '{0}/kernel.s' && as '{0}/kernel.s' -o "
                                 "'{0}/kernel.o' && objcopy -O binary -j .text '{0}/kernel.o' "
                                 "'{0}/kernel.bin'"))
          << config.defines;
      const auto bytes = fileBytes(dir + "/kernel.bin");
      ASSERT_GE(bytes.size(), 17u);
      EXPECT_EQ(bytes.back(), 0xc3);
      EXPECT_EQ((bytes.size() - 1) % 64, static_cast<std::size_t>(config.expected))
          << config.defines;
      // The 16 bytes in front of the entry are one-byte NOPs: call-depth tracking patches the
      // padding and checks that it is.
      EXPECT_TRUE(std::all_of(bytes.end() - 17, bytes.end() - 1, [](auto b) { return b == 0x90; }))
          << config.defines;
    }
  }
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST(KernelStyle, RefusesVectorFamilies) {
  for (const char* p : {"carry=avx2", "carry=avx512", "carry=avx512vnni"}) {
    try {
      tuner::renderSource(
          {gen::parseParams(p), tuner::SourceStyle::Kernel, "csum_partial", {}, {}, {}});
      ADD_FAILURE() << "kernel style accepted " << p;
    } catch (const gen::ParamsError& e) {
      EXPECT_NE(std::string(e.what()).find("vector registers"), std::string::npos) << e.what();
    }
  }
}

TEST(KernelStyle, EveryShapePassesTheLint) {
  for (const gen::Params& params : testing::representativeShapes()) {
    if (!gen::traitsOf(params.carry).kernelSafe()) continue;
    const std::string text =
        tuner::renderSource({params, tuner::SourceStyle::Kernel, "csum_partial", {}, {}, {}});
    const auto problems = lintKernelText(text);
    EXPECT_TRUE(problems.empty()) << params.toString() << ": " << problems.front();
    EXPECT_NE(text.find("EXPORT_SYMBOL(csum_partial)"), std::string::npos);
    EXPECT_NE(text.find("SYM_FUNC_START(ip_compute_csum)"), std::string::npos);
    EXPECT_NE(text.find("#include <linux/linkage.h>"), std::string::npos);
  }
}

// targets=aligned in kernel style: the fill is `.p2align 4` (the assembler's, where the body
// really lies in the kernel), never the JIT's `.byte`, and the text passes the lint, a copy's
// exception table included (kernel.module builds two such kernels with the kernel's objtool).
TEST(KernelStyle, AlignedTargetsAreTheAssemblersFill) {
  for (const char* text :
       {"carry=adc,chains=8,unroll=32,tail=overlap,sum=last,entry=forty,short=512,"
        "tailchains=short,block80=loop,targets=aligned",
        "carry=adcx,chains=4,unroll=32,tail=overlap,sum=last,entry=range,short=128,bounds=aligned,"
        "byteload=straight,targets=aligned",
        "carry=cmov,chains=8,unroll=32,prefetch=256,hint=nta,exact=40,sum=last,kind=copy,"
        "targets=aligned"}) {
    const gen::Params params = gen::parseParams(text);
    const bool copy = params.kind == gen::Kind::Copy;
    const std::string symbol = copy ? "csum_partial_copy_generic" : "csum_partial";
    const std::string source =
        tuner::renderSource({params, tuner::SourceStyle::Kernel, symbol, {}, {}, {}});
    const auto problems = lintKernelText(source, symbol, copy);
    EXPECT_TRUE(problems.empty()) << text << ": " << problems.front();
    EXPECT_NE(source.find("\t.p2align 4\t"), std::string::npos) << text;
    EXPECT_EQ(source.find("fill to a boundary"), std::string::npos) << text;
    // The gas style prints the JIT's fill instead.
    const std::string gas =
        tuner::renderSource({params, tuner::SourceStyle::Gas, symbol, {}, {}, {}});
    EXPECT_EQ(gas.find(".p2align 4\t"), std::string::npos) << text;
    EXPECT_NE(gas.find("fill to a boundary; never runs"), std::string::npos) << text;
  }
}

// kind=copy in kernel style, every GPR shape: csum_partial_copy_generic's text passes the
// lint with its exception table (every access listed, every fixup popping what its accesses
// pushed, then returning 0).
TEST(KernelStyle, EveryCopyingShapePassesTheLintWithItsExceptionTable) {
  int shapes = 0;
  for (gen::Params params : testing::representativeShapes()) {
    params.kind = gen::Kind::Copy;
    if (!gen::traitsOf(params.carry).kernelSafe() || !gen::validationError(params).empty()) {
      continue;
    }
    ++shapes;
    // And with non-temporal stores: every movnti is an access with its entry too.
    gen::Params nt = params;
    nt.store = gen::Store::Nt;
    const std::string ntText = tuner::renderSource(
        {nt, tuner::SourceStyle::Kernel, "csum_partial_copy_generic", {}, {}, {}});
    const auto ntProblems = lintKernelText(ntText, "csum_partial_copy_generic", true);
    EXPECT_TRUE(ntProblems.empty()) << nt.toString() << ": " << ntProblems.front();
    EXPECT_NE(ntText.find("\tsfence\n"), std::string::npos) << nt.toString();
    const std::string text = tuner::renderSource(
        {params, tuner::SourceStyle::Kernel, "csum_partial_copy_generic", {}, {}, {}});
    const auto problems = lintKernelText(text, "csum_partial_copy_generic", true);
    EXPECT_TRUE(problems.empty()) << params.toString() << ": " << problems.front();
    EXPECT_NE(text.find("#include <asm/asm.h>"), std::string::npos);
    EXPECT_EQ(text.find("EXPORT_SYMBOL("), std::string::npos);
    EXPECT_NE(text.find("\tmov\t$-1, %edx\n"), std::string::npos) << "starts from ~0";
    EXPECT_NE(text.find("\txor\t%eax, %eax\n\tRET\n"), std::string::npos) << "fixup returns 0";
  }
  // The GPR shapes of the representative set that can copy (copying takes r10 and r11 from
  // the register pool, so the widest cmov and add32 shapes cannot).
  EXPECT_EQ(shapes, 288);
}

TEST(KernelStyle, TheCopyLintCanFail) {
  const std::string good = tuner::renderSource(
      {gen::parseParams("carry=adc,chains=6,unroll=30,tail=overlap,entry=lean,short=128,kind=copy"),
       tuner::SourceStyle::Kernel,
       "csum_partial_copy_generic",
       {},
       {},
       {}});
  ASSERT_TRUE(lintKernelText(good, "csum_partial_copy_generic", true).empty());
  auto broken = [&](const std::regex& from, const std::string& to) {
    return lintKernelText(
        std::regex_replace(good, from, to, std::regex_constants::format_first_only),
        "csum_partial_copy_generic", true);
  };
  EXPECT_FALSE(broken(std::regex(R"(\t_ASM_EXTABLE_UA\([^)]*\)\n)"), "").empty())
      << "an access without an entry";
  EXPECT_FALSE(broken(std::regex(R"((_fault\d+:.*\n)\tpop\t%\w+\n)"), "$1").empty())
      << "a fixup that forgets a pop";
  EXPECT_FALSE(lintKernelText(good, "csum_partial_copy_generic", false).empty());
}

TEST(KernelStyle, TheLintCanFail) {
  const std::string good = tuner::renderSource({gen::parseParams("carry=adc,chains=8,unroll=16"),
                                                tuner::SourceStyle::Kernel,
                                                "csum_partial",
                                                {},
                                                {},
                                                {}});
  EXPECT_TRUE(lintKernelText(good).empty());
  auto broken = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    text.replace(text.find(from), from.size(), to);
    return lintKernelText(text);
  };
  EXPECT_FALSE(broken("\tRET\n", "\tret\n").empty());
  EXPECT_FALSE(broken("\tpop\t%rbx\n", "").empty()) << "a path returning with rbx pushed";
  EXPECT_FALSE(broken("\tRET\n", "\tjmp\t*%rax\n").empty());
  EXPECT_FALSE(broken("\tRET\n", "\t.byte 0xc3\n").empty());
}

// The header with its wrapped fields joined back: a continuation line is " *" and 15 spaces;
// a break after a comma joins without a space, one at a space with one.
std::string headerJoined(std::string text) {
  const std::string continuation = "\n *               ";
  for (std::size_t at; (at = text.find(continuation)) != std::string::npos;)
    text.replace(at, continuation.size(), at > 0 && text[at - 1] == ',' ? "" : " ");
  return text;
}

TEST(SourceFile, HeaderSaysWhatAndHowToRegenerate) {
  const auto params = gen::parseParams("carry=cmov,chains=8,unroll=16,prefetch=512,hint=nta");
  const std::string text =
      headerJoined(tuner::renderSource({params, tuner::SourceStyle::Gas, "my_csum", {}, {}, {}}));
  EXPECT_NE(text.find("Generated by csumtune " + std::string(gen::kGeneratorVersion)),
            std::string::npos);
  EXPECT_NE(text.find("params:       " + params.toString()), std::string::npos);
  EXPECT_NE(text.find("regenerate:   csumtune emit --params " + params.toString() +
                      " --style gas --symbol my_csum"),
            std::string::npos);
  EXPECT_NE(text.find(".globl\tmy_csum"), std::string::npos);
  EXPECT_NE(text.find(".note.GNU-stack"), std::string::npos);
  EXPECT_EQ(text.find("ip_compute_csum"), std::string::npos);
}

TEST(SourceFile, RejectsSymbolsThatAreNotIdentifiers) {
  for (const char* bad : {"", "9lives", "csum-partial", "a b", "x;ret"}) {
    EXPECT_THROW(tuner::renderSource({gen::Params{}, tuner::SourceStyle::Gas, bad, {}, {}, {}}),
                 gen::ParamsError)
        << bad;
  }
}

}  // namespace
}  // namespace csumtune
