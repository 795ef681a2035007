// Paths into the source tree the tests read (CSUMTUNE_SOURCE_DIR is set by tests/CMakeLists.txt).
#pragma once

#include <string>

namespace csumtune::test_paths {

// A committed run or file under results/, e.g. "amd-19-11-1-0a1bbd54/kernel".
inline std::string committedResults(const std::string& run) {
  return std::string(CSUMTUNE_SOURCE_DIR) + "/results/" + run;
}

}  // namespace csumtune::test_paths
