#include "search/profile.hpp"

#include <fmt/format.h>

namespace csumtune::tuner {

double Profile::score(const std::vector<double>& perCall) const {
  double time = 0, bytes = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    time += entries[i].weight * perCall.at(i);
    bytes += entries[i].weight * entries[i].size;
  }
  return time / bytes;
}

std::vector<int> Profile::sizes() const {
  std::vector<int> out;
  for (const auto& e : entries) out.push_back(e.size);
  return out;
}

std::string Profile::spec() const {
  std::string out;
  for (const auto& e : entries)
    out += fmt::format("{}{}:{}", out.empty() ? "" : ",", e.size, e.weight);
  return out;
}

std::optional<Profile> namedProfile(const std::string& name) {
  if (name == "imix")
    return Profile{
        name, {{40, 7}, {576, 4}, {1500, 1}}, "simple IMIX: 7 x 40 B, 4 x 576 B, 1 x 1500 B"};
  if (name == "mtu") return Profile{name, {{1500, 1}}, "1500-byte Ethernet frames"};
  if (name == "jumbo") return Profile{name, {{9000, 1}}, "9000-byte jumbo frames"};
  if (name == "bulk") return Profile{name, {{65536, 1}}, "64 KiB buffers (GSO/GRO, storage)"};
  if (name == "seed") {
    return Profile{name,
                   {{1500, 44}, {9000, 7}, {65536, 1}},
                   "the 2013 thread's lengths 1500, 9000, 65536 B, about equal bytes at each"};
  }
  return std::nullopt;
}

std::vector<std::string> profileNames() {
  return {"imix", "mtu", "jumbo", "bulk", "seed"};
}

Profile customProfile(const std::vector<ProfileEntry>& entries) {
  Profile p{"custom", entries, ""};
  p.description = "custom: " + p.spec();
  return p;
}

}  // namespace csumtune::tuner
