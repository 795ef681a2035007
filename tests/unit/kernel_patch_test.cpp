// csumtune patch's parts: reading a kernel tree (and refusing what it cannot patch), the
// unified diff of a whole-file change, the patch in plain and format-patch shape, and the
// whole patch of either kind made by a library call (makePatch).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "csumtune/gen/params.hpp"
#include "one_line.hpp"
#include "patch/git_identity.hpp"
#include "patch/kernel_patch.hpp"
#include "patch/make_patch.hpp"
#include "source_file.hpp"

namespace csumtune::tuner {
namespace {

namespace fs = std::filesystem;

// The message as a shell reads its Regenerate command: " \" + newline + indent is a space,
// "\" + newline (a break inside a word) nothing.
std::string shellJoined(std::string text) {
  for (std::size_t at; (at = text.find(" \\\n  ")) != std::string::npos;) text.replace(at, 5, " ");
  for (std::size_t at; (at = text.find("\\\n")) != std::string::npos;) text.replace(at, 2, "");
  return text;
}

// Text wrapped at spaces (the message at 75 columns, the .S header's fields at 100, their
// continuation lines " *" and 15 spaces) on one line again.
std::string flattened(std::string text) {
  const std::string continuation = "\n *               ";
  for (std::size_t at; (at = text.find(continuation)) != std::string::npos;)
    text.replace(at, continuation.size(), " ");
  for (char& c : text)
    if (c == '\n') c = ' ';
  return text;
}

class KernelTreeFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("csumtune-tree-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(root_ / "arch/x86/lib");
    write("Makefile",
          "# SPDX-License-Identifier: GPL-2.0\nVERSION = 6\nPATCHLEVEL = 1\n"
          "SUBLEVEL = 76\nEXTRAVERSION =\n");
    write(kCsumC, "__wsum csum_partial(const void *buff, int len, __wsum sum)\n{\n}\n");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& path, const std::string& text) {
    std::ofstream(root_ / path) << text;
  }
  void expectRefused(const std::string& words) {
    try {
      readKernelTree(root_.string());
      ADD_FAILURE() << "read a tree it should refuse";
    } catch (const TreeError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  }
  fs::path root_;
};

TEST_F(KernelTreeFixture, ReadsTheVersionAndTheFile) {
  const KernelTree tree = readKernelTree(root_.string());
  EXPECT_EQ(tree.version, (std::pair{6, 1}));
  EXPECT_EQ(tree.versionText(), "v6.1.76");
  EXPECT_FALSE(tree.git);
  EXPECT_NE(tree.cFile.find("csum_partial"), std::string::npos);
  fs::create_directories(root_ / ".git");
  EXPECT_TRUE(readKernelTree(root_.string()).git);
}

TEST_F(KernelTreeFixture, RefusesWhatItCannotPatch) {
  write(kCsumS, "/* replaced */\n");
  expectRefused("already has arch/x86/lib/csum-partial_64.S");
  fs::remove(root_ / kCsumS);
  fs::create_symlink(root_ / "nowhere.S", root_ / kCsumS);  // dangling: still in the way
  expectRefused("already has arch/x86/lib/csum-partial_64.S");
  fs::remove(root_ / kCsumS);
  fs::remove(root_ / kCsumC);
  expectRefused("has no arch/x86/lib/csum-partial_64.c");
  write(kCsumC, "int unrelated;\n");
  expectRefused("does not define csum_partial");
  write("Makefile", "VERSION = 5\nPATCHLEVEL = 4\n");
  expectRefused("csumtune patches v5.10 and later");
  write("Makefile", "all:\n\techo hello\n");
  expectRefused("no VERSION and PATCHLEVEL");
  fs::remove_all(root_ / "arch/x86");
  expectRefused("not an x86 kernel tree");
  fs::remove(root_ / "Makefile");
  expectRefused("not a kernel tree");
  EXPECT_THROW(readKernelTree((root_ / "missing").string()), TreeError);
}

// makePatch on the fake tree, no process and no figures: both kinds, each replacing its own
// file. The fake files cannot be built for user space, so the size "before" is unknown and a
// note says why.
TEST_F(KernelTreeFixture, PatchMadeByALibraryCallForBothKinds) {
  PatchRequest request;
  request.tree = root_.string();
  request.params = gen::parseParams("carry=adc,chains=4,unroll=16");
  request.figures = false;
  int accepted = 0;
  request.accepted = [&] { ++accepted; };
  const PatchResult sum = makePatch(request);
  EXPECT_EQ(accepted, 1);
  const std::string& text = sum.text;
  EXPECT_EQ(text.rfind("x86/csum: Replace csum_partial() with a generated adc loop\n\n", 0), 0u)
      << text;
  EXPECT_NE(text.find("Its parameters were given explicitly (csumtune patch --params)."),
            std::string::npos);
  EXPECT_NE(text.find("exports through <asm/export.h> as v6.1.76 wants."), std::string::npos);
  EXPECT_NE(text.find("It needs nothing of the CPU beyond x86-64."), std::string::npos);
  EXPECT_NE(text.find("Code size of csum_partial(): unknown before"), std::string::npos) << text;
  EXPECT_NE(shellJoined(text).find(
                "Regenerate: csumtune patch --tree . --params carry=adc,chains=4,unroll=16"),
            std::string::npos);
  EXPECT_NE(text.find("deleted file mode 100644\n--- a/arch/x86/lib/csum-partial_64.c"),
            std::string::npos);
  EXPECT_NE(text.find("+++ b/arch/x86/lib/csum-partial_64.S\n"), std::string::npos);
  EXPECT_NE(text.find("+SYM_FUNC_START(csum_partial)"), std::string::npos);
  EXPECT_EQ(text.find("Measured in user space"), std::string::npos);
  EXPECT_EQ(text.find("From:"), std::string::npos);  // not a git checkout: plain
  ASSERT_EQ(sum.notes.size(), 1u);
  EXPECT_EQ(sum.notes[0].rfind("no figures or size for " + root_.string() + "/" + kCsumC, 0), 0u)
      << sum.notes[0];

  // The copy, from a tuning run: csum-copy_64.S rewritten in place, the run's CPU in the
  // subject, its results path without the machine's folders.
  write(kCopyS, "SYM_FUNC_START(csum_partial_copy_generic)\n\tRET\n");
  request.params = gen::parseParams("carry=adcx,chains=4,unroll=16,kind=copy");
  request.tunedOn = TunedOn{"/home/someone/csumtune/results/key/copy-kernel/results.json",
                            "Some  CPU 9000   ",
                            "key",
                            "kernel",
                            "1500:1",
                            "hot",
                            std::nullopt};
  const PatchResult copy = makePatch(request);
  const std::string& ct = copy.text;
  // (The subject names the run's CPU, cut at a word to fit 72 columns.)
  EXPECT_EQ(
      ct.rfind("x86/csum: Replace csum_partial_copy_generic() with a loop tuned for Some\n\n", 0),
      0u)
      << ct;
  // The brand's padding squeezed in the body too.
  EXPECT_NE(ct.find("It is the winner of a csumtune tuning run on Some CPU 9000 (key key)"),
            std::string::npos)
      << ct;
  EXPECT_EQ(ct.find("  ("), std::string::npos) << ct;
  EXPECT_NE(ct.find("which need ADX."), std::string::npos);
  EXPECT_NE(ct.find("Code size of csum_partial_copy_generic(): unknown before"), std::string::npos);
  EXPECT_NE(shellJoined(ct).find("Regenerate: csumtune patch --tree . --results "
                                 "results/key/copy-kernel/results.json\n"),
            std::string::npos);
  EXPECT_NE(ct.find("--- a/arch/x86/lib/csum-copy_64.S\n+++ b/arch/x86/lib/csum-copy_64.S\n"),
            std::string::npos);
  EXPECT_EQ(ct.find("csum-partial_64"), std::string::npos);
  EXPECT_NE(ct.find("+SYM_FUNC_START(csum_partial_copy_generic)"), std::string::npos);
  ASSERT_EQ(copy.notes.size(), 1u);
  EXPECT_EQ(copy.notes[0].rfind("no figures or size for " + root_.string() + "/" + kCopyS, 0), 0u)
      << copy.notes[0];

  // Vector families are refused before the tree is read; a tree it cannot patch is a
  // TreeError; neither reaches `accepted`.
  request.params = gen::parseParams("carry=avx2,chains=2,unroll=8");
  EXPECT_THROW(makePatch(request), RefusedParams);
  request.params = gen::parseParams("carry=adc");
  write(kCsumS, "/* replaced */\n");
  EXPECT_THROW(makePatch(request), TreeError);
  EXPECT_EQ(accepted, 2);
}

// A results file's text cannot add a mail header, a line, a bidi override or code: one line,
// '?' for each control, "*/" broken up.
TEST_F(KernelTreeFixture, PatchTextFromResultsIsOneSafeLine) {
  PatchRequest request;
  request.tree = root_.string();
  request.params = gen::parseParams("carry=adc,chains=4,unroll=16");
  request.figures = false;
  request.tunedOn = TunedOn{"results.json",
                            "AMD\x1b[2J\nSubject: evil\u202e */ .globl pwned; pwned: ud2; /* EPYC",
                            "key\r\nX-Evil: 1",
                            "kernel\x7f",
                            "1500:1",
                            "hot\u2066",
                            std::string("busy\nSubject: twice")};
  const std::string text = makePatch(request).text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\x7f'), std::string::npos);
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_EQ(text.find("\u202e"), std::string::npos);
  EXPECT_EQ(text.find("\u2066"), std::string::npos);
  EXPECT_EQ(text.find("\nSubject: "), std::string::npos) << text;
  EXPECT_EQ(text.find("\nX-Evil"), std::string::npos) << text;
  EXPECT_EQ(text.find("*/ .globl"), std::string::npos) << text;
  EXPECT_EQ(text.find("\n+pwned:"), std::string::npos) << text;
  EXPECT_NE(flattened(text).find("AMD?[2J?Subject: evil? * / .globl pwned;"), std::string::npos)
      << text;
}

TEST(Patch, OneLineText) {
  EXPECT_EQ(oneLine("AMD EPYC  7B13  64-Core Processor   "), "AMD EPYC 7B13 64-Core Processor");
  EXPECT_EQ(oneLine("a\nb\tc\x1b\x7f"), "a?b?c??");
  EXPECT_EQ(oneLine("x */ y /* z"), "x * / y / * z");
  EXPECT_EQ(oneLine("a*/b"), "a* /b");
  EXPECT_EQ(oneLine("J\u00fcrgen \u200b\u202a\u202e\u2069\u061c\ufeff\u00c2\u0085"),
            "J\u00fcrgen ??????\u00c2?");
  EXPECT_EQ(oneLine("bad \xff\xc3 \xe2\x80"), "bad ?? ??");
  EXPECT_FALSE(hasUnsafeChars("J\u00fcrgen M\u00fcller"));
  EXPECT_TRUE(hasUnsafeChars("a\u202eb"));
  EXPECT_TRUE(hasUnsafeChars("a\xc3"));
}

// tune's winner.S prints the CPUID brand (a hypervisor sets it) in its header: one line there,
// nothing that closes the comment.
TEST(Patch, SourceHeaderTextIsOneSafeLine) {
  SourceRequest request;
  request.params = gen::parseParams("carry=adc");
  request.style = SourceStyle::Gas;
  request.tunedOn = "AMD */ .globl pwned; pwned: ud2; /* EPYC\nX  Y\x1b";
  request.figures = "fast\r\n*/ nop";
  const std::string text = renderSource(request);
  EXPECT_NE(text.find(" * tuned on:     AMD * / .globl pwned; pwned: ud2; / * EPYC?X Y?\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(" * figures:      fast??* / nop\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("*/ .globl"), std::string::npos);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
}

TEST(Patch, FromHeaderNameAsGitWritesIt) {
  EXPECT_EQ(fromHeaderName("A Developer"), "A Developer");
  EXPECT_EQ(fromHeaderName("Doe, Jane"), "\"Doe, Jane\"");
  EXPECT_EQ(fromHeaderName("J. \"Q\" Back\\slash"), "\"J. \\\"Q\\\" Back\\\\slash\"");
  EXPECT_EQ(fromHeaderName("J\u00fcrgen M\u00fcller"), "=?UTF-8?B?SsO8cmdlbiBNw7xsbGVy?=");
  EXPECT_EQ(identityProblem("Evil\u202eName", "dev@example.org"),
            "it holds a Unicode bidi or format control, or bytes that are not UTF-8");
  EXPECT_EQ(identityProblem("Bad \xff", "dev@example.org"),
            "it holds a Unicode bidi or format control, or bytes that are not UTF-8");
  EXPECT_EQ(identityProblem(std::string(201, 'a'), "dev@example.org"), "it is over 200 characters");
  EXPECT_EQ(identityProblem("J\u00fcrgen M\u00fcller", "dev@example.org"), "");
}

TEST(Patch, AWholeFileDiffCreatesOrDeletes) {
  EXPECT_EQ(fileDiff("a.S", "", "x\ny\n"),
            "diff --git a/a.S b/a.S\nnew file mode 100644\n--- /dev/null\n+++ b/a.S\n"
            "@@ -0,0 +1,2 @@\n+x\n+y\n");
  EXPECT_EQ(fileDiff("a.c", "x\ny", ""),
            "diff --git a/a.c b/a.c\ndeleted file mode 100644\n--- a/a.c\n+++ /dev/null\n"
            "@@ -1,2 +0,0 @@\n-x\n-y\n\\ No newline at end of file\n");
}

TEST(Patch, PlainAndFormatPatchShapes) {
  PatchText patch;
  patch.subject = "x86/csum: Replace csum_partial()";
  patch.body = "Why.\n";
  patch.files = {{kCsumC, {"a\nb\nc\n", ""}}, {kCsumS, {"", "s\n"}}};
  patch.generator = "csumtune 0.1.0";
  const std::string plain = renderPatch(patch);
  EXPECT_EQ(plain.rfind("x86/csum: Replace csum_partial()\n\nWhy.\n---\n", 0), 0u) << plain;
  EXPECT_NE(plain.find(" 2 files changed, 1 insertions(+), 3 deletions(-)\n"), std::string::npos)
      << plain;
  EXPECT_NE(plain.find(" create mode 100644 arch/x86/lib/csum-partial_64.S\n"), std::string::npos);
  EXPECT_NE(plain.find(" delete mode 100644 arch/x86/lib/csum-partial_64.c\n"), std::string::npos);
  EXPECT_EQ(plain.find("Signed-off-by"), std::string::npos);
  EXPECT_EQ(plain.find("From:"), std::string::npos);

  patch.author = "A Developer <a@example.org>";
  patch.date = "Mon, 30 Nov 2026 12:00:00 +0000";
  const std::string mail = renderPatch(patch);
  EXPECT_EQ(mail.rfind("From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
                       "From: A Developer <a@example.org>\n"
                       "Date: Mon, 30 Nov 2026 12:00:00 +0000\n"
                       "Subject: [PATCH] x86/csum: Replace csum_partial()\n\nWhy.\n---\n",
                       0),
            0u)
      << mail;
  EXPECT_NE(mail.find("\n-- \ncsumtune 0.1.0\n"), std::string::npos);
  EXPECT_EQ(mail.find("Signed-off-by"), std::string::npos);
}

}  // namespace
}  // namespace csumtune::tuner
