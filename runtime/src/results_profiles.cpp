#include <algorithm>

#include <fmt/format.h>

#include "csumtune/results/profiles.hpp"

namespace csumtune::results {

const std::vector<ProfileDefinition>& namedProfiles() {
  static const std::vector<ProfileDefinition> profiles{
      {"imix", {{40, 7}, {576, 4}, {1500, 1}}, "simple IMIX: 7 x 40 B, 4 x 576 B, 1 x 1500 B"},
      {"mtu", {{1500, 1}}, "1500-byte Ethernet frames"},
      {"seed",
       {{1500, 44}, {9000, 7}, {65536, 1}},
       "the 2013 thread's lengths 1500, 9000, 65536 B, about equal bytes at each"},
      {"jumbo", {{9000, 1}}, "9000-byte jumbo frames"},
      {"bulk", {{65536, 1}}, "64 KiB buffers (GSO/GRO, storage)"},
  };
  return profiles;
}

std::size_t profilePreference(std::string_view name) {
  const auto& all = namedProfiles();
  return static_cast<std::size_t>(
      std::find_if(all.begin(), all.end(), [&](const auto& p) { return p.name == name; }) -
      all.begin());
}

std::string profileSpec(const std::vector<ProfileEntry>& entries) {
  std::string out;
  for (const auto& e : entries)
    out += fmt::format("{}{}:{}", out.empty() ? "" : ",", e.size, e.weight);
  return out;
}

std::string runFolderName(std::string_view profile, bool cold, bool kernelSafe) {
  return fmt::format("{}{}{}", profile, cold ? "-cold" : "", kernelSafe ? "-kernel" : "");
}

}  // namespace csumtune::results
