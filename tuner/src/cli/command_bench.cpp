// csumtune bench [--params P]... [--results FILE]... [--candidates FILE [--profile NAME]...]
//                [--baseline] [--sizes LIST]
//                [--cache hot|cold] [--set-size MB] [--offset N] [--repeat N] [--cpu N]
//                [--format F] [-o FILE]
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "cli_support.hpp"
#include "commands.hpp"
#include "jobs/bench_candidates.hpp"
#include "jobs/bench_on_host.hpp"
#include "merge/candidate_list.hpp"
#include "merge/candidate_tables.hpp"
#include "report/bench_report.hpp"
#include "report/results_file.hpp"
#include "search/profile.hpp"
#include "size_lists.hpp"

namespace csumtune::cli {
namespace {

enum class BenchFormat { Table, Thread, Json, Csv };

// What the options fill: the request, and what needs a word of parsing first.
struct BenchOptions {
  tuner::HostBenchRequest request;
  std::vector<std::string> params;
  std::vector<std::string> results;  // runs whose winners to time
  std::string sizes = "40,64,576,1500,4096,9000,65536";
  bool sizesGiven = false;
  std::string candidates;             // the shared list (one params string a line)
  std::vector<std::string> profiles;  // with candidates: the profiles to score them on
  std::vector<std::string> twoPass;
  BenchFormat format = BenchFormat::Table;
  std::string output;
  bool countInstructions = false;
};

std::string formatted(const tuner::BenchReport& report, BenchFormat format) {
  switch (format) {
    case BenchFormat::Thread:
      return tuner::formatThreadTable(report);
    case BenchFormat::Json:
      return tuner::formatJson(report);
    case BenchFormat::Csv:
      return tuner::formatCsv(report);
    case BenchFormat::Table:
      break;
  }
  return tuner::formatTable(report);
}

std::vector<tuner::Profile> profilesNamed(const std::vector<std::string>& names) {
  std::vector<tuner::Profile> profiles;
  for (const std::string& name : names.empty() ? std::vector<std::string>{"kernel"} : names) {
    const auto profile = tuner::namedProfile(name);
    if (!profile) {
      std::string known;
      for (const std::string& n : tuner::profileNames()) known += (known.empty() ? "" : ", ") + n;
      throw tuner::BadRequest(fmt::format("unknown --profile '{}' (known: {})", name, known));
    }
    if (std::any_of(profiles.begin(), profiles.end(),
                    [&](const tuner::Profile& p) { return p.name == profile->name; }))
      throw tuner::BadRequest(fmt::format("--profile {} is given twice", profile->name));
    profiles.push_back(*profile);
  }
  return profiles;
}

// bench --candidates: the shared list and the reference at the profiles' sizes, and each
// candidate's speed-up over the reference per profile.
tuner::CandidateBench runCandidateBench(const BenchOptions& options,
                                        tuner::HostBenchRequest request,
                                        const tuner::HostBenchHooks& hooks) {
  if (options.sizesGiven)
    throw tuner::BadRequest("--candidates takes its sizes from --profile, not --sizes");
  if (!request.twoPass.empty())
    throw tuner::BadRequest("--candidates times candidates against the reference, not --two-pass");
  for (const gen::Params& p : tuner::readCandidateList(options.candidates))
    request.params.push_back(p);
  tuner::CandidateBenchRequest candidates{request, profilesNamed(options.profiles)};
  return tuner::benchCandidates(candidates, hooks);
}

// bench --count-instructions: the same rows, counted instead of timed.
void writeInstructionCounts(const BenchOptions& options, const tuner::HostBenchRequest& request,
                            const tuner::HostBenchHooks& hooks) {
  if (!options.candidates.empty())
    throw tuner::BadRequest("--count-instructions counts --params rows, not --candidates");
  const tuner::InstructionTable table = tuner::countOnHost(request, hooks);
  switch (options.format) {
    case BenchFormat::Json:
      return writeOutput(options.output, tuner::formatInstructionJson(table));
    case BenchFormat::Csv:
      return writeOutput(options.output, tuner::formatInstructionCsv(table));
    case BenchFormat::Thread:
      throw tuner::BadRequest("--count-instructions prints table, json or csv (not thread)");
    case BenchFormat::Table:
      break;
  }
  writeOutput(options.output, tuner::formatInstructionTable(table));
}

void runBench(const BenchOptions& options) {
  checkOutput(options.output);
  if (options.candidates.empty() && !options.profiles.empty())
    throw tuner::BadRequest("--profile goes with --candidates (plain bench takes --sizes)");
  tuner::HostBenchRequest request = options.request;
  if (options.candidates.empty()) request.sizes = parseSizes(options.sizes);
  for (const std::string& text : options.params) request.params.push_back(parseParamsOption(text));
  for (const std::string& path : options.results)
    request.params.push_back(tuner::readWinnerParams(path));
  for (const std::string& text : options.twoPass) {
    const gen::Params summing = parseParamsOption(text);
    if (summing.kind != gen::Kind::Sum) {
      throw tuner::BadRequest(
          "--two-pass takes a summing kernel (kind=sum): memcpy does the copying");
    }
    request.twoPass.push_back(summing);
  }
  const bool progress = isatty(STDERR_FILENO);
  tuner::HostBenchHooks hooks;
  hooks.note = [](const std::string& note) { std::cerr << "csumtune: " << note << "\n"; };
  if (request.sameAddress && (options.countInstructions || !options.candidates.empty())) {
    throw tuner::BadRequest(
        "--same-address goes with timed --params rows (not --count-instructions or "
        "--candidates)");
  }
  if (options.countInstructions) return writeInstructionCounts(options, request, hooks);
  hooks.progress = [progress](std::size_t done, std::size_t total) {
    if (progress) std::fprintf(stderr, "\rbench: %zu/%zu samples", done, total);
  };
  std::optional<tuner::CandidateBench> candidates;
  if (!options.candidates.empty()) candidates = runCandidateBench(options, request, hooks);
  const tuner::BenchReport report =
      candidates ? candidates->report : tuner::benchOnHost(request, hooks);
  if (progress) std::fprintf(stderr, "\r%40s\r", "");
  if (candidates && options.format == BenchFormat::Json) {
    writeOutput(options.output, tuner::formatCandidateBenchJson(*candidates));
  } else if (candidates && options.format == BenchFormat::Table) {
    writeOutput(options.output, formatted(report, options.format) +
                                    tuner::formatCandidatesText(candidates->tables));
  } else {
    writeOutput(options.output, formatted(report, options.format));
  }
  // Every format carries the verdict; a terminal user reading the table may still miss it.
  if (report.reliability.unreliable()) {
    std::cerr << "csumtune: warning: unreliable figures: " << report.reliability.problem()
              << "; measure again on a quiet machine\n";
  }
}

}  // namespace

void addBenchCommand(CLI::App& app) {
  auto options = std::make_shared<BenchOptions>();
  auto* cmd = app.add_subcommand(
      "bench", "Time kernels on this CPU (pinned, interleaved, verified first); median ± spread");
  cmd->add_option("--params", options->params,
                  "Kernel to time (repeatable; default: the default params)");
  cmd->add_option("--results", options->results,
                  "A results.json: time its winner too (repeatable)");
  cmd->add_flag("--baseline", options->request.baselines,
                "Also time plain-c, linux-v6.8 (the reference), linux-v5.17 and linux-like (our "
                "frame around the kernel's loop shape, carry=adc,chains=2,unroll=10) in the same "
                "run");
  cmd->add_option("--baseline-source", options->request.baselineSources,
                  "Also time a kernel tree's own arch/x86/lib/csum-partial_64.c (copying kernels: "
                  "csum-copy_64.S), built for user space against stand-in headers: the file, the "
                  "tree's top directory or a source archive such as "
                  "/usr/src/linux-source-6.12.tar.xz (repeatable)");
  cmd->add_option("--baseline-place", options->request.baselinePlaces,
                  "Build each --baseline-source file once for each of these entry offsets in a "
                  "64-byte line (0,16,32,48: where a link may put a 16-byte aligned function) "
                  "and time them all, to see how far the file itself moves with where it sits; "
                  "default: once, where the compiler puts it")
      ->delimiter(',')
      ->check(CLI::IsMember(gen::allPlacements()));
  cmd->add_option("--two-pass", options->twoPass,
                  "With copying kernels (kind=copy): also time memcpy followed by this summing "
                  "kernel, e.g. a tuned winner (repeatable)");
  cmd->add_option("--candidates", options->candidates,
                  "A shared list of kernels, one params string a line ('#' comments): time them "
                  "beside linux-v6.8 (linux-csum-copy for kind=copy) at the sizes of --profile "
                  "and give each one's speed-up per profile (in table and json; the json is what "
                  "merge reads)");
  cmd->add_option("--profile", options->profiles,
                  "With --candidates: a workload profile to score the candidates on (repeatable; "
                  "default kernel)");
  auto* sizes =
      cmd->add_option("--sizes", options->sizes,
                      "Buffer lengths in bytes, comma-separated; FROM-TO: every length in it")
          ->capture_default_str();
  addChoice(cmd, "--cache", options->request.cache, kCaches,
            "hot (same buffer) or cold (random positions in a large set)");
  cmd->add_option("--set-size", options->request.setSizeMb, "Cold set size in MiB")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->add_option("--offset", options->request.offset, "Buffer alignment: buf mod 64")
      ->check(CLI::Range(0, 63))
      ->capture_default_str();
  cmd->add_option("--repeat", options->request.repeat, "Samples per kernel and size")
      ->check(CLI::Range(5, 100000))
      ->capture_default_str();
  cmd->add_option("--batch", options->request.batchTicks,
                  "Timer units a sample (a batch of calls) lasts at least, for the fastest kernel")
      ->check(finiteIn(1000.0, 1e10))
      ->capture_default_str();
  cmd->add_option("--cpu", options->request.cpu,
                  "CPU to pin to (default: the last one this process may use)")
      ->check(CLI::Range(0, 4095));
  cmd->add_flag("--latency", options->request.latency,
                "Serialize calls: each buffer address waits for the previous result (no overlap)");
  cmd->add_flag("--same-address", options->request.sameAddress,
                "Each round, copy every kernel and baseline to one address drawn for that round "
                "and time it there: a short call moves by a cycle with where its code sits, so "
                "paired samples then compare code, not addresses (code that does not run the "
                "same from there stays where it was built, with a note)");
  cmd->add_flag("--count-instructions", options->countInstructions,
                "Count the instructions one call executes at each size instead of timing "
                "(each call single-stepped under ptrace in a child process; the same rows, "
                "verified first; table, json or csv)");
  cmd->add_flag("--tsc", options->request.tsc,
                "Use the TSC even when hardware cycles are available");
  addChoice(cmd, "--format", options->format,
            {{"table", BenchFormat::Table},
             {"text", BenchFormat::Table},
             {"thread", BenchFormat::Thread},
             {"seed", BenchFormat::Thread},
             {"json", BenchFormat::Json},
             {"csv", BenchFormat::Csv}},
            "table (text is the same); thread (the 2013 thread's table: length | Set Sz | "
            "iterations | cycles/byte; seed is its old name); json; csv");
  cmd->add_option("-o,--out,--output", options->output, "Write to FILE instead of standard output");
  cmd->add_option("--seed", options->request.seed, "Seed for data and cold positions")
      ->check(unsigned64())
      ->capture_default_str();
  cmd->callback([options, sizes] {
    options->sizesGiven = sizes->count() > 0;
    if (!dryRun()) runBench(*options);
  });
}

}  // namespace csumtune::cli
