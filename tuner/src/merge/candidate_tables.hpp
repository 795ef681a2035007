// What bench --candidates adds to its report: per profile, every candidate's speed-up over the
// reference timed in the same run, and the "candidates" section of its JSON that carries them
// (with the bench JSON's CPU, generator version and sizes: one file `merge` can read).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "merge/speedup_table.hpp"
#include "report/bench_report.hpp"
#include "search/profile.hpp"

namespace csumtune::tuner {

// One table per profile from a bench run that timed the reference (its first row) and the
// candidates at every size of every profile. A candidate's speed-up on a profile is the
// reference's weighted time over its own (the ratio of their profile scores). Throws
// BadRequest when the report lacks the reference or a profile's size.
std::vector<SpeedupTable> tablesFromBench(const BenchReport& report,
                                          const std::vector<Profile>& profiles, gen::Kind kind);

// The "candidates" section of the bench JSON: kind, reference, cache, and per profile its
// sizes and every kernel's speed-up.
nlohmann::json candidatesJson(const std::vector<SpeedupTable>& tables);

// The same for a reader: per profile, the kernels fastest first.
std::string formatCandidatesText(const std::vector<SpeedupTable>& tables);

}  // namespace csumtune::tuner
