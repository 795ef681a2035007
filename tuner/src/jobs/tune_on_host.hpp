// A whole tune on this host as one library call: the timer, the workloads, the baseline, the
// contention monitor and the measurer wired together, tuner::tune run, and the run's folder
// written (results.json, winner.S, report.md, plots). The command line parses its options
// into a HostTuneRequest and prints the outcome; tests call it without a process.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "csumtune/gen/params.hpp"
#include "measure/contention.hpp"
#include "search/profile.hpp"
#include "search/strategy.hpp"
#include "source_file.hpp"
#include "tune/tune.hpp"

namespace csumtune::tuner {

// A code-size limit by name (--size-preset), with who wants it.
struct SizePreset {
  const char* name;
  std::size_t maxBytes;
  const char* who;
};
const std::vector<SizePreset>& sizePresets();

struct HostTuneRequest {
  std::string algorithm{defaultStrategy().name};
  std::size_t budget = kDefaultBudget;
  double timeLimitSeconds = 100;
  std::string profile;                    // a named profile; empty: the default for the space
  std::vector<ProfileEntry> customSizes;  // instead of a named profile when not empty
  CacheState cache = CacheState::Hot;
  int setSizeMb = 256;  // the cold set
  bool kernelSafe = false;
  // Short paths only of bounds=strict (no byte read outside the buffer), for programs run
  // under Valgrind-like checkers; otherwise bounds=aligned variants compete too.
  bool strictBounds = false;
  // Time every kernel and the reference where it was built (the JIT's block, the library's
  // mapping) instead of at the addresses each round draws for all of them.
  bool ownAddresses = false;
  gen::Kind kind = gen::Kind::Sum;
  std::string out;  // the run's folder; empty: results/<key>/<run name>
  bool resume = false;
  std::uint64_t seed = 1;
  std::size_t stall = 0;
  std::size_t finalists = 5;
  std::size_t frameShapes = 3;
  std::size_t polishShapes = 3;
  SourceStyle style = SourceStyle::Kernel;  // wanted winner.S style (SIMD winners are gas)
  int cpu = -1;                             // to pin to; -1: defaultBenchCpu()
  std::string baselineSource;               // a tree's own file instead of linux-v6.8
  double waitQuietSeconds = 0;              // 0: measure whatever the machine is doing
  std::size_t maxBytes = 0;                 // 0: no code-size limit
  std::optional<std::string> sizePreset;    // by name, instead of maxBytes
};

// What the caller hears while the run goes on; every member may be empty.
struct HostTuneHooks {
  std::function<void(const std::string&)> note;  // a note or warning, one line
  std::function<void(const std::string& phase, std::size_t steps)> phaseStarted;
  std::function<void(const Evaluator&)> progress;  // after each unique evaluation
  const std::atomic<bool>* interrupted = nullptr;  // set it to stop and save a resumable run
};

struct HostTuneOutcome {
  TuneRun run;                    // run.end says how it ended
  std::string folder;             // where its files are
  double wholeSeconds = 0;        // from the call to the files written
  ContentionSettings contention;  // what "busy" meant for run.contention
};

// The profile a request names (the default: imix, or kernel for kernel-safe tuning).
// BadRequest for an unknown name or both a name and custom sizes.
Profile chooseProfile(const HostTuneRequest& request);

// The code-size limit of a request (maxBytes or its preset); BadRequest for both or a bad name.
std::size_t chooseMaxBytes(const HostTuneRequest& request);

// Runs the tune and writes its folder. BadRequest when the request cannot be carried out as
// asked (nothing measured); the run's other ends are in outcome.run.end.
HostTuneOutcome tuneOnHost(const HostTuneRequest& request, const HostTuneHooks& hooks);

}  // namespace csumtune::tuner
