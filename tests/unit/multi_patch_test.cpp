// csumtune patch with several --results: every summing body in one csum-partial_64.S, every
// copying body in csum-copy_64.S (multi_copy_test.cpp), the selection in csum-select_64.c
// (static call, the copy's byte, the variants matched on vendor, family, model and the
// features each body needs, the csumtune= boot parameter), the one-line Makefile hunk, and the
// runs refused (vector winners, mixed generator versions, a key twice for one function,
// unreadable files).
// tests/e2e/kernel-tree.sh builds the patched tree and boots it under qemu CPU models.
#include <gtest/gtest.h>

#include "committed_runs.hpp"
#include "source_paths.hpp"

#include <filesystem>
#include <fstream>

#include "csumtune/gen/params.hpp"
#include "patch/boot_selection.hpp"
#include "patch/kernel_patch.hpp"
#include "patch/multi_patch.hpp"
#include "request_errors.hpp"

namespace csumtune::tuner {
namespace {

namespace fs = std::filesystem;

using csumtune::test_paths::committedResults;

using namespace csumtune::test_runs;

void expectRefused(const std::vector<std::string>& inputs, const std::string& words) {
  try {
    readKernelVariants(inputs);
    ADD_FAILURE() << "took runs it should refuse";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

class MultiTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("csumtune-multi-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root_ / "arch/x86/lib");
    write("Makefile",
          "# SPDX-License-Identifier: GPL-2.0\nVERSION = 6\nPATCHLEVEL = 1\n"
          "SUBLEVEL = 76\nEXTRAVERSION =\n");
    write(kCsumC,
          "// Copyright 2002 Andi Kleen, SuSE Labs.\n"
          "__wsum csum_partial(const void *buff, int len, __wsum sum)\n{\n}\n");
    write(kCopyS,
          "/*\n * Copyright 2002, 2003 Andi Kleen, SuSE Labs.\n */\n"
          "SYM_FUNC_START(csum_partial_copy_generic)\n\tRET\n"
          "SYM_FUNC_END(csum_partial_copy_generic)\n");
    write(kLibMakefile,
          "a\nb\nc\nifneq ($(CONFIG_GENERIC_CSUM),y)\n"
          "        lib-y += csum-partial_64.o csum-copy_64.o csum-wrappers_64.o\n"
          "endif\nd\ne\nf\ng\n");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& path, const std::string& text) {
    std::ofstream(root_ / path) << text;
  }
  fs::path root_;
};

TEST(MultiPatch, ReadsTheCommittedKernelSafeRuns) {
  const auto both = readKernelVariants({committedResults(kZen4), committedResults(kZen4Copy),
                                        committedResults(kZen5), committedResults(kZen3Copy)});
  const auto& variants = both.sums;
  ASSERT_EQ(variants.size(), 2u);
  ASSERT_EQ(both.copies.size(), 2u);
  EXPECT_EQ(both.copies[0].cpuKey, "amd-19-11-1-0a1bbd54");
  EXPECT_EQ(both.copies[1].cpuKey, "amd-19-01-1-ce148854");
  EXPECT_EQ(both.copies[1].source.params.kind, gen::Kind::Copy);
  EXPECT_EQ(variants[0].cpuKey, "amd-19-11-1-0a1bbd54");
  EXPECT_EQ(variants[1].cpuKey, "amd-1a-02-1-5d4b381f");
  EXPECT_EQ(variants[1].source.style, SourceStyle::Kernel);
  EXPECT_EQ(kernelBodySymbol(variants[1].cpuKey), "csumtune_csum_partial_amd_1a_02_1_5d4b381f");
}

TEST(MultiPatch, SelectionMatchesVendorFamilyModelAndNeedsAdx) {
  const auto variants = readKernelVariants({committedResults(kZen4), committedResults(kZen5)});
  const std::string c = renderSelectC(variants, defaultKernelFallback(), "csumtune patch ...");
  EXPECT_EQ(c.find("csumtune_copy_body"), std::string::npos) << "no copy: no byte";
  EXPECT_NE(c.find("DEFINE_STATIC_CALL(csumtune_csum_partial, csumtune_csum_partial_generic);"),
            std::string::npos);
  EXPECT_NE(c.find("\treturn static_call(csumtune_csum_partial)(buff, len, sum);"),
            std::string::npos);
  EXPECT_NE(c.find("EXPORT_SYMBOL(csum_partial);"), std::string::npos);
  EXPECT_NE(c.find("EXPORT_SYMBOL(ip_compute_csum);"), std::string::npos);
  // Zen 4's adc body needs nothing; Zen 5's adcx body needs ADX.
  EXPECT_NE(c.find("{ \"amd-19-11-1-0a1bbd54\", X86_VENDOR_AMD, 0x19, 0x11, 1, false, 0, "
                   "\"nothing\" },"),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("{ \"amd-1a-02-1-5d4b381f\", X86_VENDOR_AMD, 0x1a, 0x2, 1, true, "
                   "X86_FEATURE_ADX, \"ADX\" },"),
            std::string::npos)
      << c;
  // The functions in the table's order.
  EXPECT_NE(c.find("\tcsumtune_csum_partial_amd_19_11_1_0a1bbd54,\n"
                   "\tcsumtune_csum_partial_amd_1a_02_1_5d4b381f,\n};"),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("static_call_update(csumtune_csum_partial, csumtune_sum_fns[pick]);"),
            std::string::npos);
  EXPECT_NE(c.find("boot_cpu_has(b->feature)"), std::string::npos);
  EXPECT_NE(c.find("__setup(\"csumtune=\", csumtune_setup);"), std::string::npos);
  EXPECT_NE(c.find("early_initcall(csumtune_select);"), std::string::npos);
  EXPECT_EQ(occurrences(c, "pr_info("), 1u) << "one line in the log for each function";
  for (std::size_t a = 0, b; a < c.size(); a = b + 1) {
    b = std::min(c.find('\n', a), c.size());
    EXPECT_LE(b - a, 100u) << c.substr(a, b - a);
  }
}

TEST(MultiPatch, SelectionSetsTheCopysByte) {
  const auto variants =
      readKernelVariants({committedResults(kZen4), committedResults(kZen5),
                          committedResults(kZen4Copy), committedResults(kZen3Copy)});
  const std::string c = renderSelectC(variants, defaultKernelFallback(), "csumtune patch ...");
  EXPECT_NE(c.find("u8 csumtune_copy_body __ro_after_init;"), std::string::npos);
  EXPECT_NE(c.find("static const struct csumtune_body csumtune_copy_bodies[] __initconst = {\n"
                   "\t{ \"amd-19-11-1-0a1bbd54\", X86_VENDOR_AMD, 0x19, 0x11, 1, true, "
                   "X86_FEATURE_ADX, \"ADX\" },\n"
                   "\t{ \"amd-19-01-1-ce148854\", X86_VENDOR_AMD, 0x19, 0x1, 1, true, "
                   "X86_FEATURE_ADX, \"ADX\" },\n};"),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("\tpick = csumtune_pick(\"csum_partial_copy_generic\", csumtune_copy_bodies,\n"
                   "\t\t\t     ARRAY_SIZE(csumtune_copy_bodies));\n\tif (pick >= 0)\n"
                   "\t\tcsumtune_copy_body = pick + 1;\n"),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("DEFINE_STATIC_CALL(csumtune_csum_partial"), std::string::npos);
  // Copying runs alone: the byte and its table, no csum_partial.
  const KernelVariants copies{{}, variants.copies};
  const std::string only = renderSelectC(copies, defaultKernelFallback(), "csumtune patch ...");
  EXPECT_NE(only.find("u8 csumtune_copy_body __ro_after_init;"), std::string::npos);
  EXPECT_EQ(only.find("csum_partial("), std::string::npos);
  EXPECT_EQ(only.find("static_call.h"), std::string::npos);
  EXPECT_EQ(only.find("static_call("), std::string::npos);
  for (const std::string* text : {&c, &only}) {
    for (std::size_t a = 0, b; a < text->size(); a = b + 1) {
      b = std::min(text->find('\n', a), text->size());
      EXPECT_LE(b - a, 100u) << text->substr(a, b - a);
    }
  }
}

TEST(MultiPatch, AssemblyHoldsEveryBodyWithoutAlternatives) {
  const auto variants = readKernelVariants({committedResults(kZen4), committedResults(kZen5)}).sums;
  const std::string s = renderMultiAssembly(variants, defaultKernelFallback(), "csumtune patch");
  EXPECT_EQ(occurrences(s, "SPDX"), 1u);
  EXPECT_EQ(occurrences(s, "SYM_FUNC_START("), 3u);
  EXPECT_NE(s.find("SYM_FUNC_START(csumtune_csum_partial_generic)"), std::string::npos);
  EXPECT_NE(s.find("SYM_FUNC_END(csumtune_csum_partial_amd_1a_02_1_5d4b381f)"), std::string::npos);
  EXPECT_NE(s.find("adcx"), std::string::npos);
  // The selection checks ADX: no ALTERNATIVE, no second body, and nothing exported here.
  EXPECT_EQ(s.find("ALTERNATIVE"), std::string::npos);
  EXPECT_EQ(s.find("_noadx"), std::string::npos);
  EXPECT_EQ(s.find("EXPORT_SYMBOL"), std::string::npos);
  EXPECT_EQ(s.find("ip_compute_csum"), std::string::npos);
  EXPECT_EQ(s.find("\tret\n"), std::string::npos);
}

TEST(MultiPatch, MakefileGainsOneObject) {
  const std::string before = "x\n        lib-y += csum-partial_64.o csum-copy_64.o\ny\n";
  const std::string after = patchedLibMakefile(before);
  EXPECT_EQ(after, "x\n        lib-y += csum-partial_64.o csum-select_64.o csum-copy_64.o\ny\n");
  EXPECT_THROW(patchedLibMakefile(after), TreeError);
  EXPECT_THROW(patchedLibMakefile("x\n"), TreeError);
  EXPECT_EQ(contextDiff("M", before, after),
            "diff --git a/M b/M\n--- a/M\n+++ b/M\n@@ -1,3 +1,3 @@\n x\n"
            "-        lib-y += csum-partial_64.o csum-copy_64.o\n"
            "+        lib-y += csum-partial_64.o csum-select_64.o csum-copy_64.o\n y\n");
}

TEST_F(MultiTree, PatchAddsTheBodiesAndTheSelection) {
  MultiPatchRequest request;
  request.tree = root_.string();
  request.results = {committedResults(kZen4), committedResults(kZen5)};
  bool accepted = false;
  request.accepted = [&] { accepted = true; };
  const PatchResult patch = makeMultiPatch(request);
  EXPECT_TRUE(accepted);
  const std::string& t = patch.text;
  EXPECT_NE(t.find("x86/csum: Pick csum_partial() at boot from 2 CPU-tuned bodies"),
            std::string::npos);
  EXPECT_NE(t.find("deleted file mode 100644"), std::string::npos);
  EXPECT_NE(t.find("+++ b/arch/x86/lib/csum-partial_64.S"), std::string::npos);
  EXPECT_NE(t.find("+++ b/arch/x86/lib/csum-select_64.c"), std::string::npos);
  EXPECT_NE(t.find("@@ -2,7 +2,7 @@\n b\n c\n ifneq ($(CONFIG_GENERIC_CSUM),y)\n"
                   "-        lib-y += csum-partial_64.o csum-copy_64.o csum-wrappers_64.o\n"
                   "+        lib-y += csum-partial_64.o csum-select_64.o csum-copy_64.o "
                   "csum-wrappers_64.o\n endif\n d\n e\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("Why static_call and not ALTERNATIVE"), std::string::npos);
  EXPECT_NE(t.find("Copyright 2002 Andi Kleen"), std::string::npos);
  EXPECT_NE(t.find("Regenerate: csumtune patch --tree . --results"), std::string::npos);
  // The message's lines fit the kernel's 75 columns.
  const std::string message = t.substr(0, t.find("\n---\n"));
  for (std::size_t a = 0, b; a < message.size(); a = b + 1) {
    b = std::min(message.find('\n', a), message.size());
    EXPECT_LE(b - a, 75u) << message.substr(a, b - a);
  }
  EXPECT_EQ(t.find("csum-copy_64.S"), std::string::npos) << "no copying run: the copy stays";
  // The generic body given explicitly is named in the Regenerate line.
  request.fallback = gen::parseParams("carry=adc,chains=2,unroll=8");
  EXPECT_NE(makeMultiPatch(request).text.find("--fallback carry=adc,chains=2"), std::string::npos);
}

TEST_F(MultiTree, CopyingRunsRewriteTheCopyBesideTheSum) {
  MultiPatchRequest request;
  request.tree = root_.string();
  request.results = {committedResults(kZen4), committedResults(kZen5), committedResults(kZen4Copy),
                     committedResults(kZen3Copy)};
  const std::string t = makeMultiPatch(request).text;
  EXPECT_NE(t.find("x86/csum: Pick csum_partial() and its copy at boot from CPU-tuned bodies"),
            std::string::npos);
  EXPECT_NE(t.find("+++ b/arch/x86/lib/csum-partial_64.S"), std::string::npos);
  EXPECT_NE(t.find("+++ b/arch/x86/lib/csum-copy_64.S"), std::string::npos);
  EXPECT_NE(t.find("-SYM_FUNC_START(csum_partial_copy_generic)\n-\tRET\n"), std::string::npos);
  EXPECT_NE(t.find("Why not a static call for the copy"), std::string::npos);
  EXPECT_NE(t.find("arch/x86/lib/csum-copy_64.S carries \"Copyright 2002, 2003 Andi Kleen"),
            std::string::npos);
  EXPECT_NE(t.find("results/amd-19-01-1-ce148854/copy-kernel/results.json"), std::string::npos);
  const std::string message = t.substr(0, t.find("\n---\n"));
  for (std::size_t a = 0, b; a < message.size(); a = b + 1) {
    b = std::min(message.find('\n', a), message.size());
    EXPECT_LE(b - a, 75u) << message.substr(a, b - a);
  }
  // Copying runs alone: the copy and the selection, csum-partial_64.c kept.
  request.results = {committedResults(kZen4Copy), committedResults(kZen3Copy)};
  const std::string copies = makeMultiPatch(request).text;
  EXPECT_NE(copies.find("x86/csum: Pick the checksum copy at boot from 2 CPU-tuned bodies"),
            std::string::npos);
  EXPECT_NE(copies.find("+++ b/arch/x86/lib/csum-copy_64.S"), std::string::npos);
  EXPECT_NE(copies.find("+++ b/arch/x86/lib/csum-select_64.c"), std::string::npos);
  EXPECT_EQ(copies.find("csum-partial_64.c"), std::string::npos);
  EXPECT_EQ(copies.find("csum-partial_64.S"), std::string::npos);
}

TEST_F(MultiTree, RefusesATreeWithoutTheMakefileLine) {
  write(kLibMakefile, "lib-y += something.o\n");
  MultiPatchRequest request;
  request.tree = root_.string();
  request.results = {committedResults(kZen4), committedResults(kZen5)};
  EXPECT_THROW(makeMultiPatch(request), TreeError);
}

TEST(MultiPatch, FallbackMustRunInEveryKernel) {
  EXPECT_NO_THROW(checkKernelFallback(defaultKernelFallback()));
  EXPECT_THROW(checkKernelFallback(gen::parseParams("carry=adcx")), BadRequest);
  EXPECT_THROW(checkKernelFallback(gen::parseParams("carry=avx2")), BadRequest);
  EXPECT_THROW(checkKernelFallback(gen::parseParams("carry=adc,kind=copy")), BadRequest);
}

TEST(MultiPatch, RefusesRunsThatCannotShareAFile) {
  expectRefused({committedResults(kZen4), committedResults("amd-19-11-1-0a1bbd54/imix")},
                "vector registers");
  expectRefused({committedResults(kZen4Copy), committedResults("amd-19-11-1-0a1bbd54/copy-imix")},
                "vector registers");
  // One body per CPU for each function: a key twice among the copies too.
  expectRefused({committedResults(kZen4), committedResults(kZen4Copy), committedResults(kZen4Copy)},
                "appears twice");
  expectRefused({committedResults(kZen4), committedResults("amd-19-11-1-0a1bbd54/kernel-max296")},
                "appears twice");
  expectRefused({committedResults(kZen4), committedResults("no-such-key/kernel/results.json")},
                "no-such-key");
  // A run of another generator version.
  const fs::path other = fs::temp_directory_path() /
                         ("csumtune-multi-version-" + std::to_string(::getpid()) + ".json");
  {
    std::ifstream in(committedResults(kZen5) + "/results.json");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string field = "\"generator_version\": \"";
    const std::size_t at = text.find(field);
    ASSERT_NE(at, std::string::npos);
    text.replace(at + field.size(), text.find('"', at + field.size()) - at - field.size(), "0.0.9");
    std::ofstream(other) << text;
  }
  expectRefused({committedResults(kZen4), other.string()}, "generator 0.0.9");
  fs::remove(other);
}

}  // namespace
}  // namespace csumtune::tuner
