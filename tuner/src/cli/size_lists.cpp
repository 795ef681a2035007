#include "size_lists.hpp"

#include <charconv>

#include <fmt/format.h>

#include "commands.hpp"

namespace csumtune::cli {
namespace {

constexpr double kMaxWeight = 1e9;

std::vector<std::string> splitCommas(const std::string& text) {
  std::vector<std::string> items;
  std::string item;
  for (char c : text + ",") {
    if (c == ',') {
      items.push_back(item);
      item.clear();
    } else if (c != ' ') {
      item += c;
    }
  }
  return items;
}

int parseLength(const std::string& item) {
  int value = 0;
  auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
  if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() || value < 1 ||
      value > kMaxBenchLength) {
    throw tuner::BadRequest(
        fmt::format("size '{}' is not a length in 1..{}", item, kMaxBenchLength));
  }
  return value;
}

}  // namespace

std::vector<int> parseSizes(const std::string& text) {
  // A range FROM-TO stands for every length in it: the short lengths are compared one by one.
  constexpr std::size_t kMaxSizes = 4096;
  std::vector<int> sizes;
  for (const std::string& item : splitCommas(text)) {
    const auto dash = item.find('-', 1);
    if (dash == std::string::npos) {
      sizes.push_back(parseLength(item));
    } else {
      const int from = parseLength(item.substr(0, dash));
      const int to = parseLength(item.substr(dash + 1));
      if (to < from) throw tuner::BadRequest(fmt::format("size range '{}' runs backwards", item));
      if (static_cast<std::size_t>(to - from) >= kMaxSizes)
        throw tuner::BadRequest(
            fmt::format("size range '{}' has more than {} lengths", item, kMaxSizes));
      for (int len = from; len <= to; ++len) sizes.push_back(len);
    }
    if (sizes.size() > kMaxSizes)
      throw tuner::BadRequest(fmt::format("more than {} sizes", kMaxSizes));
  }
  return sizes;
}

std::vector<WeightedSize> parseWeightedSizes(const std::string& text) {
  std::vector<WeightedSize> sizes;
  for (const std::string& item : splitCommas(text)) {
    const auto colon = item.find(':');
    const int size = parseLength(item.substr(0, colon));
    double weight = 1;
    if (colon != std::string::npos) {
      const std::string w = item.substr(colon + 1);
      auto [ptr, ec] = std::from_chars(w.data(), w.data() + w.size(), weight);
      // Weights count buffers: finite, positive, and small enough that weight x length
      // summed over the profile stays finite.
      if (w.empty() || ec != std::errc() || ptr != w.data() + w.size() || !(weight > 0) ||
          !(weight <= kMaxWeight)) {
        throw tuner::BadRequest(
            fmt::format("weight '{}' in '{}' is not a number in (0, {:g}]", w, item, kMaxWeight));
      }
    }
    sizes.push_back({size, weight});
  }
  return sizes;
}

}  // namespace csumtune::cli
