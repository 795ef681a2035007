#include "jobs/bench_candidates.hpp"

#include <algorithm>
#include <set>

#include "csumtune/cpu.hpp"
#include "merge/candidate_tables.hpp"
#include "request_errors.hpp"

namespace csumtune::tuner {

std::vector<int> sizesOf(const std::vector<Profile>& profiles) {
  std::set<int> sizes;
  for (const Profile& p : profiles)
    for (const auto& e : p.entries) sizes.insert(e.size);
  return {sizes.begin(), sizes.end()};
}

CandidateBench benchCandidates(const CandidateBenchRequest& request, const HostBenchHooks& hooks) {
  if (request.bench.params.empty()) throw BadRequest("bench --candidates needs a candidate");
  if (request.profiles.empty()) throw BadRequest("bench --candidates needs a profile");
  HostBenchRequest bench = request.bench;
  bench.sizes = sizesOf(request.profiles);
  bench.reference = true;
  CandidateBench out;
  // One shared list goes to every machine: what this one cannot run is left out and said,
  // not a reason to measure nothing.
  std::erase_if(bench.params, [&](const gen::Params& p) {
    if (missingFeatures(p).empty()) return false;
    out.notRunnableHere.push_back(p.canonical().toString());
    if (hooks.note) hooks.note("note: this CPU cannot run " + p.toString() + ": not timed");
    return true;
  });
  if (bench.params.empty()) throw BadRequest("this CPU can run none of the candidates");
  out.report = benchOnHost(bench, hooks);
  out.tables = tablesFromBench(out.report, request.profiles, request.bench.params.front().kind);
  return out;
}

std::string formatCandidateBenchJson(const CandidateBench& bench) {
  nlohmann::json j = benchJson(bench.report);
  j["candidates"] = candidatesJson(bench.tables);
  j["candidates"]["not_runnable_here"] = bench.notRunnableHere;
  return j.dump(2) + "\n";
}

}  // namespace csumtune::tuner
