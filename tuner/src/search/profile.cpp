#include "search/profile.hpp"

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
  return results::profileSpec(entries);
}

std::optional<Profile> namedProfile(const std::string& name) {
  for (const auto& p : results::namedProfiles()) {
    if (p.name == results::currentProfileName(name))
      return Profile{p.name, p.entries, p.description};
  }
  return std::nullopt;
}

std::vector<std::string> profileNames() {
  std::vector<std::string> names;
  for (const auto& p : results::namedProfiles()) names.push_back(p.name);
  return names;
}

Profile customProfile(const std::vector<ProfileEntry>& entries) {
  Profile p{"custom", entries, ""};
  p.description = "custom: " + p.spec();
  return p;
}

}  // namespace csumtune::tuner
