#include "jobs/tune_on_host.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>

#include <fmt/format.h>

#include "atomic_file.hpp"
#include "csumtune/cpu.hpp"
#include "csumtune/results/document.hpp"
#include "csumtune/results/profiles.hpp"
#include "measure/baselines.hpp"
#include "measure/clock_rates.hpp"
#include "measure/host_contention.hpp"
#include "measure/kernel_source.hpp"
#include "measure/placement.hpp"
#include "measure/quiet_reference.hpp"
#include "measure/shared_addresses.hpp"
#include "measure/timed_kernels.hpp"
#include "measure/timer.hpp"
#include "measure/workload.hpp"
#include "report/results_file.hpp"
#include "report/run_folder.hpp"
#include "request_errors.hpp"
#include "search/code_size_tradeoff.hpp"
#include "tune/host_measurer.hpp"

namespace csumtune::tuner {
namespace {

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

void say(const HostTuneHooks& hooks, const std::string& text) {
  if (hooks.note) hooks.note(text);
}

// The addresses every kernel and the reference are timed at, one per round (see
// measure/shared_addresses.hpp), or none when the reference's code cannot run from another
// address (it is then timed where it was built, and so is every kernel, with a note).
std::unique_ptr<SharedAddresses> shareAddresses(std::uint64_t seed, const Baseline& baseline,
                                                const HostTuneHooks& hooks) {
  std::unique_ptr<SharedAddresses> addresses;
  try {
    addresses = std::make_unique<SharedAddresses>(seed);
  } catch (const std::runtime_error& e) {
    say(hooks, fmt::format("note: every kernel is timed where it was built: {}", e.what()));
    return nullptr;
  }
  const TimedKernel reference = timedBaseline(baseline, true);
  const std::optional<std::string> whyNot =
      reference.movable ? addresses->whyNotMovable(reference) : "its code's size is unknown";
  if (whyNot) {
    say(hooks, fmt::format("note: every kernel is timed where it was built: {} cannot be moved "
                           "({})",
                           baseline.name, *whyNot));
    return nullptr;
  }
  return addresses;
}

// The baseline the run races: linux-v6.8 (linux-csum-copy for copying kernels), or a kernel
// tree's own file, verified before it is used. `source` keeps a tree's build alive.
Baseline chooseBaseline(const HostTuneRequest& request, std::optional<SourceBaseline>& source,
                        const HostTuneHooks& hooks) {
  const bool copying = request.kind == gen::Kind::Copy;
  if (request.baselineSource.empty()) return copying ? linuxCsumCopyBaseline() : linuxV68Baseline();
  source.emplace(request.baselineSource, copying ? SourceKind::Copy : SourceKind::Sum,
                 request.seed);
  if (source->copies() != copying) {
    throw BadRequest(fmt::format("--baseline-source {} is {}: {}", request.baselineSource,
                                 source->copies() ? "a csum-copy_64.S" : "a csum_partial file",
                                 copying
                                     ? "tune --kind copy takes a tree's arch/x86/lib/csum-copy_64.S"
                                     : "a baseline for tune --kind copy"));
  }
  if (!source->copies()) say(hooks, "note: " + slackNote(*source));
  return source->baseline();
}

// Known before any measurement: a limit below the space's smallest kernel admits nothing.
void refuseLimitBelowSmallest(const HostTuneRequest& request, std::size_t maxBytes) {
  if (maxBytes == 0) return;
  const SmallestKernel smallest = smallestKernel(request.kernelSafe, request.kind);
  if (maxBytes < smallest.bytes) {
    throw BadRequest(
        fmt::format("no kernel of the {} space fits in {} bytes: the smallest is {} ({} bytes)",
                    request.kernelSafe ? "kernel-safe" : "whole", maxBytes,
                    smallest.params.toString(), smallest.bytes));
  }
}

void prepareFolder(const std::string& folder) {
  try {
    std::filesystem::create_directories(folder);
  } catch (const std::exception& e) {
    throw BadRequest(fmt::format("cannot create {}: {}", folder, e.what()));
  }
  if (access(folder.c_str(), W_OK) != 0) throw BadRequest("cannot write into " + folder);
}

WorkloadConfig workloadConfigOf(const HostTuneRequest& request, std::size_t longest) {
  WorkloadConfig config;
  config.cache = request.cache;
  config.setSizeBytes = static_cast<std::size_t>(request.setSizeMb) << 20;
  config.seed = request.seed;
  if (config.cache == CacheState::Cold && config.setSizeBytes < 2 * (longest + 128)) {
    throw BadRequest(fmt::format("--set-size {} MB is too small for {}-byte buffers",
                                 request.setSizeMb, longest));
  }
  return config;
}

}  // namespace

const std::vector<SizePreset>& sizePresets() {
  static const std::vector<SizePreset> presets{
      {"tiny", 296,
       "no bigger than Linux v6.8's own csum_partial (gcc 12 -O2): embedded routers and "
       "kernels built for size"},
      {"small", 512, "eight cache lines: kernels that value their instruction cache"},
  };
  return presets;
}

std::size_t chooseMaxBytes(const HostTuneRequest& request) {
  if (!request.sizePreset) return request.maxBytes;
  if (request.maxBytes != 0) throw BadRequest("give --max-bytes or --size-preset, not both");
  for (const SizePreset& p : sizePresets()) {
    if (*request.sizePreset == p.name) return p.maxBytes;
  }
  throw BadRequest("unknown --size-preset '" + *request.sizePreset + "' (expected tiny or small)");
}

Profile chooseProfile(const HostTuneRequest& request) {
  if (!request.profile.empty() && !request.customSizes.empty())
    throw BadRequest("give --profile or --sizes, not both");
  if (!request.customSizes.empty()) return customProfile(request.customSizes);
  // The default: imix for user space, the kernel profile for kernel-safe tuning.
  const std::string name = !request.profile.empty() ? request.profile
                           : request.kernelSafe     ? "kernel"
                                                    : profileNames().front();
  if (auto p = namedProfile(name)) return *p;
  std::string names;
  for (const auto& n : profileNames()) names += (names.empty() ? "" : ", ") + n;
  throw BadRequest(fmt::format("unknown profile '{}' (expected {})", name, names));
}

HostTuneOutcome tuneOnHost(const HostTuneRequest& request, const HostTuneHooks& hooks) {
  const Profile profile = chooseProfile(request);
  if (!findStrategy(request.algorithm)) {
    throw BadRequest(
        fmt::format("unknown algorithm '{}' (expected {})", request.algorithm, strategyNames()));
  }
  const int cpu = request.cpu >= 0 ? request.cpu : defaultBenchCpu();
  if (auto error = pinToCpu(cpu)) throw BadRequest(*error);
  const auto started = std::chrono::steady_clock::now();
  for (const auto& w : frequencyWarnings(cpu)) say(hooks, "warning: " + w);

  HostTuneOutcome outcome;
  TuneRun& run = outcome.run;
  run.created = utcNow();
  run.host = hostName();
  run.cpu = hostCpu();
  run.cpuKey = cpuKey(run.cpu);
  run.pinnedCpu = cpu;
  run.profile = profile;
  run.cache = request.cache;
  run.kernelSafe = request.kernelSafe;
  run.strictBounds = request.strictBounds;
  run.kind = request.kind;
  run.search = {request.algorithm, request.seed, request.stall};
  run.budget = request.budget;
  run.timeLimitSeconds = request.timeLimitSeconds;
  std::optional<SourceBaseline> source;
  const Baseline baseline = chooseBaseline(request, source, hooks);
  run.baseline = baseline.name;
  run.measure.seed = request.seed;
  run.measure.maxBytes = chooseMaxBytes(request);
  refuseLimitBelowSmallest(request, run.measure.maxBytes);
  const bool copying = run.kind == gen::Kind::Copy;
  outcome.folder =
      request.out.empty()
          ? fmt::format("results/{}/{}", run.cpuKey,
                        results::runFolderName(profile.name, run.cache == CacheState::Cold,
                                               request.kernelSafe, run.measure.maxBytes, copying))
          : request.out;
  const std::string& folder = outcome.folder;

  TuneSettings settings;
  settings.finalists = request.finalists;
  settings.frameShapes = request.frameShapes;
  settings.strictBounds = request.strictBounds;
  settings.polishShapes = request.polishShapes;
  settings.style = request.style;
  // Settled before --resume reads the earlier run: a reference that cannot be moved makes a
  // run time at own addresses whatever was asked, and so did the run being resumed.
  std::unique_ptr<SharedAddresses> addresses;
  if (!request.ownAddresses && !copying) addresses = shareAddresses(request.seed, baseline, hooks);
  run.sharedAddresses = addresses != nullptr;
  if (request.resume) settings.earlier = readEvaluationsForResume(folder + "/results.json", run);
  prepareFolder(folder);
  // One run at a time into a folder (held until the run's files are written).
  std::optional<FolderLock> lock;
  try {
    lock.emplace(folder);
  } catch (const FileError& e) {
    throw BadRequest(e.what());
  }

  auto timer = makeTimer();
  run.timerUnit = timer->unit();
  run.timerSource = timer->source();
  run.timerOverhead = timer->overhead();
  run.clock = measureClockRates(*timer);
  const auto sizes = profile.sizes();
  const std::size_t longest = std::max<std::size_t>(
      65536, static_cast<std::size_t>(*std::max_element(sizes.begin(), sizes.end())));
  const WorkloadConfig workloadConfig = workloadConfigOf(request, longest);
  Workload workload(workloadConfig, longest);
  run.setSizeBytes = workload.setSize();
  // The winner's sweep covers both cache states: a workload of the other one.
  WorkloadConfig otherConfig = workloadConfig;
  otherConfig.cache = run.cache == CacheState::Hot ? CacheState::Cold : CacheState::Hot;
  if (otherConfig.setSizeBytes < 2 * (longest + 128)) otherConfig.setSizeBytes = 256u << 20;
  Workload otherWorkload(otherConfig, longest);

  // Contention: watched always (and reported); with --wait-quiet, waited out. The probe times
  // a summing kernel, whatever is tuned.
  HostContentionSource contentionSource(cpu, *timer,
                                        baseline.fn ? baseline.fn : linuxV68Baseline().fn);
  outcome.contention.waitLimitSeconds = request.waitQuietSeconds;
  useQuietReference(outcome.contention, run.cpuKey);
  ContentionMonitor monitor(contentionSource, outcome.contention);
  monitor.setInterruptFlag(hooks.interrupted);
  run.waitQuietSeconds = request.waitQuietSeconds;
  HostMeasurer measurer(
      profile, baseline, *timer, workload, run.measure, run.final,
      [&](const std::string& note) { say(hooks, note); }, &otherWorkload, &monitor);
  if (addresses) measurer.shareAddresses(addresses.get());
  // A tree's file moves by a cycle at short lengths with where its link puts it: timed at its
  // own address, the sweep also measures it built at each entry offset of a line, so that the
  // report can say where the winner is slower than the file wherever it sits. A compiler that
  // cannot place it leaves the sweep as it was. (At shared addresses every round moves it.)
  std::vector<std::unique_ptr<SourceBaseline>> placedSources;
  if (source && !source->copies() && !addresses) {
    try {
      std::vector<Baseline> placed;
      for (int place : gen::allPlacements()) {
        placedSources.push_back(std::make_unique<SourceBaseline>(
            request.baselineSource, SourceKind::Sum, request.seed, place));
        placed.push_back(placedSources.back()->baseline());
      }
      measurer.sweepAgainstPlacements(std::move(placed));
    } catch (const SourceBaselineError& e) {
      if (hooks.interrupted && hooks.interrupted->load()) throw;  // a Ctrl-C, not the compiler
      placedSources.clear();
      say(hooks, fmt::format("note: the sweep compares with the file as the compiler placed it "
                             "only: {}",
                             e.what()));
    }
  }
  settings.interrupted = hooks.interrupted;
  settings.phaseStarted = hooks.phaseStarted;
  settings.progress = hooks.progress;
  if (!settings.earlier.empty())
    say(hooks, fmt::format("resuming with {} earlier evaluations", settings.earlier.size()));
  tune(run, measurer, settings);
  rememberQuietReference(outcome.contention.quietReferenceFile,
                         run.contention.quietestLoadsPerChain);
  for (const std::string& note : writeRunFolder(run, folder)) say(hooks, "note: " + note);
  outcome.wholeSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return outcome;
}

}  // namespace csumtune::tuner
