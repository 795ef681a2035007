// csumtune verify (--params P | --all) [--quick]: prove kernels against the reference.
#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli_support.hpp"
#include "commands.hpp"
#include "csumtune/cpu.hpp"
#include "jobs/verify_kernels.hpp"
#include "verify/verify.hpp"

namespace csumtune::cli {
namespace {

struct VerifyOptions {
  std::vector<std::string> params;
  bool all = false;
  tuner::SpaceRequest space;  // --all: which kernels
  tuner::VerifySettings settings;
};

void verifyListed(const VerifyOptions& options) {
  std::vector<gen::Params> kernels;
  for (const std::string& text : options.params) {
    kernels.push_back(parseParamsOption(text));
    if (auto missing = missingFeatures(kernels.back()); !missing.empty()) {
      throw tuner::BadRequest(fmt::format("{} needs {}, which this CPU does not have; not run",
                                          kernels.back().toString(),
                                          gen::toString(missing.front())));
    }
  }
  std::size_t failed = 0;
  for (const gen::Params& params : kernels) {
    const tuner::KernelVerdict verdict = tuner::verifyOneKernel(params, options.settings);
    if (verdict.ok()) {
      fmt::print("ok    {}  ({} calls, {} plan)\n", params.toString(), verdict.calls,
                 options.settings.quick ? "quick" : "full");
    } else {
      ++failed;
      fmt::print("FAIL  {}: {}\n", params.toString(), verdict.failure);
    }
    std::fflush(stdout);
  }
  if (failed) {
    throw tuner::CheckFailed(fmt::format("{} of {} kernels failed", failed, kernels.size()));
  }
}

void verifyAll(const VerifyOptions& options) {
  const bool progress = isatty(STDERR_FILENO);
  const tuner::SpaceVerification result = tuner::verifySpace(
      options.space, options.settings,
      [progress](std::size_t done, std::size_t total, std::size_t failed) {
        if (progress)
          std::fprintf(stderr, "\rverify: %zu/%zu kernels, %zu failed", done, total, failed);
      });
  if (progress) std::fprintf(stderr, "\n");
  for (const auto& failure : result.failures) fmt::print("{}\n", failure);
  const char* space = options.space.kernelSafe ? "kernel-safe" : "full";
  const char* asCopies = options.space.kind == gen::Kind::Copy ? " as copying kernels" : "";
  if (options.space.frames) {
    fmt::print("{} space{}, every short-path variant of every loop shape: {} distinct kernels\n",
               space, asCopies, result.kernels);
  } else {
    fmt::print(
        "{} space{}: {} parameter points, {} distinct kernels (prefetch=0 is the same code for "
        "every hint)\n",
        space, asCopies, result.points, result.kernels);
  }
  fmt::print("verified {} kernels ({} plan, {} calls) in {:.1f} s on {} threads: {} failed",
             result.kernels - result.skipped, options.settings.quick ? "quick" : "full",
             result.calls, result.seconds, result.threads, result.failures.size());
  if (result.skipped) fmt::print(", {} skipped (CPU lacks a feature they need)", result.skipped);
  fmt::print("\n");
  if (!result.failures.empty()) {
    throw tuner::CheckFailed(fmt::format("{} kernels failed verification", result.failures.size()));
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
  cmd->add_flag("--quick", options->settings.quick,
                "Quick plan: every tail path and loop count, fewer alignments and lengths");
  cmd->add_flag("--frames", options->space.frames,
                fmt::format("With --all: every short-path variant (tail, sum, entry, short, "
                            "tailchains, exact={}) of every loop shape instead of every prefetch "
                            "setting",
                            fmt::join(tuner::kFrameCheckLengths, ",")));
  cmd->add_flag("--kernel-safe", options->space.kernelSafe,
                "With --all: only kernels that may run in the Linux kernel");
  addChoice(cmd, "--kind", options->space.kind, kKinds,
            "With --all: the kernels as summing (sum, default) or as copying ones (copy: "
            "every family but avx512vnni)");
  cmd->add_option("--threads", options->settings.threads,
                  "Worker threads for --all (default: all CPUs)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--seed", options->settings.seed, "Seed for random data, sums and lengths")
      ->check(unsigned64());
  cmd->callback([options] {
    if (dryRun()) return;
    if (!options->all && options->params.empty()) {
      throw tuner::BadRequest("verify needs --params P or --all");
    }
    if (!options->all && options->space.kind != gen::Kind::Sum) {
      throw tuner::BadRequest("--kind goes with --all; with --params, say kind=copy in the params");
    }
    if (options->all) {
      verifyAll(*options);
    } else {
      verifyListed(*options);
    }
  });
}

}  // namespace csumtune::cli
