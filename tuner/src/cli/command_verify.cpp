// csumtune verify (--params P | --all) [--quick]: prove kernels against the reference.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli_support.hpp"
#include "commands.hpp"
#include "csumtune/cpu.hpp"
#include "csumtune/jit.hpp"
#include "verify/verify.hpp"

namespace csumtune::cli {
namespace {

struct VerifyOptions {
  std::vector<std::string> params;
  bool all = false;
  bool quick = false;
  bool kernelSafe = false;
  bool frames = false;
  std::string kind = "sum";  // --all: the space's kernels as summing or as copying ones
  unsigned threads = 0;
  std::uint64_t seed = 0x5eed;
};

struct Tally {
  std::atomic<std::size_t> done{0};
  std::atomic<std::size_t> skipped{0};
  std::atomic<std::uint64_t> calls{0};
  std::mutex failuresMutex;
  std::vector<std::string> failures;
};

tuner::VerifyPlan planFor(const VerifyOptions& options, const gen::Params& params) {
  return options.quick ? tuner::quickPlan(params.blockBytes(), options.seed)
                       : tuner::fullPlan(options.seed);
}

// Compiles and verifies one kernel. Returns false when it failed (reported in the tally).
bool verifyOne(const VerifyOptions& options, const gen::Params& params,
               const tuner::VerifyFixture& fixture, Tally& tally) {
  std::string failure;
  try {
    const Kernel kernel = Jit::compile(params);
    const auto plan = planFor(options, params);
    const auto outcome = kernel.copies() ? tuner::verifyCopyKernel(kernel.copyFn(), fixture, plan)
                                         : tuner::verifyKernel(kernel.fn(), fixture, plan);
    tally.calls += outcome.calls;
    if (outcome.ok()) return true;
    failure = *outcome.failure;
  } catch (const Error& e) {
    failure = e.what();
  }
  std::lock_guard lock(tally.failuresMutex);
  tally.failures.push_back(fmt::format("FAIL  {}: {}", params.toString(), failure));
  return false;
}

void verifyListed(const VerifyOptions& options) {
  std::vector<gen::Params> kernels;
  for (const std::string& text : options.params) {
    kernels.push_back(parseParamsOption(text));
    if (auto missing = missingFeatures(kernels.back()); !missing.empty()) {
      throw UsageError(fmt::format("{} needs {}, which this CPU does not have; not run",
                                   kernels.back().toString(), gen::toString(missing.front())));
    }
  }
  const tuner::VerifyFixture fixture(options.seed);
  Tally tally;
  for (const gen::Params& params : kernels) {
    const auto before = tally.calls.load();
    if (verifyOne(options, params, fixture, tally)) {
      fmt::print("ok    {}  ({} calls, {} plan)\n", params.toString(), tally.calls - before,
                 options.quick ? "quick" : "full");
    } else {
      fmt::print("{}\n", tally.failures.back());
    }
    std::fflush(stdout);
  }
  if (!tally.failures.empty()) {
    throw CheckFailed(
        fmt::format("{} of {} kernels failed", tally.failures.size(), kernels.size()));
  }
}

// --frames: every short-path variant of every loop shape (each shape once, at a prefetch
// setting of its own), with exact paths for a spread of lengths.
std::vector<gen::Params> frameSpace(bool kernelSafe) {
  std::vector<gen::Params> out;
  std::set<std::string> shapes;
  for (const gen::Params& p : gen::enumerateSpace({kernelSafe, true})) {
    const std::string shape = fmt::format("{}/{}/{}", gen::toString(p.carry), p.chains, p.unroll);
    if (!shapes.insert(shape).second) continue;
    gen::Params loop = p;
    loop.prefetch = static_cast<int>((shapes.size() * 7) % 65) * gen::ParamLimits::kPrefetchStep;
    loop.hint = static_cast<gen::Hint>(shapes.size() % gen::kHintCount);
    for (const gen::Params& v : gen::frameVariants(loop, tuner::kFrameCheckLengths))
      out.push_back(v);
  }
  return out;
}

// --kind copy: the kernels of `space` that can copy, as copying kernels.
std::vector<gen::Params> asKind(std::vector<gen::Params> space, const std::string& kind) {
  if (kind == "sum") return space;
  for (gen::Params& p : space) p.kind = gen::Kind::Copy;
  std::erase_if(space, [](const gen::Params& p) { return !gen::validationError(p).empty(); });
  return space;
}

void verifyAll(const VerifyOptions& options) {
  const bool generalOnly = options.kernelSafe;
  const auto points = asKind(gen::enumerateSpace({generalOnly, false}), options.kind).size();
  const auto space =
      asKind(options.frames ? frameSpace(generalOnly) : gen::enumerateSpace({generalOnly, true}),
             options.kind);
  const tuner::VerifyFixture fixture(options.seed);
  Tally tally;
  std::atomic<std::size_t> next{0};
  const bool progress = isatty(STDERR_FILENO);
  const auto start = std::chrono::steady_clock::now();

  auto worker = [&] {
    for (std::size_t i = next++; i < space.size(); i = next++) {
      if (!missingFeatures(space[i]).empty()) {
        ++tally.skipped;
      } else {
        verifyOne(options, space[i], fixture, tally);
      }
      const std::size_t done = ++tally.done;
      if (progress && (done % 256 == 0 || done == space.size())) {
        std::fprintf(stderr, "\rverify: %zu/%zu kernels, %zu failed", done, space.size(),
                     tally.failures.size());
      }
    }
  };
  const unsigned threads =
      options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (auto& thread : pool) thread.join();
  if (progress) std::fprintf(stderr, "\n");

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& failure : tally.failures) fmt::print("{}\n", failure);
  if (options.frames) {
    fmt::print("{} space{}, every short-path variant of every loop shape: {} distinct kernels\n",
               generalOnly ? "kernel-safe" : "full",
               options.kind == "copy" ? " as copying kernels" : "", space.size());
  } else {
    fmt::print(
        "{} space{}: {} parameter points, {} distinct kernels (prefetch=0 is the same code for "
        "every hint)\n",
        generalOnly ? "kernel-safe" : "full", options.kind == "copy" ? " as copying kernels" : "",
        points, space.size());
  }
  fmt::print("verified {} kernels ({} plan, {} calls) in {:.1f} s on {} threads: {} failed",
             space.size() - tally.skipped, options.quick ? "quick" : "full", tally.calls.load(),
             seconds, threads, tally.failures.size());
  if (tally.skipped)
    fmt::print(", {} skipped (CPU lacks a feature they need)", tally.skipped.load());
  fmt::print("\n");
  if (!tally.failures.empty()) {
    throw CheckFailed(fmt::format("{} kernels failed verification", tally.failures.size()));
  }
}

}  // namespace

void addVerifyCommand(CLI::App& app) {
  auto options = std::make_shared<VerifyOptions>();
  auto* cmd = app.add_subcommand(
      "verify",
      "Check kernels against the plain reference (lengths, alignments, data, initial "
      "sums, guard pages; copying kernels: the copy too). Exit 1 on any wrong sum, wrong copy, "
      "stray read or stray write");
  auto* params =
      cmd->add_option("--params", options->params,
                      "Kernel to verify, e.g. carry=adc,chains=4,unroll=16 (repeatable)");
  auto* all = cmd->add_flag("--all", options->all, "Verify every kernel of the parameter space");
  params->excludes(all);
  cmd->add_flag("--quick", options->quick,
                "Quick plan: every tail path and loop count, fewer alignments and lengths");
  cmd->add_flag("--frames", options->frames,
                fmt::format("With --all: every short-path variant (tail, sum, entry, short, "
                            "tailchains, exact={}) of every loop shape instead of every prefetch "
                            "setting",
                            fmt::join(tuner::kFrameCheckLengths, ",")));
  cmd->add_flag("--kernel-safe", options->kernelSafe,
                "With --all: only kernels that may run in the Linux kernel");
  cmd->add_option("--kind", options->kind,
                  "With --all: the kernels as summing (sum, default) or as copying ones (copy: "
                  "every family but avx512vnni)")
      ->check(CLI::IsMember({"sum", "copy"}));
  cmd->add_option("--threads", options->threads, "Worker threads for --all (default: all CPUs)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--seed", options->seed, "Seed for random data, sums and lengths")
      ->check(unsigned64());
  cmd->callback([options] {
    if (dryRun()) return;
    if (!options->all && options->params.empty()) {
      throw UsageError("verify needs --params P or --all");
    }
    if (!options->all && options->kind != "sum") {
      throw UsageError("--kind goes with --all; with --params, say kind=copy in the params");
    }
    if (options->all) {
      verifyAll(*options);
    } else {
      verifyListed(*options);
    }
  });
}

}  // namespace csumtune::cli
