#include <algorithm>

#include <fmt/format.h>

#include "csumtune/results/profiles.hpp"

namespace csumtune::results {

const std::vector<ProfileDefinition>& namedProfiles() {
  static const std::vector<ProfileDefinition> profiles{
      {"imix", {{40, 7}, {576, 4}, {1500, 1}}, "simple IMIX: 7 x 40 B, 4 x 576 B, 1 x 1500 B"},
      {"mtu", {{1500, 1}}, "1500-byte Ethernet frames"},
      {"thread",
       {{1500, 44}, {9000, 7}, {65536, 1}},
       "the 2013 thread's lengths 1500, 9000, 65536 B, about equal bytes at each"},
      {"jumbo", {{9000, 1}}, "9000-byte jumbo frames"},
      {"bulk", {{65536, 1}}, "64 KiB buffers (GSO/GRO, storage)"},
      {"kernel",
       {{20, 4}, {40, 8}, {64, 2}, {536, 1}, {1448, 3}, {1460, 1}, {9000, 1}},
       "what the kernel's csum_partial sums: 20-byte TCP and 40-byte IPv6 headers, 64 B, TCP "
       "payloads of 536 (default MSS), 1448 (MTU 1500 with timestamps) and 1460 B, 9000 B "
       "jumbo frames (the default of --kernel-safe)"},
  };
  return profiles;
}

std::string_view currentProfileName(std::string_view name) {
  return name == "seed" ? "thread" : name;
}

std::size_t profilePreference(std::string_view name) {
  name = currentProfileName(name);
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

std::string runFolderName(std::string_view profile, bool cold, bool kernelSafe,
                          std::size_t maxBytes, bool copying) {
  // The kernel profile is kernel-safe by nature: "kernel", not "kernel-kernel".
  const bool mark = kernelSafe && profile != "kernel";
  return fmt::format("{}{}{}{}{}", copying ? "copy-" : "", profile, cold ? "-cold" : "",
                     mark ? "-kernel" : "", maxBytes ? fmt::format("-max{}", maxBytes) : "");
}

}  // namespace csumtune::results
