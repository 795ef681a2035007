// csumtune patch's parts: reading a kernel tree (and refusing what it cannot patch), the
// unified diff of a whole-file change, and the patch in plain and format-patch shape.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "patch/kernel_patch.hpp"

namespace csumtune::tuner {
namespace {

namespace fs = std::filesystem;

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
