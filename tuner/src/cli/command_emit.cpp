// csumtune emit --params P [--style kernel|gas] [--symbol NAME] [--format s|bin] [-o FILE]
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "atomic_file.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "csumtune/gen/kernel_program.hpp"
#include "source_file.hpp"

namespace csumtune::cli {
namespace {

struct EmitOptions {
  std::string params;
  std::string style = "kernel";
  std::string symbol;  // empty: csum_partial, or csum_and_copy for kind=copy
  std::string format = "s";
  std::string output;
};

void runEmit(const EmitOptions& options) {
  tuner::SourceRequest request;
  request.params = parseParamsOption(options.params);
  request.style = options.style == "gas" ? tuner::SourceStyle::Gas : tuner::SourceStyle::Kernel;
  request.symbol =
      options.symbol.empty() ? tuner::defaultSymbol(request.params, request.style) : options.symbol;

  std::string content;
  try {
    if (options.format == "bin") {
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

  writeOutput(options.output, content, options.format == "bin");
}

}  // namespace

void addEmitCommand(CLI::App& app) {
  auto options = std::make_shared<EmitOptions>();
  auto* cmd = app.add_subcommand(
      "emit",
      "Write a kernel as a GNU assembler .S file (kernel or user-space style) or as raw "
      "machine code identical to the JIT's");
  cmd->add_option("--params", options->params,
                  "Kernel parameters, e.g. carry=adc,chains=4,unroll=16")
      ->required();
  cmd->add_option("--style", options->style, "kernel (Linux arch/x86/lib) or gas (user space)")
      ->check(CLI::IsMember({"kernel", "gas"}));
  cmd->add_option(
         "--symbol", options->symbol,
         "Function name (default csum_partial; for kind=copy csum_and_copy, in kernel style "
         "csum_partial_copy_generic)")
      ->check(CLI::Validator(
          [](const std::string& value) {
            return value.empty() ? std::string("an empty name names no function") : "";
          },
          "NAME"));
  cmd->add_option("--format", options->format, "s (assembler text) or bin (raw bytes)")
      ->check(CLI::IsMember({"s", "bin"}));
  cmd->add_option("-o,--output", options->output, "Output file (default: standard output)");
  cmd->callback([options] {
    if (!dryRun()) runEmit(*options);
  });
}

}  // namespace csumtune::cli
