// csumtune merge FILE... [--kernel-safe] [--format text|json] [-o FILE]: the portable winner
// of runs from several CPU keys (bench --candidates JSON files, tune results.json files).
#include <fmt/format.h>

#include "cli_support.hpp"
#include "commands.hpp"
#include "merge/merge_report.hpp"
#include "merge/portable_winner.hpp"
#include "merge/table_reader.hpp"

namespace csumtune::cli {
namespace {

enum class MergeFormat { Text, Json };

struct MergeOptions {
  std::vector<std::string> files;
  tuner::MergeOptions merge;
  MergeFormat format = MergeFormat::Text;
  std::string output;
};

void runMerge(const MergeOptions& options) {
  checkOutput(options.output);
  std::vector<tuner::SpeedupTable> tables;
  for (const std::string& path : options.files) {
    for (tuner::SpeedupTable& t : tuner::readSpeedupTables(path)) tables.push_back(std::move(t));
  }
  const tuner::MergeReport report = tuner::mergeTables(tables, options.merge);
  writeOutput(options.output, options.format == MergeFormat::Json ? tuner::formatMergeJson(report)
                                                                  : tuner::formatMergeText(report));
}

}  // namespace

void addMergeCommand(CLI::App& app) {
  auto options = std::make_shared<MergeOptions>();
  auto* cmd = app.add_subcommand(
      "merge",
      "The portable winner of runs from several CPUs: per profile, the kernel whose worst "
      "speed-up over linux-v6.8 across them is highest");
  cmd->add_option("FILE", options->files,
                  "bench --candidates --format json files or tune results.json files, one CPU "
                  "key each per profile")
      ->required();
  cmd->add_flag("--kernel-safe", options->merge.kernelSafe,
                "Only kernels that may run inside the Linux kernel (general-purpose registers, "
                "no SIMD): a winner for csumtune patch");
  addChoice(cmd, "--format", options->format,
            {{"text", MergeFormat::Text}, {"json", MergeFormat::Json}}, "text or json");
  cmd->add_option("-o,--out,--output", options->output,
                  "Write to FILE (atomically) instead of standard output");
  cmd->callback([options] {
    if (!dryRun()) runMerge(*options);
  });
}

}  // namespace csumtune::cli
