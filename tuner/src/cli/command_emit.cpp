// csumtune emit (--params P | --results FILE) [--style kernel|gas] [--symbol NAME] [--binary]
//               [-o FILE]
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "atomic_file.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "csumtune/gen/kernel_program.hpp"
#include "report/results_file.hpp"
#include "source_file.hpp"

namespace csumtune::cli {
namespace {

struct EmitOptions {
  std::string params;
  std::string results;
  tuner::SourceStyle style = tuner::SourceStyle::Kernel;
  bool styleGiven = false;
  std::string symbol;  // empty: csum_partial, or csum_and_copy for kind=copy
  bool binary = false;
  std::string output;
};

void runEmit(const EmitOptions& options) {
  if (options.params.empty() == options.results.empty())
    throw tuner::BadRequest("emit needs --params P or --results FILE");
  tuner::SourceRequest request;
  if (!options.results.empty()) {
    // The run's winner as its winner.S: style, symbol, where and how it was tuned.
    request = tuner::readWinnerSource(options.results);
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
      "A results.json: its winner as the run wrote winner.S (its style, symbol and header)");
  params->excludes(results);
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
