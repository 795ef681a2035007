// What the tuner optimizes for: a mix of buffer lengths with weights, and a cache state.
//
// The score of a kernel is the time it takes per byte of that mix:
//
//     score = sum_i w_i * t_i  /  sum_i w_i * len_i        (timer units per byte)
//
// where t_i is the kernel's median time per call at length len_i and w_i is how many buffers
// of that length the workload checksums. Lower is better. The named profiles are defined
// once, in the results catalogue (csumtune/results/profiles.hpp), which best() also reads.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "csumtune/results/profiles.hpp"

namespace csumtune::tuner {

using results::ProfileEntry;

struct Profile {
  std::string name;  // "imix", ..., or "custom"
  std::vector<ProfileEntry> entries;
  std::string description;

  double score(const std::vector<double>& perCall) const;  // perCall[i] for entries[i]
  std::vector<int> sizes() const;
  std::string spec() const;  // "40:7,576:4,1500:1"
};

std::optional<Profile> namedProfile(const std::string& name);
std::vector<std::string> profileNames();  // in the catalogue's order, the default first
Profile customProfile(const std::vector<ProfileEntry>& entries);

}  // namespace csumtune::tuner
