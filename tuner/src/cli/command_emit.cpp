// csumtune emit (--params P | --results FILE) [--style kernel|gas] [--symbol NAME] [--binary]
//               [-o FILE]
// csumtune emit --library --results RUN... [--fallback P] [--symbol NAME] -o DIR
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "atomic_file.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "csumtune/gen/kernel_program.hpp"
#include "library/library_files.hpp"
#include "report/results_file.hpp"
#include "source_file.hpp"

namespace csumtune::cli {
namespace {

struct EmitOptions {
  std::string params;
  std::vector<std::string> results;  // one, or with --library one per CPU
  bool library = false;
  std::string fallback;
  tuner::SourceStyle style = tuner::SourceStyle::Kernel;
  bool styleGiven = false;
  std::string symbol;  // empty: csum_partial, or csum_and_copy for kind=copy
  bool binary = false;
  std::string output;
};

// A word as a shell reads it back: as it is when it holds nothing the shell would take apart.
std::string shellWord(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_./=,:+-") == std::string::npos;
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The command line that writes the same library again.
std::string libraryCommand(const EmitOptions& options) {
  std::string command = "csumtune emit --library";
  for (const auto& results : options.results) command += " --results " + shellWord(results);
  if (!options.fallback.empty()) command += " --fallback " + shellWord(options.fallback);
  if (!options.symbol.empty()) command += " --symbol " + shellWord(options.symbol);
  return command + " -o " + shellWord(options.output);
}

void runEmitLibrary(const EmitOptions& options) {
  if (options.results.empty())
    throw tuner::BadRequest("emit --library needs --results RUN, one per CPU");
  if (options.output.empty() || options.output == "-")
    throw tuner::BadRequest("emit --library writes a folder of files: name it with -o DIR");
  if (options.styleGiven || options.binary)
    throw tuner::BadRequest(
        "emit --library writes gas-style assembler text: drop --style/--binary");
  tuner::LibraryRequest request;
  request.variants = tuner::readLibraryVariants(options.results);
  request.fallback =
      options.fallback.empty() ? tuner::defaultFallback() : parseParamsOption(options.fallback);
  if (!options.symbol.empty()) request.symbol = options.symbol;
  request.command = libraryCommand(options);
  try {
    tuner::writeLibraryFolder(options.output, request);
  } catch (const gen::ParamsError& e) {
    throw tuner::BadRequest(e.what());
  }
  for (const auto& v : request.variants)
    std::cerr << fmt::format("{}: {} ({})\n", v.cpuKey, v.source.params.toString(), v.resultsPath);
  std::cerr << fmt::format("portable: {}\nwrote {}/ (build it there with make)\n",
                           request.fallback.toString(), options.output);
}

void runEmit(const EmitOptions& options) {
  if (options.library) return runEmitLibrary(options);
  if (!options.fallback.empty()) throw tuner::BadRequest("--fallback goes with --library");
  if (options.params.empty() == options.results.empty())
    throw tuner::BadRequest("emit needs --params P or --results FILE");
  if (options.results.size() > 1)
    throw tuner::BadRequest("emit takes one --results FILE (several go with --library)");
  tuner::SourceRequest request;
  if (!options.results.empty()) {
    // The run's winner as its winner.S: style, symbol, where and how it was tuned.
    request = tuner::readWinnerSource(options.results.front());
  } else {
    request.params = parseParamsOption(options.params);
  }
  if (options.styleGiven || options.results.empty()) request.style = options.style;
  if (!options.symbol.empty()) {
    request.symbol = options.symbol;
  } else if (options.styleGiven || options.results.empty()) {
    request.symbol = tuner::defaultSymbol(request.params, request.style);
  }

  std::string content;
  try {
    if (options.binary) {
      // The function's bytes exactly as the JIT places them (for kind=copy in kernel style,
      // the kernel's signature: the .S of that style holds these bytes, then its fixups).
      gen::KernelProgram program(request.params,
                                 tuner::programOptions(request.params, request.style));
      const auto bytes = program.bytes();
      content.assign(bytes.begin(), bytes.end());
    } else {
      content = tuner::renderSource(request);
    }
  } catch (const gen::ParamsError& e) {
    throw tuner::BadRequest(e.what());
  }

  writeOutput(options.output, content, options.binary);
}

}  // namespace

void addEmitCommand(CLI::App& app) {
  auto options = std::make_shared<EmitOptions>();
  auto* cmd = app.add_subcommand(
      "emit",
      "Write a kernel as a GNU assembler .S file (kernel or user-space style) or as raw "
      "machine code identical to the JIT's");
  auto* params = cmd->add_option("--params", options->params,
                                 "Kernel parameters, e.g. carry=adc,chains=4,unroll=16");
  auto* results = cmd->add_option(
      "--results", options->results,
      "A results.json: its winner as the run wrote winner.S (its style, symbol and header); "
      "with --library, repeated: a results.json or run folder per CPU");
  params->excludes(results);
  auto* library = cmd->add_flag(
      "--library", options->library,
      "Write an ahead-of-time library into the folder -o DIR: each --results run's winner and a "
      "portable body in one .S, a GNU IFUNC dispatcher, a C header, a pkg-config file");
  library->excludes(params);
  cmd->add_option("--fallback", options->fallback,
                  "With --library: the portable body's params (default carry=adc), which must "
                  "run on every x86-64 CPU");
  addChoice(cmd, "--style", options->style, kStyles,
            "kernel (Linux arch/x86/lib) or gas (user space); with --results: the run's")
      ->each([options](const std::string&) { options->styleGiven = true; });
  cmd->add_option(
         "--symbol", options->symbol,
         "Function name (default csum_partial; for kind=copy csum_and_copy, in kernel style "
         "csum_partial_copy_generic)")
      ->check(CLI::Validator(
          [](const std::string& value) {
            return value.empty() ? std::string("an empty name names no function") : "";
          },
          "NAME"));
  cmd->add_flag("--binary", options->binary,
                "Raw machine code, the bytes the JIT runs, instead of assembler text");
  // The old spelling of --binary: --format meant s or bin here before every verb's --format
  // came to mean text, json, csv.
  cmd->add_option_function<std::string>(
         "--format", [options](const std::string& value) { options->binary = value == "bin"; },
         "Old spelling: --format bin is --binary, --format s assembler text (the default)")
      ->check(CLI::IsMember({"s", "bin"}));
  cmd->add_option("-o,--out,--output", options->output, "Output file (default: standard output)");
  cmd->callback([options] {
    if (!dryRun()) runEmit(*options);
  });
}

}  // namespace csumtune::cli
