// csumtune tune: search the space on this CPU for the fastest correct kernel for a workload.
//
//   csumtune tune [--algorithm A] [--budget N] [--time S] [--profile NAME | --sizes LIST]
//                 [--cache hot|cold] [--kernel-safe] [--out DIR] [--resume] [--seed N] ...
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <map>

#include <unistd.h>

#include <fmt/format.h>

#include "cli_support.hpp"
#include "commands.hpp"
#include "csumtune/loader.hpp"
#include "csumtune/results/profiles.hpp"
#include "jobs/replay_search.hpp"
#include "jobs/tune_on_host.hpp"
#include "progress_line.hpp"
#include "report/results_file.hpp"
#include "report/tune_report.hpp"
#include "size_lists.hpp"

namespace csumtune::cli {
namespace {

std::atomic<bool> gInterrupted{false};
volatile std::sig_atomic_t gSignal = 0;  // which one: the exit status is 128 + it, as unhandled
extern "C" void onInterrupt(int signal) {
  gSignal = signal;
  gInterrupted = true;
}

// What the options fill: the request itself, and what needs a word of parsing first.
struct TuneOptions {
  tuner::HostTuneRequest request;
  std::string sizes;       // --sizes LEN[:WEIGHT],...
  std::string sizePreset;  // --size-preset, when given ('' is a bad name, not "no limit")
  bool sizePresetGiven = false;
  std::string replay;
  bool quiet = false;
  bool requireSpeedup = false;
  bool install = false;  // copy the finished run where best() looks
};

tuner::HostTuneRequest requestOf(const TuneOptions& o) {
  tuner::HostTuneRequest request = o.request;
  if (!o.sizes.empty()) {
    for (const auto& w : parseWeightedSizes(o.sizes))
      request.customSizes.push_back({w.size, w.weight});
  }
  if (o.sizePresetGiven) request.sizePreset = o.sizePreset;
  return request;
}

int runReplay(const TuneOptions& o) {
  const tuner::ReplayOutcome r = tuner::replaySearch(requestOf(o), o.replay);
  fmt::print(
      "algorithm={} seed={} budget={} unique={} revisits={} table={} fraction={:.4f} best={} "
      "score={:.5f} optimum={} optimum_score={:.5f} gap_percent={:.3f} rank={} stopped=\"{}\"\n",
      o.request.algorithm, o.request.seed, o.request.budget, r.unique, r.revisits, r.tableSize,
      double(r.unique) / double(r.tableSize), r.best.empty() ? "none" : r.best, r.bestScore,
      r.optimum, r.optimumScore, r.gapPercent, r.rank, r.stoppedBecause);
  return 0;
}

// "the entry at byte 16 of a 64-byte line, jump targets aligned to 16": a winner's layout
// (without the entry where the stage did not vary it: at shared addresses the rounds place code).
std::string layoutOf(const gen::Params& p, bool withEntry) {
  const std::string targets = fmt::format(
      "jump targets {}", p.targets == gen::Targets::Aligned ? "aligned to 16" : "packed");
  return withEntry ? fmt::format("the entry at byte {} of a 64-byte line, {}", p.place, targets)
                   : targets;
}

void printSummary(const tuner::HostTuneOutcome& outcome, const TuneOptions& o) {
  const tuner::TuneRun& run = outcome.run;
  const auto& w = run.finalists.front();
  fmt::print("winner   {}\n", w.params.toString());
  fmt::print("profile  {} ({} cache{}): {:.4f} {}/byte vs {} {:.4f}\n", run.profile.name,
             tuner::toString(run.cache), run.kernelSafe ? ", kernel-safe" : "", w.scorePerByte,
             run.timerUnit, run.baseline, w.baselinePerByte);
  fmt::print("verdict  {}\n", tuner::verdict(w, run.baseline));
  fmt::print("search   {}: {} unique evaluations ({} revisits) in {:.1f} s; {}\n",
             run.search.algorithm, run.uniqueThisRun, run.revisits, run.searchSeconds,
             run.stoppedBecause);
  fmt::print(
      "time     {:.1f} s in all (search {:.1f} s; guard, finalists, runoff, middle, placement, "
      "sizes, sweep {:.1f} s)\n",
      outcome.wholeSeconds, run.searchSeconds,
      std::max(0.0, run.elapsedSeconds - run.searchSeconds));
  fmt::print("machine  {}\n", run.contention.summary(outcome.contention));
  if (!run.widened.empty()) fmt::print("ranking  {}\n", run.widened);
  if (!run.runoff.empty()) {
    fmt::print(
        "runoff   {} finalists the profile could not tell apart were measured again together at "
        "the guard lengths; the winner lost least there (report.md, Runoff)\n",
        run.runoff.size());
  }
  if (!run.middle.empty()) {
    // The variants differ in their middle bound only (the placement stage may move the winner
    // after this one).
    const tuner::GuardResult& was = run.middle.front().atLengths;
    const auto chosen = std::find_if(run.middle.begin(), run.middle.end(), [&](const auto& m) {
      return m.atLengths.params.mid == w.params.mid;
    });
    if (was.params.mid == w.params.mid || chosen == run.middle.end()) {
      fmt::print(
          "middle   mid={}: no other middle bound was faster per call without losing more or "
          "being slower on the profile (report.md, Middle path)\n",
          w.params.mid);
    } else {
      fmt::print(
          "middle   mid={} instead of mid={}: faster per call where they differ (mean time "
          "ratio {:.3f} against {:.3f}), not slower on the profile (report.md, Middle path)\n",
          w.params.mid, was.params.mid, chosen->atLengths.meanRatio, was.meanRatio);
    }
  }
  if (!run.placement.empty()) {
    const tuner::GuardResult& least = tuner::leastLosing(run.placement);
    const tuner::GuardResult* own = tuner::findGuardResult(run.placement, w.params);
    const auto layoutOf = [&](const gen::Params& p) {
      return cli::layoutOf(p, run.placementVariesPlace());
    };
    if (least.params == w.params) {
      fmt::print(
          "place    {}: loses least at the guard lengths (excess {:.2f}; report.md, "
          "Placement)\n",
          layoutOf(w.params), least.excess);
    } else if (!run.placementProfile) {
      fmt::print(
          "place    {}: {} lost less at the guard lengths but was not compared on the "
          "profile, so the winner stays (report.md, Placement)\n",
          layoutOf(w.params), layoutOf(least.params));
    } else {
      fmt::print(
          "place    {}: {} lost less at the guard lengths (excess {:.2f} against "
          "{:.2f}) but was slower on the profile ({:.3f}x against {:.3f}x), so the winner "
          "stays (report.md, Placement)\n",
          layoutOf(w.params), layoutOf(least.params), least.excess, own ? own->excess : 0.0,
          run.placementProfile->second.median, run.placementProfile->first.median);
    }
  }
  if (const std::string lengths = tuner::sweepSummaryLine(run); !lengths.empty())
    fmt::print("lengths  {}\n", lengths);
  fmt::print("files    {0}/results.json {0}/winner.S {0}/report.md\n", outcome.folder);
  // A winner that loses somewhere is said where it loses, in red on a terminal: the guard
  // found no candidate as fast as the baseline at every short length, or the sweep did not.
  const tuner::SweepSummary sweep = tuner::summarizeSweep(run);
  const bool guardFailed =
      !run.guard.empty() &&
      std::none_of(run.guard.begin(), run.guard.end(), [](const auto& g) { return g.eligible; });
  if (!o.quiet && (guardFailed || !sweep.hot.lengths.empty() || !sweep.cold.lengths.empty())) {
    const bool colour = isatty(STDERR_FILENO) != 0;
    std::string what;
    if (guardFailed)
      what = "no candidate passed the guard (each is slower than " + run.baseline +
             " at some short length, hot or cold)";
    if (const std::string where = tuner::sweepSummaryLine(run);
        !sweep.hot.lengths.empty() || !sweep.cold.lengths.empty())
      what += (what.empty() ? "the winner is " : "; the winner is ") + where;
    std::cerr << (colour ? "\033[31m" : "") << "csumtune: warning: " << what
              << "; report.md lists every length" << (colour ? "\033[0m" : "") << "\n";
  }
  if (!o.quiet && run.contention.disturbed(outcome.contention)) {
    std::cerr << "csumtune: warning: the machine was busy during this run; tune again in a quiet "
                 "period"
              << (o.request.waitQuietSeconds > 0
                      ? ""
                      : ", or with --wait-quiet to wait the busy stretches out")
              << "\n";
  }
}

// --install: the finished run copied into the user's results directory (installRun), where
// best() and `csumtune show` find it.
void installFinishedRun(const std::string& folder) {
  std::string installed;
  try {
    installed = installRun(folder);
  } catch (const Error& e) {
    throw tuner::BadRequest(
        fmt::format("the run is in {}, but installing it failed: {}", folder, e.what()));
  }
  fmt::print(
      "install  {} (best() finds it first after CSUMTUNE_RESULTS; csumtune show lists "
      "what it sees)\n",
      installed);
}

int runTune(const TuneOptions& o) {
  if (o.install && !o.replay.empty())
    throw tuner::BadRequest("--install does not apply to --replay (it writes no run)");
  if (o.install && userResultsDirectory().empty())
    throw tuner::BadRequest(
        "--install: no user results directory (neither XDG_DATA_HOME nor HOME names an "
        "absolute directory)");
  if (!o.replay.empty()) return runReplay(o);
  // The one line on stderr when it is a terminal (ProgressLine checks), nothing with --quiet.
  ProgressLine line(stderr, !o.quiet);
  tuner::HostTuneHooks hooks;
  hooks.note = [&](const std::string& note) {
    if (o.quiet) return;
    line.clear();  // a note gets a line of its own; the progress line is drawn again below it
    std::cerr << "csumtune: " << note << "\n";
  };
  std::size_t phaseBase = 0, unique = 0;  // evaluations before this phase, so far
  hooks.phaseStarted = [&](const std::string& phase, std::size_t steps) {
    phaseBase = unique;
    line.phase(phase, steps);
  };
  hooks.progress = [&](const tuner::Evaluator& ev) {
    unique = ev.uniqueThisRun();
    const auto* best = ev.best();
    line.update(unique - phaseBase,
                best ? fmt::format("best {:.4f} {}", best->score, best->params.toString()) : "");
  };
  hooks.interrupted = &gInterrupted;
  gInterrupted = false;
  gSignal = 0;
  // Ctrl-C and SIGTERM both stop the run at the next check and save a resumable state
  // (never a half-written file or a stray temporary).
  auto previous = std::signal(SIGINT, onInterrupt);
  auto previousTerm = std::signal(SIGTERM, onInterrupt);
  tuner::HostTuneOutcome outcome;
  try {
    outcome = tuner::tuneOnHost(requestOf(o), hooks);
  } catch (...) {
    std::signal(SIGINT, previous);
    std::signal(SIGTERM, previousTerm);
    throw;
  }
  line.clear();
  std::signal(SIGINT, previous);
  std::signal(SIGTERM, previousTerm);

  const tuner::TuneRun& run = outcome.run;
  switch (run.end) {
    case tuner::TuneEnd::Interrupted:
      std::cerr << fmt::format(
          "csumtune: interrupted after {} evaluations; progress saved to {}/results.json "
          "(continue with --resume)\n",
          run.evaluations.size(), outcome.folder);
      // 130 for Ctrl-C, 143 for SIGTERM: what the signal gives when it arrives before the
      // handler is in place, so the status does not depend on when it came.
      return 128 + (gSignal ? gSignal : SIGINT);
    case tuner::TuneEnd::NoCorrectCandidate:
      throw tuner::CheckFailed(run.failure + "; see " + outcome.folder + "/results.json");
    case tuner::TuneEnd::NothingMeasured:
      throw tuner::BadRequest(run.failure + "; see " + outcome.folder + "/results.json");
    case tuner::TuneEnd::WinnerFailedFullPlan:
      throw tuner::CheckFailed(run.failure);
    case tuner::TuneEnd::Complete:
      break;
  }
  printSummary(outcome, o);
  if (o.install) installFinishedRun(outcome.folder);
  const auto& w = run.finalists.front();
  if (o.requireSpeedup && !(w.speedup.significant() && w.speedup.median > 1)) {
    throw tuner::CheckFailed("the winner is not significantly faster than " + run.baseline);
  }
  return 0;
}

}  // namespace

void addTuneCommand(CLI::App& app, int& exitCode) {
  auto o = std::make_shared<TuneOptions>();
  auto* cmd = app.add_subcommand(
      "tune", "Search for the fastest correct kernel for a workload on this CPU");
  std::string algorithms = "Search strategy:";
  for (const auto& s : tuner::searchStrategies())
    algorithms += fmt::format("\n  {:<11} {}", s.name, s.help);
  cmd->add_option("--algorithm", o->request.algorithm, algorithms)->capture_default_str();
  cmd->add_flag_callback(
      "--list-algorithms",
      [] {
        for (const auto& s : tuner::searchStrategies()) fmt::print("{}\n", s.name);
        throw CLI::Success();
      },
      "Print the search strategies' names, one a line, and exit");
  cmd->add_option("--budget", o->request.budget, "Unique kernels to measure (revisits are free)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--time", o->request.timeLimitSeconds,
                  "Stop the search after S seconds (0 = no limit)")
      ->check(finiteIn(0.0, 1e7))
      ->capture_default_str();
  std::string profiles = "Workload profile:";
  for (const auto& p : results::namedProfiles())
    profiles += fmt::format("\n  {:<6} {}", p.name, p.description);
  cmd->add_option(
      "--profile", o->request.profile,
      profiles + "\n(default " + tuner::profileNames().front() + "; kernel with --kernel-safe)");
  cmd->add_option("--sizes", o->sizes, "Custom profile: LEN[:WEIGHT],... e.g. 40:7,1500:1");
  addChoice(cmd, "--cache", o->request.cache, kCaches, "hot or cold");
  cmd->add_option("--set-size", o->request.setSizeMb, "Cold set size in MiB")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_flag("--kernel-safe", o->request.kernelSafe,
                "Only kernels the Linux kernel may run (general-purpose registers)");
  addChoice(cmd, "--kind", o->request.kind, kKinds,
            "sum (csum_partial) or copy (copy and checksum in one pass: "
            "csum_partial_copy_generic in kernel style, measured against linux-csum-copy "
            "or --baseline-source csum-copy_64.S; folder copy-<profile>...)");
  cmd->add_option("-o,--out,--output", o->request.out,
                  "Output directory (default results/<cpu-key>/<profile>[-cold][-kernel])");
  cmd->add_flag("--install", o->install,
                "After a complete run, copy it where best() looks (the user's results directory, "
                "$XDG_DATA_HOME/csumtune/results) and say where");
  cmd->add_flag("--resume", o->request.resume, "Continue from the output directory's results.json");
  cmd->add_option("--seed", o->request.seed,
                  "Seed: the same seed visits the same points in the same order")
      ->check(unsigned64())
      ->capture_default_str();
  cmd->add_option("--stall", o->request.stall,
                  "Stop a carry family after N evaluations without improvement (0 = auto)");
  cmd->add_option("--finalists", o->request.finalists, "How many of the best to re-measure")
      ->check(CLI::Range(1, 50))
      ->capture_default_str();
  cmd->add_option("--polish-shapes", o->request.polishShapes,
                  "After the search, measure every loop shape near this many of the best "
                  "(chains ±2, unroll ±4, with and without prefetch; 0 = none)")
      ->check(CLI::Range(0, 50))
      ->capture_default_str();
  cmd->add_option("--frame-shapes", o->request.frameShapes,
                  "After the search, try every short-path variant of this many of the best loop "
                  "shapes (0 = keep the default short path)")
      ->check(CLI::Range(0, 50))
      ->capture_default_str();
  cmd->add_flag("--strict-bounds", o->request.strictBounds,
                "Short paths that read no byte outside the buffer (bounds=strict), for programs "
                "checked by Valgrind-like tools; by default bounds=aligned ones compete too");
  cmd->add_flag("--own-addresses", o->request.ownAddresses,
                "Time each kernel and the reference where it was built, not at the addresses "
                "each round draws for all of them (a short call moves by a cycle with where its "
                "code sits)");
  addChoice(cmd, "--style", o->request.style, kStyles, "winner.S style: kernel or gas");
  cmd->add_option("--cpu", o->request.cpu, "CPU to pin to (default: the last one)")
      ->check(CLI::Range(0, 4095));
  cmd->add_flag("--quiet", o->quiet, "No progress line or notes on stderr");
  cmd->add_flag("--require-speedup", o->requireSpeedup,
                "Exit 1 unless the winner is significantly faster than linux-v6.8");
  cmd->add_option("--baseline-source", o->request.baselineSource,
                  "Measure against a kernel tree's own arch/x86/lib/csum-partial_64.c (built for "
                  "user space) instead of linux-v6.8; with --kind copy its csum-copy_64.S. The "
                  "file, the tree's top directory or a source archive (.tar.xz)");
  cmd->add_option("--max-bytes", o->request.maxBytes,
                  "Only kernels of at most N bytes of code may win (bigger ones are verified, "
                  "recorded as too-big, not timed)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  std::string presets = "A code-size limit by name (instead of --max-bytes):";
  for (const tuner::SizePreset& p : tuner::sizePresets())
    presets += fmt::format("\n  {:<6} {} bytes: {}", p.name, p.maxBytes, p.who);
  cmd->add_option("--size-preset", o->sizePreset, presets)->each([o](const std::string&) {
    o->sizePresetGiven = true;
  });
  cmd->add_option("--wait-quiet", o->request.waitQuietSeconds,
                  "Off unless given. Wait while the machine is busy (another task on the measuring "
                  "CPU, a slow "
                  "probe): measure only in quiet stretches, waiting up to SECONDS in all "
                  "(--wait-quiet alone: 600), then go on and say so")
      ->expected(0, 1)
      ->default_str("600")
      ->check(finiteIn(1.0, 1e6));
  cmd->add_option(
      "--replay", o->replay,
      "Search the evaluations recorded in FILE (an exhaustive run's results.json) instead "
      "of measuring; print how close the search came to the table's optimum");
  cmd->callback([o, &exitCode] {
    if (!dryRun()) exitCode = runTune(*o);
  });
}

}  // namespace csumtune::cli
