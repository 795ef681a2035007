// Parsing the size lists of the command line: "40,1500,65536" and "40:7,576:4,1500:1".
#pragma once

#include <string>
#include <vector>

namespace csumtune::cli {

struct WeightedSize {
  int size;
  double weight;
};

inline constexpr int kMaxBenchLength = 1 << 26;  // 64 MiB

// Throws tuner::BadRequest with the offending item named.
std::vector<int> parseSizes(const std::string& text);
std::vector<WeightedSize> parseWeightedSizes(const std::string& text);

}  // namespace csumtune::cli
