// csumtune tune: search the space on this CPU for the fastest correct kernel for a workload.
//
//   csumtune tune [--algorithm A] [--budget N] [--time S] [--profile NAME | --sizes LIST]
//                 [--cache hot|cold] [--kernel-safe] [--out DIR] [--resume] [--seed N] ...
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "atomic_file.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "csumtune/cpu.hpp"
#include "csumtune/jit.hpp"
#include "csumtune/results/profiles.hpp"
#include "measure/baselines.hpp"
#include "measure/host_contention.hpp"
#include "measure/kernel_source.hpp"
#include "measure/placement.hpp"
#include "progress_line.hpp"
#include "report/pareto_svg.hpp"
#include "report/results_file.hpp"
#include "report/tune_report.hpp"
#include "search/code_size_tradeoff.hpp"
#include "search/strategy.hpp"
#include "size_lists.hpp"
#include "source_file.hpp"
#include "tune/host_measurer.hpp"
#include "tune/replay_measurer.hpp"
#include "tune/tune.hpp"

namespace csumtune::cli {
namespace {

std::atomic<bool> gInterrupted{false};
volatile std::sig_atomic_t gSignal = 0;  // which one: the exit status is 128 + it, as unhandled
extern "C" void onInterrupt(int signal) {
  gSignal = signal;
  gInterrupted = true;
}

struct TuneOptions {
  std::string algorithm{tuner::defaultStrategy().name};
  std::size_t budget = tuner::kDefaultBudget;
  double timeLimit = 100;
  std::string profile;
  std::string sizes;
  std::string cache = "hot";
  int setSizeMb = 256;
  bool kernelSafe = false;
  std::string out;
  bool resume = false;
  std::uint64_t seed = 1;
  std::size_t stall = 0;
  std::size_t finalists = 5;
  std::size_t frameShapes = 3;
  std::size_t polishShapes = 3;
  std::string style = "kernel";
  bool quiet = false;
  int cpu = -1;
  bool requireSpeedup = false;
  std::string replay;
  std::string baselineSource;
  std::string kind = "sum";
  double waitQuiet = 0;  // seconds; 0 = measure whatever the machine is doing (and say so)
  std::size_t maxBytes = 0;
  std::string sizePreset;
  bool sizePresetGiven = false;  // --size-preset '' is a bad name, not "no limit"
};

// --size-preset: the common code-size limits, by who wants them.
struct SizePreset {
  const char* name;
  std::size_t maxBytes;
  const char* who;
};
constexpr SizePreset kSizePresets[] = {
    {"tiny", 296,
     "no bigger than Linux v6.8's own csum_partial (gcc 12 -O2): embedded routers and "
     "kernels built for size"},
    {"small", 512, "eight cache lines: kernels that value their instruction cache"},
};

gen::Kind kindOf(const TuneOptions& o) {
  return o.kind == "copy" ? gen::Kind::Copy : gen::Kind::Sum;
}

std::size_t chooseMaxBytes(const TuneOptions& o) {
  if (!o.sizePresetGiven) return o.maxBytes;
  if (o.maxBytes != 0) throw UsageError("give --max-bytes or --size-preset, not both");
  for (const SizePreset& p : kSizePresets) {
    if (o.sizePreset == p.name) return p.maxBytes;
  }
  throw UsageError("unknown --size-preset '" + o.sizePreset + "' (expected tiny or small)");
}

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

std::string hostName() {
  char name[256] = "unknown";
  gethostname(name, sizeof name - 1);
  return name;
}

tuner::Profile chooseProfile(const TuneOptions& o) {
  if (!o.profile.empty() && !o.sizes.empty())
    throw UsageError("give --profile or --sizes, not both");
  if (!o.sizes.empty()) {
    std::vector<tuner::ProfileEntry> entries;
    for (const auto& w : parseWeightedSizes(o.sizes)) entries.push_back({w.size, w.weight});
    return tuner::customProfile(entries);
  }
  // The default: imix for user space, the kernel profile for kernel-safe tuning.
  const std::string name = !o.profile.empty() ? o.profile
                           : o.kernelSafe     ? "kernel"
                                              : tuner::profileNames().front();
  if (auto p = tuner::namedProfile(name)) return *p;
  std::string names;
  for (const auto& n : tuner::profileNames()) names += (names.empty() ? "" : ", ") + n;
  throw UsageError(fmt::format("unknown profile '{}' (expected {})", name, names));
}

// Every file of one run, written together: a folder never mixes two runs' files.
void writeOutputs(const tuner::TuneRun& run, const std::string& dir, bool quiet) {
  std::vector<std::pair<std::string, std::string>> files{
      {"results.json", tuner::toJson(run).dump(1) + "\n"}};
  std::vector<std::string> plotNames;
  if (run.complete()) {
    const auto& winner = run.finalists.front();
    tuner::SourceRequest request;
    request.params = winner.params;
    request.style = run.style == "gas" ? tuner::SourceStyle::Gas : tuner::SourceStyle::Kernel;
    request.symbol = tuner::defaultSymbol(winner.params, request.style);
    request.tunedOn = fmt::format("{} ({}, key {}) on {}", run.cpu.brand, run.cpu.vendor,
                                  run.cpuKey, run.created);
    request.figures = fmt::format("profile {} ({} cache): {:.4f} {}/byte, {}", run.profile.name,
                                  tuner::toString(run.cache), winner.scorePerByte, run.timerUnit,
                                  tuner::verdict(winner, run.reference));
    files.emplace_back("winner.S", tuner::renderSource(request));
    if (auto svg =
            tuner::paretoSvg(run.evaluations, tuner::paretoFront(run.evaluations), run.reference);
        !svg.empty())
      files.emplace_back("pareto.svg", std::move(svg));
    std::string why;
    for (auto& plot : tuner::drawPlots(run, &why)) {
      plotNames.push_back(plot.name);
      files.emplace_back(plot.name, std::move(plot.svg));
    }
    if (!why.empty() && !quiet) std::cerr << "csumtune: note: " << why << "\n";
  }
  files.emplace_back("report.md", tuner::renderTuneReport(run, plotNames));
  tuner::writeFilesTogether(
      dir, files,
      {"results.json", "winner.S", "report.md", "sweep.svg", "space.svg", "pareto.svg"});
}

// Searches a recorded table instead of the CPU and says how close the search came to the
// table's optimum, with how many evaluations: the way search algorithms are compared.
int runReplay(const TuneOptions& o) {
  const std::vector<tuner::Evaluation> table = tuner::readEvaluations(o.replay);
  const gen::Kind kind = kindOf(o);
  for (const tuner::Evaluation& e : table) {
    if (e.params.kind != kind) {
      throw UsageError(
          fmt::format("{} records {} kernels; this replay searches {} kernels (--kind)", o.replay,
                      gen::toString(e.params.kind), gen::toString(kind)));
    }
  }
  tuner::ReplayMeasurer measurer(table, chooseMaxBytes(o));
  const tuner::Evaluation* optimum = measurer.optimum();
  if (!optimum) throw UsageError(o.replay + " holds no correct evaluation to replay");
  const tuner::SearchSpace space(o.kernelSafe, kind);
  tuner::Evaluator evaluator(measurer, {o.budget, o.timeLimit, nullptr});
  const auto outcome = tuner::runSearch(space, evaluator, {o.algorithm, o.seed, o.stall});
  const tuner::Evaluation* best = evaluator.best();
  const double gap = best ? 100.0 * (best->score / optimum->score - 1.0) : 100.0;
  fmt::print(
      "algorithm={} seed={} budget={} unique={} revisits={} table={} fraction={:.4f} best={} "
      "score={:.5f} optimum={} optimum_score={:.5f} gap_percent={:.3f} rank={} stopped=\"{}\"\n",
      o.algorithm, o.seed, o.budget, evaluator.uniqueThisRun(), evaluator.revisits(),
      measurer.size(), double(evaluator.uniqueThisRun()) / double(measurer.size()),
      best ? best->params.toString() : "none", best ? best->score : 0.0, optimum->params.toString(),
      optimum->score, gap, best ? measurer.rankOf(best->score) : 0, outcome.stoppedBecause);
  return 0;
}

int runTune(const TuneOptions& o) {
  if (!o.replay.empty() && !o.baselineSource.empty())
    throw UsageError("--replay measures nothing: --baseline-source does not apply");
  if (!o.replay.empty() && o.waitQuiet > 0)
    throw UsageError("--replay measures nothing: --wait-quiet does not apply");
  if (!o.replay.empty()) return runReplay(o);
  const tuner::Profile profile = chooseProfile(o);
  if (!tuner::findStrategy(o.algorithm)) {
    throw UsageError(
        fmt::format("unknown algorithm '{}' (expected {})", o.algorithm, tuner::strategyNames()));
  }
  const int cpu = o.cpu >= 0 ? o.cpu : tuner::defaultBenchCpu();
  if (auto error = tuner::pinToCpu(cpu)) throw UsageError(*error);
  const auto started = std::chrono::steady_clock::now();
  // The one line on stderr when it is a terminal (ProgressLine checks), nothing with --quiet.
  ProgressLine line(stderr, !o.quiet);
  if (!o.quiet) {
    for (const auto& w : tuner::frequencyWarnings(cpu))
      std::cerr << "csumtune: warning: " << w << "\n";
  }

  tuner::TuneRun run;
  run.created = utcNow();
  run.host = hostName();
  run.cpu = hostCpu();
  run.cpuKey = cpuKey(run.cpu);
  run.pinnedCpu = cpu;
  run.profile = profile;
  run.cache = o.cache == "cold" ? tuner::CacheState::Cold : tuner::CacheState::Hot;
  run.kernelSafe = o.kernelSafe;
  run.kind = kindOf(o);
  const bool copying = run.kind == gen::Kind::Copy;
  run.search = {o.algorithm, o.seed, o.stall};
  run.budget = o.budget;
  run.timeLimitSeconds = o.timeLimit;
  // The reference: linux-v6.8, or a kernel tree's own file (verified before it is used).
  std::optional<tuner::SourceBaseline> source;
  // Copying kernels are measured against a copy: linux-csum-copy, or a tree's csum-copy_64.S.
  tuner::Baseline reference = copying ? tuner::copyReferenceBaseline() : tuner::referenceBaseline();
  if (!o.baselineSource.empty()) {
    source.emplace(o.baselineSource, copying ? tuner::SourceKind::Copy : tuner::SourceKind::Sum,
                   o.seed);
    if (source->copies() != copying) {
      throw UsageError(
          fmt::format("--baseline-source {} is {}: {}", o.baselineSource,
                      source->copies() ? "a csum-copy_64.S" : "a csum_partial file",
                      copying ? "tune --kind copy takes a tree's arch/x86/lib/csum-copy_64.S"
                              : "a baseline for tune --kind copy"));
    }
    noteSourceSlack(*source, o.quiet);
    reference = source->baseline();
  }
  run.reference = reference.name;
  run.measure.seed = o.seed;
  run.measure.maxBytes = chooseMaxBytes(o);
  // Known before any measurement: a limit below the space's smallest kernel admits nothing.
  if (run.measure.maxBytes > 0) {
    const tuner::SmallestKernel smallest = tuner::smallestKernel(o.kernelSafe, run.kind);
    if (run.measure.maxBytes < smallest.bytes) {
      throw UsageError(
          fmt::format("no kernel of the {} space fits in {} bytes: the smallest is {} ({} bytes)",
                      o.kernelSafe ? "kernel-safe" : "whole", run.measure.maxBytes,
                      smallest.params.toString(), smallest.bytes));
    }
  }
  const std::string dir =
      o.out.empty()
          ? fmt::format("results/{}/{}", run.cpuKey,
                        results::runFolderName(profile.name, run.cache == tuner::CacheState::Cold,
                                               o.kernelSafe, run.measure.maxBytes, copying))
          : o.out;

  tuner::TuneSettings settings;
  settings.finalists = o.finalists;
  settings.frameShapes = o.frameShapes;
  settings.polishShapes = o.polishShapes;
  settings.style = o.style;
  if (o.resume) settings.earlier = tuner::readEvaluationsForResume(dir + "/results.json", run);
  try {
    std::filesystem::create_directories(dir);
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("cannot create {}: {}", dir, e.what()));
  }
  if (access(dir.c_str(), W_OK) != 0) throw UsageError("cannot write into " + dir);
  // One run at a time into a folder (held until the process ends).
  std::optional<tuner::FolderLock> lock;
  try {
    lock.emplace(dir);
  } catch (const tuner::FileError& e) {
    throw UsageError(e.what());
  }

  auto timer = tuner::makeTimer();
  run.timerUnit = timer->unit();
  run.timerSource = timer->source();
  run.timerOverhead = timer->overhead();
  run.clock = tuner::measureClockRates(*timer);
  tuner::WorkloadConfig workloadConfig;
  workloadConfig.cache = run.cache;
  workloadConfig.setSizeBytes = static_cast<std::size_t>(o.setSizeMb) << 20;
  workloadConfig.seed = o.seed;
  const auto sizes = profile.sizes();
  const std::size_t longest = std::max<std::size_t>(
      65536, static_cast<std::size_t>(*std::max_element(sizes.begin(), sizes.end())));
  if (run.cache == tuner::CacheState::Cold && workloadConfig.setSizeBytes < 2 * (longest + 128)) {
    throw UsageError(
        fmt::format("--set-size {} MB is too small for {}-byte buffers", o.setSizeMb, longest));
  }
  tuner::Workload workload(workloadConfig, longest);
  run.setSizeBytes = workload.setSize();
  // The winner's sweep covers both cache states: a workload of the other one.
  tuner::WorkloadConfig otherConfig = workloadConfig;
  otherConfig.cache =
      run.cache == tuner::CacheState::Hot ? tuner::CacheState::Cold : tuner::CacheState::Hot;
  if (otherConfig.setSizeBytes < 2 * (longest + 128)) otherConfig.setSizeBytes = 256u << 20;
  tuner::Workload otherWorkload(otherConfig, longest);

  // Contention: watched always (and reported); with --wait-quiet, waited out.
  // The contention probe times a summing kernel, whatever is tuned.
  tuner::HostContentionSource contentionSource(
      cpu, *timer, reference.fn ? reference.fn : tuner::referenceBaseline().fn);
  tuner::ContentionSettings contentionSettings;
  contentionSettings.waitLimitSeconds = o.waitQuiet;
  tuner::ContentionMonitor monitor(contentionSource, contentionSettings);
  monitor.setInterruptFlag(&gInterrupted);
  run.waitQuietSeconds = o.waitQuiet;
  tuner::HostMeasurer measurer(
      profile, reference, *timer, workload, run.measure, run.final,
      [&](const std::string& note) {
        if (o.quiet) return;
        line.clear();  // a note gets a line of its own; the progress line is drawn again below it
        std::cerr << "csumtune: " << note << "\n";
      },
      &otherWorkload, &monitor);
  gInterrupted = false;
  gSignal = 0;
  // Ctrl-C and SIGTERM both stop the run at the next check and save a resumable state
  // (never a half-written file or a stray temporary).
  auto previous = std::signal(SIGINT, onInterrupt);
  auto previousTerm = std::signal(SIGTERM, onInterrupt);
  settings.interrupted = &gInterrupted;
  std::size_t phaseBase = 0, unique = 0;  // evaluations before this phase, so far
  settings.phaseStarted = [&](const std::string& phase, std::size_t steps) {
    phaseBase = unique;
    line.phase(phase, steps);
  };
  settings.progress = [&](const tuner::Evaluator& ev) {
    unique = ev.uniqueThisRun();
    const auto* best = ev.best();
    line.update(unique - phaseBase,
                best ? fmt::format("best {:.4f} {}", best->score, best->params.toString()) : "");
  };
  if (!o.quiet && !settings.earlier.empty()) {
    std::cerr << fmt::format("csumtune: resuming with {} earlier evaluations\n",
                             settings.earlier.size());
  }
  tuner::tune(run, measurer, settings);
  line.clear();
  const double wholeSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  writeOutputs(run, dir, o.quiet);
  std::signal(SIGINT, previous);
  std::signal(SIGTERM, previousTerm);

  switch (run.end) {
    case tuner::TuneEnd::Interrupted:
      std::cerr << fmt::format(
          "csumtune: interrupted after {} evaluations; progress saved to {}/results.json "
          "(continue with --resume)\n",
          run.evaluations.size(), dir);
      // 130 for Ctrl-C, 143 for SIGTERM: what the signal gives when it arrives before the
      // handler is in place, so the status does not depend on when it came.
      return 128 + (gSignal ? gSignal : SIGINT);
    case tuner::TuneEnd::NoCorrectCandidate:
      throw CheckFailed(run.failure + "; see " + dir + "/results.json");
    case tuner::TuneEnd::NothingMeasured:
      throw UsageError(run.failure + "; see " + dir + "/results.json");
    case tuner::TuneEnd::WinnerFailedFullPlan:
      throw CheckFailed(run.failure);
    case tuner::TuneEnd::Complete:
      break;
  }
  const auto& w = run.finalists.front();
  fmt::print("winner   {}\n", w.params.toString());
  fmt::print("profile  {} ({} cache{}): {:.4f} {}/byte vs {} {:.4f}\n", profile.name,
             tuner::toString(run.cache), o.kernelSafe ? ", kernel-safe" : "", w.scorePerByte,
             run.timerUnit, run.reference, w.baselinePerByte);
  fmt::print("verdict  {}\n", tuner::verdict(w, run.reference));
  fmt::print("search   {}: {} unique evaluations ({} revisits) in {:.1f} s; {}\n", o.algorithm,
             run.uniqueThisRun, run.revisits, run.searchSeconds, run.stoppedBecause);
  fmt::print(
      "time     {:.1f} s in all (search {:.1f} s; guard, finalists, sizes, sweep {:.1f} s)\n",
      wholeSeconds, run.searchSeconds, std::max(0.0, run.elapsedSeconds - run.searchSeconds));
  fmt::print("machine  {}\n", run.contention.summary(contentionSettings));
  if (!run.widened.empty()) fmt::print("ranking  {}\n", run.widened);
  fmt::print("files    {0}/results.json {0}/winner.S {0}/report.md\n", dir);
  if (!o.quiet && run.contention.disturbed(contentionSettings)) {
    std::cerr << "csumtune: warning: the machine was busy during this run; tune again in a quiet "
                 "period"
              << (o.waitQuiet > 0 ? "" : ", or with --wait-quiet to wait the busy stretches out")
              << "\n";
  }
  if (o.requireSpeedup && !(w.speedup.significant() && w.speedup.median > 1)) {
    throw CheckFailed("the winner is not significantly faster than " + run.reference);
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
  cmd->add_option("--algorithm", o->algorithm, algorithms)->capture_default_str();
  cmd->add_flag_callback(
      "--list-algorithms",
      [] {
        for (const auto& s : tuner::searchStrategies()) fmt::print("{}\n", s.name);
        throw CLI::Success();
      },
      "Print the search strategies' names, one a line, and exit");
  cmd->add_option("--budget", o->budget, "Unique kernels to measure (revisits are free)")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--time", o->timeLimit, "Stop the search after S seconds (0 = no limit)")
      ->check(finiteIn(0.0, 1e7))
      ->capture_default_str();
  std::string profiles = "Workload profile:";
  for (const auto& p : results::namedProfiles())
    profiles += fmt::format("\n  {:<6} {}", p.name, p.description);
  cmd->add_option(
      "--profile", o->profile,
      profiles + "\n(default " + tuner::profileNames().front() + "; kernel with --kernel-safe)");
  cmd->add_option("--sizes", o->sizes, "Custom profile: LEN[:WEIGHT],... e.g. 40:7,1500:1");
  cmd->add_option("--cache", o->cache, "hot or cold")
      ->check(CLI::IsMember({"hot", "cold"}))
      ->capture_default_str();
  cmd->add_option("--set-size", o->setSizeMb, "Cold set size in MiB")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_flag("--kernel-safe", o->kernelSafe,
                "Only kernels the Linux kernel may run (general-purpose registers)");
  cmd->add_option("--kind", o->kind,
                  "sum (csum_partial) or copy (copy and checksum in one pass: "
                  "csum_partial_copy_generic in kernel style, measured against linux-csum-copy "
                  "or --baseline-source csum-copy_64.S; folder copy-<profile>...)")
      ->check(CLI::IsMember({"sum", "copy"}))
      ->capture_default_str();
  cmd->add_option("--out", o->out,
                  "Output directory (default results/<cpu-key>/<profile>[-cold][-kernel])");
  cmd->add_flag("--resume", o->resume, "Continue from the output directory's results.json");
  cmd->add_option("--seed", o->seed, "Seed: the same seed visits the same points in the same order")
      ->check(unsigned64())
      ->capture_default_str();
  cmd->add_option("--stall", o->stall,
                  "Stop a carry family after N evaluations without improvement (0 = auto)");
  cmd->add_option("--finalists", o->finalists, "How many of the best to re-measure")
      ->check(CLI::Range(1, 50))
      ->capture_default_str();
  cmd->add_option("--polish-shapes", o->polishShapes,
                  "After the search, measure every loop shape near this many of the best "
                  "(chains ±2, unroll ±4, with and without prefetch; 0 = none)")
      ->check(CLI::Range(0, 50))
      ->capture_default_str();
  cmd->add_option("--frame-shapes", o->frameShapes,
                  "After the search, try every short-path variant of this many of the best loop "
                  "shapes (0 = keep the default short path)")
      ->check(CLI::Range(0, 50))
      ->capture_default_str();
  cmd->add_option("--style", o->style, "winner.S style: kernel or gas")
      ->check(CLI::IsMember({"kernel", "gas"}))
      ->capture_default_str();
  cmd->add_option("--cpu", o->cpu, "CPU to pin to (default: the last one)")
      ->check(CLI::Range(0, 4095));
  cmd->add_flag("--quiet", o->quiet, "No progress line or notes on stderr");
  cmd->add_flag("--require-speedup", o->requireSpeedup,
                "Exit 1 unless the winner is significantly faster than linux-v6.8");
  cmd->add_option("--baseline-source", o->baselineSource,
                  "Measure against a kernel tree's own arch/x86/lib/csum-partial_64.c (built for "
                  "user space) instead of linux-v6.8; with --kind copy its csum-copy_64.S. The "
                  "file, the tree's top directory or a source archive (.tar.xz)");
  cmd->add_option("--max-bytes", o->maxBytes,
                  "Only kernels of at most N bytes of code may win (bigger ones are verified, "
                  "recorded as too-big, not timed)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20));
  std::string presets = "A code-size limit by name (instead of --max-bytes):";
  for (const SizePreset& p : kSizePresets)
    presets += fmt::format("\n  {:<6} {} bytes: {}", p.name, p.maxBytes, p.who);
  cmd->add_option("--size-preset", o->sizePreset, presets)->each([o](const std::string&) {
    o->sizePresetGiven = true;
  });
  cmd->add_option("--wait-quiet", o->waitQuiet,
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
