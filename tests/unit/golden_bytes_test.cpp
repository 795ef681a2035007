// The space grows by extension only: every canonical string keeps meaning the same code.
// The machine code of every kernel of the space is pinned by tests/golden/kernel_digests.txt
// (one line per loop shape; tests/tools/kernel_digests writes it). A refactoring that changes
// one byte of one kernel fails here and names the shape.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "kernel_digests.hpp"

namespace csumtune::testing {
namespace {

std::map<std::string, std::string> readGolden() {
  std::ifstream in(CSUMTUNE_SOURCE_DIR "/tests/golden/kernel_digests.txt");
  std::map<std::string, std::string> lines;
  std::string line;
  while (std::getline(in, line)) lines[line.substr(0, line.find(' '))] = line;
  return lines;
}

TEST(GoldenBytes, EveryKernelOfTheSpaceIsUnchanged) {
  const auto golden = readGolden();
  ASSERT_FALSE(golden.empty()) << "tests/golden/kernel_digests.txt is missing";
  std::istringstream now(formatDigests(kernelDigests()));
  std::string line;
  std::size_t matched = 0;
  while (std::getline(now, line)) {
    const std::string shape = line.substr(0, line.find(' '));
    const auto it = golden.find(shape);
    if (it == golden.end()) continue;  // a new shape: extension, allowed
    EXPECT_EQ(line, it->second) << "the code of " << shape << " changed";
    ++matched;
  }
  EXPECT_EQ(matched, golden.size()) << "shapes of the golden file are no longer generated";
}

}  // namespace
}  // namespace csumtune::testing
