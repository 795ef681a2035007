// The workload profiles tuning runs are made for, in one table: the tuner measures them, the
// results folders are named after them, and best() prefers their runs in this order.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace csumtune::results {

struct ProfileEntry {
  int size;
  double weight;
};

struct ProfileDefinition {
  std::string name;
  std::vector<ProfileEntry> entries;
  std::string description;
};

// imix (the default), mtu, thread, jumbo, bulk, kernel (the default with --kernel-safe): the
// order best() prefers them in.
const std::vector<ProfileDefinition>& namedProfiles();

// The profile a name means today: "seed", the thread profile's name before it was renamed (it
// named a random seed and a bench format too), is read as "thread"; other names are returned.
std::string_view currentProfileName(std::string_view name);

// Preference of a profile name: its place in namedProfiles(), or after all of them.
std::size_t profilePreference(std::string_view name);

// "LEN:WEIGHT,...", the profile's identity in messages and --resume checks.
std::string profileSpec(const std::vector<ProfileEntry>& entries);

// The run folder `tune` writes into under results/<cpu-key>/: imix, imix-cold, seed-kernel,
// kernel-max296 (with --max-bytes), copy-kernel (tune --kind copy), ...
std::string runFolderName(std::string_view profile, bool cold, bool kernelSafe,
                          std::size_t maxBytes = 0, bool copying = false);

}  // namespace csumtune::results
