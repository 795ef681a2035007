#include "jobs/bench_on_host.hpp"

#include <algorithm>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "csumtune/cpu.hpp"
#include "csumtune/jit.hpp"
#include "measure/baselines.hpp"
#include "measure/clock_rates.hpp"
#include "measure/code_size.hpp"
#include "measure/contention.hpp"
#include "measure/host_contention.hpp"
#include "measure/instruction_count.hpp"
#include "measure/kernel_source.hpp"
#include "measure/placement.hpp"
#include "measure/quiet_reference.hpp"
#include "measure/shared_addresses.hpp"
#include "measure/timed_kernels.hpp"
#include "measure/timer.hpp"
#include "request_errors.hpp"
#include "verify/verify.hpp"

namespace csumtune::tuner {
namespace {

// Compiled kernels must stay alive while timed: they own their code.
struct KernelSet {
  std::vector<Kernel> jit;
  std::vector<TimedKernel> timed;
  std::set<std::string> nonNegativeOnly;                 // Linux's code: verified for len >= 0
  std::vector<std::unique_ptr<SourceBaseline>> sources;  // --baseline-source
};

// The first length 0..300 (or 70000) that `copy` copies wrongly at some alignment, or -1.
int firstMiscopiedLength(CopyFn copy) {
  std::vector<std::uint8_t> src(70000 + 16), dst(70000 + 32);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint8_t>(i * 131 + 7);
  for (int len = 0; len <= 301; ++len) {
    const int n = len == 301 ? 70000 : len;
    for (int a = 0; a < 8; a += 3) {
      std::fill(dst.begin(), dst.end(), 0xa5);
      copy(src.data() + a, dst.data() + 8 + (a * 5) % 8, n, 0);
      const auto at = dst.begin() + 8 + (a * 5) % 8;
      if (!std::equal(at, at + n, src.begin() + a) || at[-1] != 0xa5 || at[n] != 0xa5) return n;
    }
  }
  return -1;
}

// Copying kernels (kind=copy), each beside what it replaces: linux-csum-copy (our own
// implementation of the kernel's csum-copy_64.S algorithm, first: the reference) and memcpy
// followed by the summing kernel of the same loop (two passes), with --baseline.
KernelSet prepareCopyKernels(const HostBenchRequest& request) {
  const std::vector<gen::Params>& params = request.params;
  KernelSet set;
  for (const gen::Params& p : params) {
    if (p.kind != gen::Kind::Copy) {
      throw BadRequest("bench times summing or copying kernels (kind=copy), not both in one run");
    }
  }
  using Call = TimedKernel::Call;
  if (!request.baselinePlaces.empty())
    throw BadRequest("--baseline-place places a csum_partial file: not for copying kernels");
  // --baseline-source: a tree's csum-copy_64.S itself, assembled unmodified.
  for (const std::string& path : request.baselineSources) {
    set.sources.push_back(std::make_unique<SourceBaseline>(path, SourceKind::Copy, request.seed));
    const auto& source = *set.sources.back();
    if (!source.copies()) {
      throw BadRequest(
          fmt::format("--baseline-source {} is a csum_partial file: copying kernels take a tree's "
                      "arch/x86/lib/csum-copy_64.S",
                      path));
    }
    TimedKernel timed = timedBaseline(source.baseline());
    timed.params = source.path();
    set.timed.push_back(timed);
  }
  // memcpy, then `summing` over the copy: the two-pass way to do a copying kernel's job.
  const auto addTwoPass = [&set](const gen::Params& summing) {
    set.jit.push_back(Jit::compile(summing));
    TimedKernel twoPass{"memcpy+" + summing.toString(), summing.toString(),
                        TimedKind::BaselineTwoPass, set.jit.back().fn(), set.jit.back().size()};
    twoPass.call = Call::MemcpyThenSum;
    set.timed.push_back(twoPass);
  };
  if (request.reference && !request.baselines)
    set.timed.push_back(timedBaseline(linuxCsumCopyBaseline()));
  if (request.baselines) {
    set.timed.push_back(timedBaseline(linuxCsumCopyBaseline()));
    // The floor: what the loads and stores alone cost (no sum). Not a checksum: not verified.
    set.timed.push_back(timedBaseline(copyBoundBaseline()));
  }
  for (const gen::Params& p : params) {
    set.jit.push_back(Jit::compile(p));  // refuses kernels the CPU cannot run (exit 2)
    TimedKernel copy = timedKernel(set.jit.back(), p.toString());
    copy.params = p.toString();  // as given, like the summing kernels' rows
    set.timed.push_back(copy);
    if (!request.baselines) continue;
    gen::Params summing = p;
    summing.kind = gen::Kind::Sum;
    addTwoPass(summing);
  }
  // --two-pass P: memcpy followed by a summing kernel of the caller's choice (a tuned winner).
  for (const gen::Params& summing : request.twoPass) {
    if (summing.kind != gen::Kind::Sum) {
      throw BadRequest("--two-pass takes a summing kernel (kind=sum): memcpy does the copying");
    }
    addTwoPass(summing);
  }
  // Every candidate is proven correct before it is timed: the copy as a copy, the two-pass
  // one's summing kernel as a sum (memcpy is the C library's).
  const VerifyFixture fixture(request.seed);
  const auto plan = quickPlan(256, request.seed);
  for (const auto& k : set.timed) {
    if (k.kind == TimedKind::BaselineSource) continue;  // proven above, through its adapter
    if (k.kind == TimedKind::Bound) {
      // Not a checksum, but it must copy: checked as a copy, its sum ignored.
      if (const int len = firstMiscopiedLength(k.copyFn); len >= 0)
        throw CheckFailed(fmt::format("{} copies {} bytes wrongly", k.name, len));
      continue;
    }
    const auto outcome = k.call == Call::Copy ? verifyCopyKernel(k.copyFn, fixture, plan)
                                              : verifyKernel(k.fn, fixture, plan);
    if (!outcome.ok())
      throw CheckFailed(fmt::format("{} is wrong, not timing it: {}", k.name, *outcome.failure));
  }
  return set;
}

KernelSet prepareKernels(const HostBenchRequest& request, const HostBenchHooks& hooks) {
  KernelSet set;
  std::vector<gen::Params> params = request.params;
  if (std::any_of(params.begin(), params.end(),
                  [](const gen::Params& p) { return p.kind == gen::Kind::Copy; })) {
    return prepareCopyKernels(request);
  }
  if (!request.twoPass.empty()) {
    throw BadRequest("--two-pass goes with copying kernels (--params ...,kind=copy)");
  }
  const bool baselines = request.baselines || params.empty();
  if (params.empty()) params.push_back(gen::Params{});
  if (baselines) {
    for (const Baseline& b : builtinBaselines()) {
      set.timed.push_back(
          {b.name, "", b.kind, b.fn, functionSize(reinterpret_cast<const void*>(b.fn))});
      if (!b.acceptsNegativeLength) set.nonNegativeOnly.insert(b.name);
    }
    set.jit.push_back(Jit::compile(linuxLikeParams()));
    set.timed.push_back({kLinuxLikeName, set.jit.back().canonical(), TimedKind::BaselineOurs,
                         set.jit.back().fn(), set.jit.back().size()});
  } else if (request.reference) {
    const Baseline& b = linuxV68Baseline();
    set.timed.push_back(
        {b.name, "", b.kind, b.fn, functionSize(reinterpret_cast<const void*>(b.fn))});
    if (!b.acceptsNegativeLength) set.nonNegativeOnly.insert(b.name);
  }
  if (!request.baselinePlaces.empty() && request.baselineSources.empty())
    throw BadRequest("--baseline-place places the files of --baseline-source: give one");
  for (std::size_t i = 0; i < request.baselinePlaces.size(); ++i) {
    if (std::count(request.baselinePlaces.begin(), request.baselinePlaces.begin() + i,
                   request.baselinePlaces[i]) > 0)
      throw BadRequest(fmt::format("--baseline-place gives {} twice", request.baselinePlaces[i]));
  }
  std::vector<std::optional<int>> places(request.baselinePlaces.begin(),
                                         request.baselinePlaces.end());
  if (places.empty()) places.push_back(std::nullopt);
  for (const std::string& path : request.baselineSources) {
    for (const std::optional<int>& place : places) {
      set.sources.push_back(
          std::make_unique<SourceBaseline>(path, SourceKind::Sum, request.seed, place));
      const auto& source = *set.sources.back();
      if (source.copies()) {
        throw BadRequest(fmt::format(
            "--baseline-source {} is csum_partial_copy_generic: a baseline for copying kernels "
            "(--params ...,kind=copy)",
            path));
      }
      if (hooks.note && place == places.front()) hooks.note("note: " + slackNote(source));
      set.timed.push_back({source.name(), source.path(), TimedKind::BaselineSource, source.fn(),
                           functionSize(reinterpret_cast<const void*>(source.fn()))});
    }
  }
  for (const gen::Params& p : params) {
    set.jit.push_back(Jit::compile(p));  // refuses kernels the CPU cannot run (exit 2)
    set.timed.push_back(
        {p.toString(), p.toString(), TimedKind::Jit, set.jit.back().fn(), set.jit.back().size()});
  }
  // Every candidate is proven correct before it is timed.
  const VerifyFixture fixture(request.seed);
  for (const auto& k : set.timed) {
    if (k.kind == TimedKind::BaselineSource) continue;  // proven above, with its slack
    auto plan = quickPlan(256, request.seed);
    if (set.nonNegativeOnly.count(k.name)) plan = withoutNegativeLengths(std::move(plan));
    const auto outcome = verifyKernel(k.fn, fixture, plan);
    if (!outcome.ok())
      throw CheckFailed(fmt::format("{} is wrong, not timing it: {}", k.name, *outcome.failure));
  }
  return set;
}

// A window of the contention monitor around every round of the interleaved measurement; every
// round is kept (bench does not wait for quiet: it says how busy the machine was).
class WatchedRounds : public RoundGate {
 public:
  explicit WatchedRounds(ContentionMonitor& monitor) : monitor_(monitor) {}
  void roundStarts() override { window_ = monitor_.open(); }
  bool keepRound() override {
    monitor_.close(window_, false);
    return true;
  }

 private:
  ContentionMonitor& monitor_;
  Window window_;
};

WorkloadConfig workloadConfigOf(const HostBenchRequest& request) {
  WorkloadConfig config;
  config.cache = request.cache;
  config.setSizeBytes = static_cast<std::size_t>(request.setSizeMb) << 20;
  config.offset = request.offset;
  config.seed = request.seed;
  const int maxSize = *std::max_element(request.sizes.begin(), request.sizes.end());
  if (config.cache == CacheState::Cold &&
      config.setSizeBytes < 2 * (static_cast<std::size_t>(maxSize) + 128)) {
    throw BadRequest(fmt::format("--set-size {} MB is too small for {}-byte buffers",
                                 request.setSizeMb, maxSize));
  }
  return config;
}

// Where code sits is what --same-address decides for every kernel, round by round: refused
// before anything is built when the request also fixes it.
void refusePlacesWithSharedAddresses(const HostBenchRequest& request) {
  if (!request.sameAddress) return;
  if (!request.baselinePlaces.empty()) {
    throw BadRequest(
        "--same-address puts every kernel at each round's address: --baseline-place "
        "(the file at fixed places in a line) cannot go with it");
  }
  for (const gen::Params& p : request.params) {
    if (p.place != 0) {
      throw BadRequest(
          fmt::format("--same-address puts every kernel at each round's address: "
                      "{} asks for place={}",
                      p.toString(), p.place));
    }
  }
}

// Under --same-address: the kernels whose code runs the same from elsewhere are marked
// movable; the others (code that refers to data or code outside its bytes) are named.
std::unique_ptr<SharedAddresses> shareAddresses(const HostBenchRequest& request, KernelSet& kernels,
                                                BenchSetup& setup, const HostBenchHooks& hooks) {
  if (!request.sameAddress) return nullptr;
  std::unique_ptr<SharedAddresses> addresses;
  try {
    addresses = std::make_unique<SharedAddresses>(request.seed);
  } catch (const std::runtime_error& e) {
    throw BadRequest(fmt::format("--same-address: {}", e.what()));
  }
  setup.sharedAddresses = true;
  for (TimedKernel& k : kernels.timed) {
    if (k.call != TimedKernel::Call::Sum) {
      throw BadRequest("--same-address moves summing kernels; copying runs time them in place");
    }
    if (k.bytes == 0) k.bytes = functionSize(reinterpret_cast<const void*>(k.fn));
    if (const auto whyNot = addresses->whyNotMovable(k)) {
      setup.keptInPlace.push_back(k.name);
      if (hooks.note)
        hooks.note(fmt::format("note: {} is timed where it was built: {}", k.name, *whyNot));
    } else {
      k.movable = true;
    }
  }
  return addresses;
}

}  // namespace

BenchReport benchOnHost(const HostBenchRequest& request, const HostBenchHooks& hooks) {
  if (request.sizes.empty()) throw BadRequest("bench needs at least one buffer length");
  MeasureConfig config;
  config.sizes = request.sizes;
  config.repeat = request.repeat;
  config.serialize = request.latency;
  config.targetBatchTicks = request.batchTicks;
  const WorkloadConfig workloadConfig = workloadConfigOf(request);

  refusePlacesWithSharedAddresses(request);
  KernelSet kernels = prepareKernels(request, hooks);

  const int cpu = request.cpu >= 0 ? request.cpu : defaultBenchCpu();
  if (auto error = pinToCpu(cpu)) throw BadRequest(*error);
  BenchSetup setup;
  const auto addresses = shareAddresses(request, kernels, setup, hooks);
  config.addresses = addresses.get();
  setup.pinnedCpu = cpu;
  setup.warnings = frequencyWarnings(cpu);
  for (const auto& w : setup.warnings)
    if (hooks.note) hooks.note("warning: " + w);

  std::string whyNotPerf;
  auto timer = makeTimer(request.tsc, &whyNotPerf);
  if (timer->unit() != "cycles" && !whyNotPerf.empty()) {
    setup.warnings.push_back("no hardware cycle counter (" + whyNotPerf +
                             "): figures are TSC ticks");
  }
  const int maxSize = *std::max_element(config.sizes.begin(), config.sizes.end());
  Workload workload(workloadConfig, static_cast<std::size_t>(maxSize));

  setup.unit = timer->unit();
  setup.timerSource = timer->source();
  setup.timerOverhead = timer->overhead();
  setup.cpu = hostCpu();
  setup.cache = workloadConfig.cache;
  setup.setSizeBytes = workload.setSize();
  setup.offset = request.offset;
  setup.serialized = request.latency;
  setup.repeat = request.repeat;
  setup.sizes = config.sizes;
  setup.clock = measureClockRates(*timer);

  // Contention, watched as tune watches it: probes before and after, a window around every
  // round (run-queue wait, steal); the verdict goes into every format.
  HostContentionSource contentionSource(cpu, *timer, linuxV68Baseline().fn);
  ContentionSettings contention;
  useQuietReference(contention, cpuKey(setup.cpu));
  ContentionMonitor monitor(contentionSource, contention);
  WatchedRounds rounds(monitor);
  config.gate = &rounds;
  monitor.beginPhase("bench");
  auto samples = measureInterleaved(kernels.timed, config, *timer, workload,
                                    [&](std::size_t done, std::size_t total) {
                                      if (hooks.progress) hooks.progress(done, total);
                                    });
  setup.contention = monitor.finish();
  rememberQuietReference(contention.quietReferenceFile, setup.contention->quietestLoadsPerChain);
  // The first row is what the others are compared with: linux-v6.8 when the baselines run
  // (plain C comes first in the table), else the first kernel given.
  std::optional<std::string> baseline;
  if (kernels.timed.front().kind == TimedKind::BaselineC) {
    baseline = kLinuxV68Name;
  } else if (kernels.timed.size() > 1) {
    baseline = kernels.timed.front().name;
  }
  return buildBenchReport(setup, samples, baseline);
}

InstructionTable countOnHost(const HostBenchRequest& request, const HostBenchHooks& hooks) {
  if (request.sizes.empty()) throw BadRequest("bench needs at least one buffer length");
  const KernelSet kernels = prepareKernels(request, hooks);
  InstructionTable table;
  table.cpu = hostCpu();
  table.sizes = request.sizes;
  table.offset = request.offset;
  InstructionCountRequest count;
  count.sizes = request.sizes;
  count.offset = request.offset;
  count.seed = request.seed;
  for (const TimedKernel& kernel : kernels.timed) {
    if (kernel.call == TimedKernel::Call::MemcpyThenSum) {
      table.notCounted.push_back(kernel.name + " (memcpy is the C library's)");
      continue;
    }
    try {
      InstructionRow row{kernel.name, kernel.params, toString(kernel.kind), kernel.bytes, {}, {}};
      for (const CallCount& call : countCalls(kernel, count)) {
        row.counts.push_back(call.instructions);
        row.taken.push_back(call.takenBranches);
      }
      table.rows.push_back(std::move(row));
    } catch (const InstructionCountError& e) {
      throw BadRequest(e.what());
    }
  }
  return table;
}

}  // namespace csumtune::tuner
