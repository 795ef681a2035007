// The committed runs the patch and library tests read (results/<key>/<run>), and a counter of
// what a generated file holds.
#pragma once

#include <cstddef>
#include <string>

namespace csumtune::test_runs {

inline const std::string kZen4 = "amd-19-11-1-0a1bbd54/kernel";
inline const std::string kZen5 = "amd-1a-02-1-5d4b381f/kernel";
inline const std::string kZen4Copy = "amd-19-11-1-0a1bbd54/copy-kernel";
inline const std::string kZen3Copy = "amd-19-01-1-ce148854/copy-kernel";

// How often `what` occurs in `text` (overlaps included).
inline std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace csumtune::test_runs
