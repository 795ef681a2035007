#include "commands.hpp"

#include <string>

#include "cli_support.hpp"
#include "csumtune/gen/version.hpp"

namespace csumtune::cli {

bool& dryRun() {
  static bool value = false;
  return value;
}

void addAllCommands(CLI::App& app, int& exitCode) {
  // Before the verbs: each takes the formatter the app has when it is added.
  useWrappedHelp(app, helpWidth());
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every command");
  addCpuCommand(app);
  addVerifyCommand(app);
  addEmitCommand(app);
  addBenchCommand(app);
  addKmodCommand(app);
  addPatchCommand(app, exitCode);
  addShowCommand(app);
  addMergeCommand(app);
  addTuneCommand(app, exitCode);
  app.set_version_flag("--version", std::string(gen::kGeneratorVersion));
}

}  // namespace csumtune::cli
