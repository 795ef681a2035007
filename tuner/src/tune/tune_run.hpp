// Everything a tuning run knows: what it was tuned on and for, how, every evaluation, the
// finalists, the winner's sweep, and how it ended. Data only: results.json and report.md
// are made from it (report/), tune() fills it (tune/tune.hpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "csumtune/cpu.hpp"
#include "measure/clock_rates.hpp"
#include "measure/contention.hpp"
#include "measure/workload.hpp"
#include "search/evaluator.hpp"
#include "search/profile.hpp"
#include "search/strategy.hpp"
#include "source_file.hpp"
#include "tune/finalist_results.hpp"
#include "tune/measure_settings.hpp"

namespace csumtune::tuner {

// When no finalist passed the guard, each loses somewhere and where it loses weighs more than
// a point of the profile: the runoff counts an interval this far below the first's as a tie.
inline constexpr double kUnguardedRunoffReach = 0.03;

enum class TuneEnd {
  Complete,             // a winner, verified with the full plan, swept
  Interrupted,          // Ctrl-C: progress kept, no winner (continue with --resume)
  NoCorrectCandidate,   // every candidate was wrong or refused
  NothingMeasured,      // nothing wrong, nothing usable: the time ran out while waiting for a
                        // quiet machine, or every correct candidate was over the size limit
  WinnerFailedFullPlan  // the best candidate failed the full correctness plan
};

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
  bool strictBounds = false;  // the frame stage searched bounds=strict short paths only
  // Every kernel and the reference timed at the addresses each round drew for all of them
  // (measure/shared_addresses.hpp); false: each where it was built.
  bool sharedAddresses = false;
  gen::Kind kind = gen::Kind::Sum;  // tune --kind copy: copying kernels, csum_partial_copy_generic
  SearchSettings search;
  std::size_t budget = 0;
  double timeLimitSeconds = 0;
  std::string timerUnit, timerSource;
  double timerOverhead = 0;
  ClockRates clock;      // TSC rate and core cycles per timer unit, measured at the start
  std::string baseline;  // the name of the kernel every candidate races (linux-v6.8 by default)
  HostMeasureSettings measure;
  FinalSettings final;
  std::vector<Evaluation> evaluations;
  std::size_t uniqueThisRun = 0, revisits = 0;
  std::size_t noiseRetries = 0;  // measurements repeated by the noise guard
  double elapsedSeconds = 0;
  double searchSeconds = 0;  // the search, polish and frame stages (elapsedSeconds is the run)
  std::string stoppedBecause;
  std::vector<std::string> phases;
  std::vector<GuardResult> guard;  // the guard's verdict on the best candidates
  std::vector<int> guardLengths;
  double guardTolerance = 0;
  std::size_t guardRepeatsUpTo = 0;       // TuneSettings::guardRepeatsUpTo
  std::vector<FinalistResult> finalists;  // best first; empty when interrupted
  std::string widened;  // why the finalists were widened ("" when the ranking held)
  // The finalists the profile could not tell from the first, measured again together at the
  // guard lengths (empty when there was no tie): the one that loses least there went first.
  std::vector<GuardResult> runoff;
  // A SIMD winner with each middle bound (mid=N, none included; the winner first), measured
  // together at the guard lengths where they differ and on the profile (empty when not measured):
  // the one fastest per call that loses no more won (tune/middle_path.hpp).
  std::vector<MiddlePathResult> middle;
  std::vector<int> middleLengths;  // the guard lengths where the bounds can differ (measured)
  double middleExcessSlack = 0, middleMargin = 0;  // the stage's rule (tune.hpp)
  double runoffExcessSlack = 0;                    // the runoff's tie on excess (tune.hpp)
  double runoffUnguardedReach = 0;  // kUnguardedRunoffReach when none passed the guard, else 0
  // The winner in every layout (`place`: its entry's offset in a 64-byte line; `targets`),
  // measured together at the guard lengths (empty when not measured): the one that loses least
  // won.
  std::vector<GuardResult> placement;
  // Whether those layouts differ in `place` too (not at shared addresses, where the rounds
  // place the code and only the targets were measured).
  bool placementVariesPlace() const {
    for (const GuardResult& g : placement)
      if (g.params.place != placement.front().params.place) return true;
    return false;
  }
  // When another placement lost less there: the profile's speed-up of the winner at its own
  // placement and at that one, measured together (the second wins unless it is slower).
  std::optional<std::pair<RatioEstimate, RatioEstimate>> placementProfile;
  ContentionReport contention;              // how busy the machine was, phase by phase
  std::vector<SizeLimitResult> sizeLimits;  // the winner first, then smaller limits' winners
  std::size_t smallestBytes = 0;            // the smallest kernel of the space searched
  gen::Params smallestParams;
  double waitQuietSeconds = 0;  // --wait-quiet's limit (0 = off)
  std::vector<SweepPoint> sweep;
  SourceStyle style =
      SourceStyle::Kernel;  // of winner.S: gas whenever the winner is not kernel-safe
  TuneEnd end = TuneEnd::Interrupted;
  std::string failure;  // what went wrong, for NoCorrectCandidate and WinnerFailedFullPlan

  bool complete() const { return end == TuneEnd::Complete; }
};

}  // namespace csumtune::tuner
