// csumtune bench [--params P]... [--baseline] [--sizes LIST] [--cache hot|cold]
//                [--set-size MB] [--offset N] [--repeat N] [--cpu N] [--format F] [-o FILE]
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <set>

#include <fmt/format.h>

#include "atomic_file.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "csumtune/cpu.hpp"
#include "csumtune/jit.hpp"
#include "measure/baselines.hpp"
#include "measure/code_size.hpp"
#include "measure/placement.hpp"
#include "measure/timed_kernels.hpp"
#include "report/bench_report.hpp"
#include "size_lists.hpp"
#include "verify/verify.hpp"

namespace csumtune::cli {
namespace {

struct BenchOptions {
  std::vector<std::string> params;
  bool baseline = false;
  std::string sizes = "40,64,576,1500,4096,9000,65536";
  std::string cache = "hot";
  int setSizeMb = 256;
  int offset = 0;
  int repeat = 1001;
  double batch = 400000;
  int cpu = -1;
  bool tsc = false;
  bool latency = false;
  std::string format = "table";
  std::string output;
  std::uint64_t seed = 1;
  std::vector<std::string> baselineSources;
  std::vector<std::string> twoPass;  // copying runs: memcpy + these summing kernels
};

// Compiled kernels must stay alive while timed: they own their code.
struct KernelSet {
  std::vector<Kernel> jit;
  std::vector<tuner::TimedKernel> timed;
  std::set<std::string> nonNegativeOnly;  // Linux's code: verified for len >= 0
  std::vector<std::unique_ptr<tuner::SourceBaseline>> sources;  // --baseline-source
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
KernelSet prepareCopyKernels(const BenchOptions& options, const std::vector<gen::Params>& params) {
  KernelSet set;
  for (const gen::Params& p : params) {
    if (p.kind != gen::Kind::Copy) {
      throw UsageError("bench times summing or copying kernels (kind=copy), not both in one run");
    }
  }
  using Call = tuner::TimedKernel::Call;
  // --baseline-source: a tree's csum-copy_64.S itself, assembled unmodified.
  for (const std::string& path : options.baselineSources) {
    set.sources.push_back(
        std::make_unique<tuner::SourceBaseline>(path, tuner::SourceKind::Copy, options.seed));
    const auto& source = *set.sources.back();
    if (!source.copies()) {
      throw UsageError(
          fmt::format("--baseline-source {} is a csum_partial file: copying kernels take a tree's "
                      "arch/x86/lib/csum-copy_64.S",
                      path));
    }
    tuner::TimedKernel timed = tuner::timedBaseline(source.baseline());
    timed.params = source.path();
    set.timed.push_back(timed);
  }
  // memcpy, then `summing` over the copy: the two-pass way to do a copying kernel's job.
  const auto addTwoPass = [&set](const gen::Params& summing) {
    set.jit.push_back(Jit::compile(summing));
    tuner::TimedKernel twoPass{"memcpy+" + summing.toString(), summing.toString(),
                               "baseline-two-pass", set.jit.back().fn(), set.jit.back().size()};
    twoPass.call = Call::MemcpyThenSum;
    set.timed.push_back(twoPass);
  };
  if (options.baseline) {
    set.timed.push_back(tuner::timedBaseline(tuner::copyReferenceBaseline()));
    // The floor: what the loads and stores alone cost (no sum). Not a checksum: not verified.
    set.timed.push_back(tuner::timedBaseline(tuner::copyBoundBaseline()));
  }
  for (const gen::Params& p : params) {
    set.jit.push_back(Jit::compile(p));  // refuses kernels the CPU cannot run (exit 2)
    tuner::TimedKernel copy = tuner::timedKernel(set.jit.back(), p.toString());
    copy.params = p.toString();  // as given, like the summing kernels' rows
    set.timed.push_back(copy);
    if (!options.baseline) continue;
    gen::Params summing = p;
    summing.kind = gen::Kind::Sum;
    addTwoPass(summing);
  }
  // --two-pass P: memcpy followed by a summing kernel of the caller's choice (a tuned winner).
  for (const std::string& text : options.twoPass) {
    const gen::Params summing = parseParamsOption(text);
    if (summing.kind != gen::Kind::Sum) {
      throw UsageError("--two-pass takes a summing kernel (kind=sum): memcpy does the copying");
    }
    addTwoPass(summing);
  }
  // Every candidate is proven correct before it is timed: the copy as a copy, the two-pass
  // one's summing kernel as a sum (memcpy is the C library's).
  const tuner::VerifyFixture fixture(options.seed);
  const auto plan = tuner::quickPlan(256, options.seed);
  for (const auto& k : set.timed) {
    if (k.kind == "baseline-source") continue;  // proven above, through its adapter
    if (k.kind == "bound") {
      // Not a checksum, but it must copy: checked as a copy, its sum ignored.
      if (const int len = firstMiscopiedLength(k.copyFn); len >= 0)
        throw CheckFailed(fmt::format("{} copies {} bytes wrongly", k.name, len));
      continue;
    }
    const auto outcome = k.call == Call::Copy ? tuner::verifyCopyKernel(k.copyFn, fixture, plan)
                                              : tuner::verifyKernel(k.fn, fixture, plan);
    if (!outcome.ok())
      throw CheckFailed(fmt::format("{} is wrong, not timing it: {}", k.name, *outcome.failure));
  }
  return set;
}

KernelSet prepareKernels(const BenchOptions& options) {
  KernelSet set;
  std::vector<gen::Params> params;
  for (const std::string& text : options.params) params.push_back(parseParamsOption(text));
  if (std::any_of(params.begin(), params.end(),
                  [](const gen::Params& p) { return p.kind == gen::Kind::Copy; })) {
    return prepareCopyKernels(options, params);
  }
  if (!options.twoPass.empty()) {
    throw UsageError("--two-pass goes with copying kernels (--params ...,kind=copy)");
  }
  const bool baselines = options.baseline || params.empty();
  if (params.empty()) params.push_back(gen::Params{});
  if (baselines) {
    for (const tuner::Baseline& b : tuner::builtinBaselines()) {
      set.timed.push_back(
          {b.name, "", b.kind, b.fn, tuner::functionSize(reinterpret_cast<const void*>(b.fn))});
      if (!b.acceptsNegativeLength) set.nonNegativeOnly.insert(b.name);
    }
    set.jit.push_back(Jit::compile(tuner::linuxLikeParams()));
    set.timed.push_back({tuner::kLinuxLikeName, set.jit.back().canonical(), "baseline-ours",
                         set.jit.back().fn(), set.jit.back().size()});
  }
  for (const std::string& path : options.baselineSources) {
    set.sources.push_back(
        std::make_unique<tuner::SourceBaseline>(path, tuner::SourceKind::Sum, options.seed));
    const auto& source = *set.sources.back();
    if (source.copies()) {
      throw UsageError(fmt::format(
          "--baseline-source {} is csum_partial_copy_generic: a baseline for copying kernels "
          "(--params ...,kind=copy)",
          path));
    }
    noteSourceSlack(source, false);
    set.timed.push_back({source.name(), source.path(), "baseline-source", source.fn(),
                         tuner::functionSize(reinterpret_cast<const void*>(source.fn()))});
  }
  for (const gen::Params& p : params) {
    set.jit.push_back(Jit::compile(p));  // refuses kernels the CPU cannot run (exit 2)
    set.timed.push_back(
        {p.toString(), p.toString(), "jit", set.jit.back().fn(), set.jit.back().size()});
  }
  // Every candidate is proven correct before it is timed.
  const tuner::VerifyFixture fixture(options.seed);
  for (const auto& k : set.timed) {
    if (k.kind == "baseline-source") continue;  // proven above, with its slack
    auto plan = tuner::quickPlan(256, options.seed);
    if (set.nonNegativeOnly.count(k.name)) plan = tuner::withoutNegativeLengths(std::move(plan));
    const auto outcome = tuner::verifyKernel(k.fn, fixture, plan);
    if (!outcome.ok())
      throw CheckFailed(fmt::format("{} is wrong, not timing it: {}", k.name, *outcome.failure));
  }
  return set;
}

void runBench(const BenchOptions& options) {
  checkOutput(options.output);
  tuner::MeasureConfig config;
  config.sizes = parseSizes(options.sizes);
  config.repeat = options.repeat;
  config.serialize = options.latency;
  config.targetBatchTicks = options.batch;
  tuner::WorkloadConfig workloadConfig;
  workloadConfig.cache = options.cache == "cold" ? tuner::CacheState::Cold : tuner::CacheState::Hot;
  workloadConfig.setSizeBytes = static_cast<std::size_t>(options.setSizeMb) << 20;
  workloadConfig.offset = options.offset;
  workloadConfig.seed = options.seed;
  const int maxSize = *std::max_element(config.sizes.begin(), config.sizes.end());
  if (workloadConfig.cache == tuner::CacheState::Cold &&
      workloadConfig.setSizeBytes < 2 * (static_cast<std::size_t>(maxSize) + 128)) {
    throw UsageError(fmt::format("--set-size {} MB is too small for {}-byte buffers",
                                 options.setSizeMb, maxSize));
  }

  KernelSet kernels = prepareKernels(options);

  const int cpu = options.cpu >= 0 ? options.cpu : tuner::defaultBenchCpu();
  if (auto error = tuner::pinToCpu(cpu)) throw UsageError(*error);
  tuner::BenchSetup setup;
  setup.pinnedCpu = cpu;
  setup.warnings = tuner::frequencyWarnings(cpu);
  for (const auto& w : setup.warnings) std::cerr << "csumtune: warning: " << w << "\n";

  std::string whyNotPerf;
  auto timer = tuner::makeTimer(options.tsc, &whyNotPerf);
  if (timer->unit() != "cycles" && !whyNotPerf.empty()) {
    setup.warnings.push_back("no hardware cycle counter (" + whyNotPerf +
                             "): figures are TSC ticks");
  }
  tuner::Workload workload(workloadConfig, static_cast<std::size_t>(maxSize));

  setup.unit = timer->unit();
  setup.timerSource = timer->source();
  setup.timerOverhead = timer->overhead();
  setup.cpu = hostCpu();
  setup.cache = workloadConfig.cache;
  setup.setSizeBytes = workload.setSize();
  setup.offset = options.offset;
  setup.serialized = options.latency;
  setup.repeat = options.repeat;
  setup.sizes = config.sizes;
  setup.clock = tuner::measureClockRates(*timer);

  const bool progress = isatty(STDERR_FILENO);
  auto samples = tuner::measureInterleaved(
      kernels.timed, config, *timer, workload, [&](std::size_t done, std::size_t total) {
        if (progress) std::fprintf(stderr, "\rbench: %zu/%zu samples", done, total);
      });
  if (progress) std::fprintf(stderr, "\r%40s\r", "");

  std::optional<std::string> baseline;
  if (kernels.timed.front().kind == "baseline-c") {
    baseline = tuner::kReferenceName;
  } else if (kernels.timed.size() > 1) {
    baseline = kernels.timed.front().name;
  }
  const auto report = tuner::buildBenchReport(setup, samples, baseline);
  std::string text;
  if (options.format == "seed")
    text = tuner::formatSeed(report);
  else if (options.format == "json")
    text = tuner::formatJson(report);
  else if (options.format == "csv")
    text = tuner::formatCsv(report);
  else
    text = tuner::formatTable(report);

  writeOutput(options.output, text);
}

}  // namespace

void addBenchCommand(CLI::App& app) {
  auto options = std::make_shared<BenchOptions>();
  auto* cmd = app.add_subcommand(
      "bench", "Time kernels on this CPU (pinned, interleaved, verified first); median ± spread");
  cmd->add_option("--params", options->params,
                  "Kernel to time (repeatable; default: the default params)");
  cmd->add_flag("--baseline", options->baseline,
                "Also time plain-c, linux-v6.8 (the reference), linux-v5.17 and linux-like (our "
                "frame around the kernel's loop shape, carry=adc,chains=2,unroll=10) in the same "
                "run");
  cmd->add_option("--baseline-source", options->baselineSources,
                  "Also time a kernel tree's own arch/x86/lib/csum-partial_64.c (copying kernels: "
                  "csum-copy_64.S), built for user space against stand-in headers: the file, the "
                  "tree's top directory or a source archive such as "
                  "/usr/src/linux-source-6.12.tar.xz (repeatable)");
  cmd->add_option("--two-pass", options->twoPass,
                  "With copying kernels (kind=copy): also time memcpy followed by this summing "
                  "kernel, e.g. a tuned winner (repeatable)");
  cmd->add_option("--sizes", options->sizes, "Buffer lengths in bytes, comma-separated")
      ->capture_default_str();
  cmd->add_option("--cache", options->cache,
                  "hot (same buffer) or cold (random positions in a large set)")
      ->check(CLI::IsMember({"hot", "cold"}))
      ->capture_default_str();
  cmd->add_option("--set-size", options->setSizeMb, "Cold set size in MiB")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--offset", options->offset, "Buffer alignment: buf mod 64")
      ->check(CLI::Range(0, 63))
      ->capture_default_str();
  cmd->add_option("--repeat", options->repeat, "Samples per kernel and size")
      ->check(CLI::Range(5, 100000))
      ->capture_default_str();
  cmd->add_option("--batch", options->batch,
                  "Timer units a sample (a batch of calls) lasts at least, for the fastest kernel")
      ->check(finiteIn(1000.0, 1e10))
      ->capture_default_str();
  cmd->add_option("--cpu", options->cpu,
                  "CPU to pin to (default: the last one this process may use)")
      ->check(CLI::Range(0, 4095));
  cmd->add_flag("--latency", options->latency,
                "Serialize calls: each buffer address waits for the previous result (no overlap)");
  cmd->add_flag("--tsc", options->tsc, "Use the TSC even when hardware cycles are available");
  cmd->add_option("--format", options->format,
                  "table, seed (length | Set Sz | iterations | cycles/byte), json, csv")
      ->check(CLI::IsMember({"table", "seed", "json", "csv"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", options->output, "Write to FILE instead of standard output");
  cmd->add_option("--seed", options->seed, "Seed for data and cold positions")
      ->check(unsigned64())
      ->capture_default_str();
  cmd->callback([options] {
    if (!dryRun()) runBench(*options);
  });
}

}  // namespace csumtune::cli
