// results.json: everything a tuning run knows, in a versioned schema (csumtune-results/1):
// what was tuned on (CPU fingerprint and key, host), for what (profile, cache), how (search
// and measuring settings, timer), every evaluation with its status and figures, the
// finalists re-measured against the baseline, and the winner. `--resume` reads it back.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "csumtune/cpu.hpp"
#include "measure/workload.hpp"
#include "search/drivers.hpp"
#include "search/evaluator.hpp"
#include "search/finalists.hpp"
#include "search/host_measurer.hpp"
#include "search/profile.hpp"

namespace csumtune::tuner {

inline constexpr const char* kResultsSchema = "csumtune-results/1";

struct TuneRun {
  std::string created;  // UTC, ISO 8601
  std::string host;
  CpuIdentity cpu;
  std::string cpuKey;
  int pinnedCpu = -1;
  Profile profile;
  CacheState cache = CacheState::Hot;
  std::size_t setSizeBytes = 0;
  bool kernelSafe = false;
  SearchSettings search;
  std::size_t budget = 0;
  double timeLimitSeconds = 0;
  std::string timerUnit, timerSource;
  double timerOverhead = 0;
  std::string reference;  // canonical params of the reference/baseline kernel
  HostMeasureSettings measure;
  FinalSettings final;
  std::vector<Evaluation> evaluations;
  std::size_t uniqueThisRun = 0, revisits = 0;
  std::size_t noiseRetries = 0;  // candidates measured again by the noise guard
  double elapsedSeconds = 0;
  std::string stoppedBecause;
  std::vector<std::string> phases;
  std::vector<FinalistResult> finalists;  // best first; empty when interrupted
  std::vector<SweepPoint> sweep;
  std::string style = "kernel";  // of winner.S
  bool complete = false;
};

class ResultsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

nlohmann::json toJson(const TuneRun& run);

// The evaluations recorded in a results file of this schema (any CPU, any workload): what
// `tune --replay` searches again without measuring. Throws ResultsError.
std::vector<Evaluation> readEvaluations(const std::string& path);

// The winner's params of a results file (any CPU): what `csumtune kmod --results` builds.
gen::Params readWinnerParams(const std::string& path);

// The evaluations of an earlier run in `path`, after checking that it is a results file of
// this schema, for the same CPU, profile, cache state and space. Throws ResultsError.
std::vector<Evaluation> readEvaluationsForResume(const std::string& path, const TuneRun& current);

// One-line verdict on the winner: "1.83x faster than linux-like (95% CI 1.80-1.85)" or
// "not significantly faster than linux-like (0.99x, 95% CI 0.97-1.01)".
std::string verdict(const FinalistResult& winner, const std::string& baseline);

}  // namespace csumtune::tuner
