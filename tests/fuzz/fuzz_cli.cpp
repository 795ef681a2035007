// libFuzzer: the command-line parser. The input, split at NUL bytes, is an argument vector
// for the real csumtune command set with every verb in dry-run mode (options parsed and
// validated, nothing done): whatever
// the arguments, CLI11 and our validators (strict numbers, ranges, exclusions) either accept
// them or throw a CLI::Error — no other exception, no crash.
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "commands.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"csumtune"};
  std::string current;
  for (std::size_t i = 0; i < size && args.size() < 64; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  if (!current.empty()) args.push_back(current);
  CLI::App app{"csumtune"};
  int exitCode = 0;
  csumtune::cli::addAllCommands(app, exitCode);
  csumtune::cli::dryRun() = true;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::Error&) {
  }
  return 0;
}
