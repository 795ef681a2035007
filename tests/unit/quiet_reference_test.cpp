// The remembered quiet loads ÷ chain: named by CPU key under the cache folder, only ever
// lowered, and never a failure — a garbled, oversized or unwritable file is a run without a
// reference, and a failed write leaves the earlier file whole.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "measure/quiet_reference.hpp"

namespace csumtune::tuner {
namespace {

namespace fs = std::filesystem;

class QuietReference : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("csumtune-quiet-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    if (const char* home = std::getenv("HOME")) home_ = home;
    ::setenv("CSUMTUNE_CACHE_DIR", (dir_ / "cache").c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("CSUMTUNE_CACHE_DIR");
    ::unsetenv("XDG_CACHE_HOME");
    if (!home_.empty()) ::setenv("HOME", home_.c_str(), 1);
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
    fs::remove_all(dir_);
  }
  fs::path dir_;
  std::string home_;
};

TEST_F(QuietReference, IsNamedByTheCpuKeyInTheCacheFolder) {
  EXPECT_EQ(quietReferencePath("amd-19-01-1-ce148854"),
            (dir_ / "cache" / "quiet-probe-v1-amd-19-01-1-ce148854.txt").string());
  EXPECT_EQ(quietReferencePath(""), "");
  ::unsetenv("CSUMTUNE_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/somewhere", 1);
  EXPECT_EQ(quietReferencePath("k"), "/somewhere/csumtune/quiet-probe-v1-k.txt");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(quietReferencePath("k"), "/home/u/.cache/csumtune/quiet-probe-v1-k.txt");
}

TEST_F(QuietReference, KeepsTheQuickestRatioEverMeasured) {
  const std::string path = quietReferencePath("k");
  EXPECT_EQ(readQuietReference(path), 0);           // no file yet
  EXPECT_TRUE(rememberQuietReference(path, 0.30));  // creates the folder
  EXPECT_NEAR(readQuietReference(path), 0.30, 1e-6);
  EXPECT_TRUE(rememberQuietReference(path, 0.36));  // a busier run does not raise it
  EXPECT_NEAR(readQuietReference(path), 0.30, 1e-6);
  EXPECT_TRUE(rememberQuietReference(path, 0.28));
  EXPECT_NEAR(readQuietReference(path), 0.28, 1e-6);
  EXPECT_FALSE(rememberQuietReference(path, 0));  // a probe without loads: nothing to keep
  EXPECT_FALSE(rememberQuietReference(path, -1));
  EXPECT_FALSE(rememberQuietReference("", 0.2));
  EXPECT_NEAR(readQuietReference(path), 0.28, 1e-6);
}

TEST_F(QuietReference, AGarbledFileIsNoReferenceAndIsReplaced) {
  const std::string path = quietReferencePath("k");
  fs::create_directories(dir_ / "cache");
  const std::vector<std::string> garbled = {"",
                                            "loads_per_chain",
                                            "loads_per_chain nan",
                                            "loads_per_chain -0.3",
                                            "loads_per_chain 0 ",
                                            "loads_per_chain 0.3 trailing",
                                            "speed 0.3",
                                            "loads_per_chain inf",
                                            std::string(300, '7'),
                                            "loads_per_chain 0.3" + std::string(300, ' ')};
  for (const std::string& text : garbled) {
    std::ofstream(path, std::ios::trunc) << text;
    EXPECT_EQ(readQuietReference(path), 0) << text;
  }
  EXPECT_TRUE(rememberQuietReference(path, 0.4));
  EXPECT_NEAR(readQuietReference(path), 0.4, 1e-6);
  // A folder where the file should be.
  fs::remove(path);
  fs::create_directories(path);
  EXPECT_EQ(readQuietReference(path), 0);
  EXPECT_FALSE(rememberQuietReference(path, 0.4));
}

TEST_F(QuietReference, AnUnwritableFolderLeavesTheEarlierFileWhole) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes through permissions";
  const std::string path = quietReferencePath("k");
  ASSERT_TRUE(rememberQuietReference(path, 0.5));
  fs::permissions(dir_ / "cache", fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_FALSE(rememberQuietReference(path, 0.4));
  EXPECT_NEAR(readQuietReference(path), 0.5, 1e-6);
  fs::permissions(dir_ / "cache", fs::perms::owner_all);
}

TEST_F(QuietReference, AFileInThePlaceOfTheFolderIsNoFailure) {
  std::ofstream(dir_ / "cache") << "not a folder";
  const std::string path = quietReferencePath("k");
  EXPECT_EQ(readQuietReference(path), 0);
  EXPECT_FALSE(rememberQuietReference(path, 0.4));
}

}  // namespace
}  // namespace csumtune::tuner
