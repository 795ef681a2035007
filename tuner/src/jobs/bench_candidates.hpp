// bench --candidates as one library call: the shared candidate list timed on this host beside
// the tuner's reference, at every size of the chosen profiles, and each candidate's speed-up
// over the reference per profile (the tables `merge` reads back from the JSON).
#pragma once

#include <string>
#include <vector>

#include "jobs/bench_on_host.hpp"
#include "merge/speedup_table.hpp"
#include "report/bench_report.hpp"
#include "search/profile.hpp"

namespace csumtune::tuner {

struct CandidateBenchRequest {
  HostBenchRequest bench;  // params: the candidates (one kind); sizes: set from the profiles
  std::vector<Profile> profiles;
};

struct CandidateBench {
  BenchReport report;
  std::vector<SpeedupTable> tables;  // one per profile, in the request's order
  // Candidates this CPU lacks a feature for (a SIMD family without AVX-512, ...): not timed,
  // listed, and so not on every CPU when merged.
  std::vector<std::string> notRunnableHere;
};

// The profiles' sizes, each once, ascending.
std::vector<int> sizesOf(const std::vector<Profile>& profiles);

// BadRequest for no candidates, none this CPU can run, or no profile, and whatever
// benchOnHost refuses.
CandidateBench benchCandidates(const CandidateBenchRequest& request, const HostBenchHooks& hooks);

// The bench JSON with a "candidates" section (candidatesJson): the file `merge` reads.
std::string formatCandidateBenchJson(const CandidateBench& bench);

}  // namespace csumtune::tuner
