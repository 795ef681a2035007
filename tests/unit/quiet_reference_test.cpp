// The remembered quiet loads ÷ chain: named by CPU key under the cache folder, only ever
// lowered, and never a failure — a garbled, oversized or implausible file is a run without a
// reference, a folder that cannot be made is no error, and nothing is written through a
// symlink.
#include <gtest/gtest.h>

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
    if (home_.empty()) {
      ::unsetenv("HOME");
    } else {
      ::setenv("HOME", home_.c_str(), 1);
    }
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
    fs::remove_all(dir_);
  }
  fs::path dir_;
  std::string home_;
};

// The name ends in the CPU key, then (hybrid CPUs only) the core type.
bool namedFor(const std::string& path, const std::string& start) {
  return path.rfind(start, 0) == 0 && path.size() >= start.size() + 4 &&
         path.compare(path.size() - 4, 4, ".txt") == 0 &&
         (path.size() == start.size() + 4 || path.compare(start.size(), 5, "-core") == 0);
}

TEST_F(QuietReference, IsNamedByTheCpuKeyInTheCacheFolder) {
  EXPECT_TRUE(namedFor(quietReferencePath("amd-19-01-1-ce148854"),
                       (dir_ / "cache" / "quiet-probe-v1-amd-19-01-1-ce148854").string()))
      << quietReferencePath("amd-19-01-1-ce148854");
  EXPECT_EQ(quietReferencePath(""), "");
  ::unsetenv("CSUMTUNE_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/somewhere", 1);
  EXPECT_TRUE(namedFor(quietReferencePath("k"), "/somewhere/csumtune/quiet-probe-v1-k"));
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/u", 1);
  EXPECT_TRUE(namedFor(quietReferencePath("k"), "/home/u/.cache/csumtune/quiet-probe-v1-k"));
  ::unsetenv("HOME");
  EXPECT_EQ(quietReferencePath("k"), "");  // nowhere to keep it
}

TEST_F(QuietReference, KeepsTheQuickestRatioEverMeasured) {
  const std::string path = quietReferencePath("k");
  EXPECT_EQ(readQuietReference(path), 0);           // no file yet
  EXPECT_TRUE(rememberQuietReference(path, 0.90));  // creates the folder
  EXPECT_NEAR(readQuietReference(path), 0.90, 1e-6);
  EXPECT_TRUE(rememberQuietReference(path, 0.96));  // a busier run does not raise it
  EXPECT_NEAR(readQuietReference(path), 0.90, 1e-6);
  EXPECT_TRUE(rememberQuietReference(path, 0.88));
  EXPECT_NEAR(readQuietReference(path), 0.88, 1e-6);
  EXPECT_FALSE(rememberQuietReference(path, 0));    // a probe without loads: nothing to keep
  EXPECT_FALSE(rememberQuietReference(path, 0.3));  // quicker than four load ports: a fault
  EXPECT_FALSE(rememberQuietReference(path, -1));
  EXPECT_FALSE(rememberQuietReference("", 0.92));
  EXPECT_NEAR(readQuietReference(path), 0.88, 1e-6);
}

TEST_F(QuietReference, AGarbledFileIsNoReferenceAndIsReplaced) {
  const std::string path = quietReferencePath("k");
  fs::create_directories(dir_ / "cache");
  const std::vector<std::string> garbled = {"",
                                            "loads_per_chain",
                                            "loads_per_chain nan",
                                            "loads_per_chain -0.3",
                                            "loads_per_chain 0 ",
                                            "loads_per_chain 1e-320",
                                            "loads_per_chain 0.2",
                                            "loads_per_chain 0.9 trailing",
                                            "speed 0.9",
                                            "loads_per_chain inf",
                                            std::string(300, '7'),
                                            "loads_per_chain 0.9" + std::string(300, ' ')};
  for (const std::string& text : garbled) {
    std::ofstream(path, std::ios::trunc) << text;
    EXPECT_EQ(readQuietReference(path), 0) << text;
  }
  EXPECT_TRUE(rememberQuietReference(path, 0.94));
  EXPECT_NEAR(readQuietReference(path), 0.94, 1e-6);
  // A folder where the file should be.
  fs::remove(path);
  fs::create_directories(path);
  EXPECT_EQ(readQuietReference(path), 0);
  EXPECT_FALSE(rememberQuietReference(path, 0.94));
}

TEST_F(QuietReference, NeverWritesThroughASymlink) {
  const std::string path = quietReferencePath("k");
  fs::create_directories(dir_ / "cache");
  std::ofstream(dir_ / "victim") << "someone's file";
  fs::create_symlink(dir_ / "victim", path);
  EXPECT_FALSE(rememberQuietReference(path, 0.9));
  std::ifstream in(dir_ / "victim");
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "someone's file");
  EXPECT_TRUE(fs::is_symlink(path));
}

TEST_F(QuietReference, AFolderThatCannotBeMadeIsNoFailure) {
  // Nothing can be created under /proc/self, not even by root (a permission bit would not
  // stop root).
  ::setenv("CSUMTUNE_CACHE_DIR", "/proc/self/csumtune-cache", 1);
  const std::string path = quietReferencePath("k");
  EXPECT_EQ(readQuietReference(path), 0);
  EXPECT_FALSE(rememberQuietReference(path, 0.94));
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(QuietReference, AFileInThePlaceOfTheFolderIsNoFailure) {
  std::ofstream(dir_ / "cache") << "not a folder";
  const std::string path = quietReferencePath("k");
  EXPECT_EQ(readQuietReference(path), 0);
  EXPECT_FALSE(rememberQuietReference(path, 0.94));
}

}  // namespace
}  // namespace csumtune::tuner
