// Output files: one run's files are written together or not at all, never mixed with another
// run's; a second writer of one folder is refused by its lock.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "atomic_file.hpp"

namespace csumtune::tuner {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class OutputFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("csumtune-files-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "run");
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(OutputFiles, ARunReplacesTheFilesOfTheLastRunItOwnsAndNothingElse) {
  const std::string run = (dir_ / "run").string();
  std::ofstream(dir_ / "run" / "notes.txt") << "the user's";
  writeFilesTogether(run, {{"results.json", "A"}, {"sweep.svg", "A-plot"}},
                     {"results.json", "sweep.svg"});
  EXPECT_EQ(read(dir_ / "run" / "sweep.svg"), "A-plot");
  writeFilesTogether(run, {{"results.json", "B"}}, {"results.json", "sweep.svg"});
  EXPECT_EQ(read(dir_ / "run" / "results.json"), "B");
  EXPECT_FALSE(fs::exists(dir_ / "run" / "sweep.svg")) << "a plot of the last run was left";
  EXPECT_EQ(read(dir_ / "run" / "notes.txt"), "the user's");
}

TEST_F(OutputFiles, AFailedWriteLeavesTheLastRunAndNoTemporaries) {
  const std::string run = (dir_ / "run").string();
  writeFilesTogether(run, {{"results.json", "A"}, {"report.md", "A"}}, {});
  // The second file cannot be written (its folder does not exist): nothing is replaced.
  EXPECT_THROW(writeFilesTogether(run, {{"results.json", "B"}, {"missing/report.md", "B"}}, {}),
               FileError);
  EXPECT_EQ(read(dir_ / "run" / "results.json"), "A");
  EXPECT_EQ(read(dir_ / "run" / "report.md"), "A");
  for (const auto& entry : fs::directory_iterator(dir_ / "run"))
    EXPECT_NE(entry.path().filename().string().front(), '.') << entry.path();
}

TEST_F(OutputFiles, TheFolderLockRefusesASecondWriter) {
  const std::string run = (dir_ / "run").string();
  {
    FolderLock first(run);
    // flock locks belong to open file descriptions: a second open in this process conflicts
    // like another process would.
    EXPECT_THROW(FolderLock second(run), FileError);
  }
  EXPECT_NO_THROW(FolderLock again(run));
}

}  // namespace
}  // namespace csumtune::tuner
