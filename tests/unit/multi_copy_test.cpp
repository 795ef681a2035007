// csum-copy_64.S with several bodies (patch with several copying runs), built for user space
// as `--baseline-source` builds the tree's file (the stand-in headers; verified over the full
// plan in a child process): with the selection's byte at each value the entry runs that body,
// so each body passes, and the file with that one body broken fails. The exception table is
// proven in a real kernel (tests/e2e/kernel-tree.sh).
#include <gtest/gtest.h>

#include "committed_runs.hpp"
#include "source_paths.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "csumtune/cpu.hpp"
#include "measure/kernel_source.hpp"
#include "patch/multi_copy.hpp"
#include "patch/multi_patch.hpp"

namespace csumtune::tuner {
namespace {

namespace fs = std::filesystem;

using csumtune::test_paths::committedResults;

using namespace csumtune::test_runs;

// The file as the user-space build takes it: the byte the selection would set, defined here
// (local, so the position-independent build can reach it).
fs::path writeWithByte(const fs::path& dir, const std::string& text, int body) {
  fs::create_directories(dir);
  const fs::path path = dir / "csum-copy_64.S";
  std::ofstream(path) << text
                      << fmt::format("\t.section .rodata\n{}:\t.byte {}\n", kCopyByte, body);
  return path;
}

TEST(MultiCopy, OneFunctionWhoseEntryJumpsOnTheByte) {
  const auto variants =
      readKernelVariants({committedResults(kZen4Copy), committedResults(kZen3Copy)}).copies;
  ASSERT_EQ(variants.size(), 2u);
  const std::string s = renderMultiCopyAssembly(variants, copyFallbackOf(defaultKernelFallback()),
                                                "csumtune patch ...");
  EXPECT_EQ(occurrences(s, "SYM_FUNC_START("), 1u);
  EXPECT_EQ(occurrences(s, "SYM_FUNC_END(csum_partial_copy_generic)"), 1u);
  EXPECT_NE(s.find("SYM_FUNC_START(csum_partial_copy_generic)\n"
                   "\tmovzbl\tcsumtune_copy_body(%rip), %eax\n"
                   "\tcmpl\t$1, %eax\n\tje\t.Lcopy_amd_19_11_1_0a1bbd54\n"
                   "\tcmpl\t$2, %eax\n\tje\t.Lcopy_amd_19_01_1_ce148854\n"),
            std::string::npos)
      << s.substr(0, 4000);
  EXPECT_EQ(occurrences(s, "\n.Lcopy_amd_19_11_1_0a1bbd54:\n"), 1u);
  EXPECT_EQ(occurrences(s, "\n.Lcopy_amd_19_01_1_ce148854:\n"), 1u);
  // Three bodies, each starting from ~0, each with its exception table; no ALTERNATIVE (the
  // selection checks ADX), no jump to another function, nothing exported.
  EXPECT_EQ(occurrences(s, "\tmov\t$-1, %edx\n"), 3u);
  EXPECT_GT(occurrences(s, "_ASM_EXTABLE_UA("), 30u);
  EXPECT_EQ(s.find("ALTERNATIVE"), std::string::npos);
  EXPECT_EQ(s.find("EXPORT_SYMBOL"), std::string::npos);
  EXPECT_EQ(s.find("\tcall"), std::string::npos);
  EXPECT_EQ(s.find("\tret\n"), std::string::npos);
  for (std::size_t a = 0, b; a < s.size(); a = b + 1) {
    b = std::min(s.find('\n', a), s.size());
    EXPECT_LE(b - a, 100u) << s.substr(a, b - a);
  }
}

TEST(MultiCopy, TheByteRunsItsBodyAndEachBodyIsRight) {
  const auto variants =
      readKernelVariants({committedResults(kZen4Copy), committedResults(kZen3Copy)}).copies;
  const gen::Params generic = copyFallbackOf(defaultKernelFallback());
  const std::string text = renderMultiCopyAssembly(variants, generic, "csumtune patch ...");
  const fs::path root =
      fs::temp_directory_path() / ("csumtune-multi-copy-" + std::to_string(::getpid()));
  int ran = 0;
  for (std::size_t body = 0; body <= variants.size(); ++body) {
    const gen::Params& params = body == 0 ? generic : variants[body - 1].source.params;
    if (!missingFeatures(params).empty()) continue;  // this CPU cannot run that body
    SCOPED_TRACE(fmt::format("byte {}: {}", body, params.toString()));
    // Right: the file verifies over the full plan with the byte naming this body.
    const fs::path good = writeWithByte(root / fmt::format("good{}", body), text, body);
    EXPECT_NO_THROW(SourceBaseline(good.string(), SourceKind::Copy));
    // Routed: the same file with only this body's starting sum changed sums wrongly.
    const std::string start = body == 0 ? "SYM_FUNC_START(csum_partial_copy_generic)"
                                        : ".L" + copyBodyLabel(variants[body - 1].cpuKey) + ":";
    std::string broken = text;
    const std::size_t at = broken.find("\tmov\t$-1, %edx\n", broken.find(start));
    ASSERT_NE(at, std::string::npos);
    broken.replace(at, 15, "\tmov\t$-2, %edx\n");
    const fs::path bad = writeWithByte(root / fmt::format("bad{}", body), broken, body);
    EXPECT_THROW(SourceBaseline(bad.string(), SourceKind::Copy), SourceBaselineWrong);
    // And a body the byte does not name is never run: the same broken file passes with
    // another byte.
    if (body == 0 && variants.size() > 0 && missingFeatures(variants[0].source.params).empty()) {
      const fs::path other = writeWithByte(root / "bad0-byte1", broken, 1);
      EXPECT_NO_THROW(SourceBaseline(other.string(), SourceKind::Copy));
    }
    ++ran;
  }
  fs::remove_all(root);
  EXPECT_GE(ran, 1) << "the generic body needs nothing: it always runs";
}

}  // namespace
}  // namespace csumtune::tuner
