// csumtune patch --tree DIR (--params P | --results FILE) [-o FILE] [--no-figures]: the change a
// kernel developer would send — the tree's csum-partial_64.c replaced by the tuned .S — as a
// unified diff with a kernel-style commit message and figures measured against the tree's
// own file. The work is tuner::makePatch (patch/make_patch.hpp); this reads the options.
#include <filesystem>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "cli_support.hpp"
#include "commands.hpp"
#include "csumtune/results/document.hpp"
#include "patch/kernel_patch.hpp"
#include "patch/make_patch.hpp"
#include "report/results_file.hpp"

namespace csumtune::cli {
namespace {

struct PatchOptions {
  std::string tree;
  std::string params;
  std::string results;
  std::string out = "-";
  bool noFigures = false;
  int cpu = -1;
};

// The params and where they came from: --params, or the winner of --results.
tuner::PatchRequest requestOf(const PatchOptions& o) {
  if (o.params.empty() == o.results.empty())
    throw tuner::BadRequest("patch needs --params P or --results FILE");
  tuner::PatchRequest request;
  request.tree = o.tree;
  request.figures = !o.noFigures;
  request.cpu = o.cpu;
  if (!o.params.empty()) {
    request.params = parseParamsOption(o.params);
    return request;
  }
  request.params = tuner::readWinnerParams(o.results);
  const auto header = results::readHeader(results::readDocument(o.results, "read the winner"),
                                          o.results, "read the winner");
  request.tunedOn =
      tuner::TunedOn{o.results,
                     header.cpuBrand,
                     header.cpuKey,
                     header.profile,
                     results::profileSpec(header.sizes),
                     header.cache,
                     header.disturbed ? std::optional{header.contentionSummary} : std::nullopt};
  return request;
}

// -o naming (through links) a file the patch reads or changes, or the results file, would
// overwrite its own input with the patch: refused before anything is written.
void refuseOutputOverInput(const std::string& out, const tuner::PatchRequest& request,
                           const std::string& results) {
  if (out == "-") return;
  namespace fs = std::filesystem;
  std::vector<std::string> inputs = tuner::patchedFiles(request);
  if (!results.empty()) inputs.push_back(results);
  std::error_code ec;
  const fs::path target = fs::weakly_canonical(out, ec);
  for (const std::string& input : inputs) {
    std::error_code ec2, ec3;
    const bool same =
        (!ec && target == fs::weakly_canonical(input, ec2) && !ec2) ||
        (fs::exists(out, ec3) && fs::exists(input, ec3) && fs::equivalent(out, input, ec3) && !ec3);
    if (same)
      throw tuner::BadRequest(
          fmt::format("-o {} is {}, which the patch reads or changes: refused", out, input));
  }
}

int runPatch(const PatchOptions& o) {
  tuner::PatchRequest request = requestOf(o);
  refuseOutputOverInput(o.out, request, o.results);
  request.accepted = [&o] { checkOutput(o.out); };
  tuner::PatchResult patch;
  try {
    patch = tuner::makePatch(request);
  } catch (const tuner::TreeError& e) {
    throw tuner::BadRequest(e.what());
  } catch (const tuner::RefusedParams& e) {
    throw tuner::BadRequest(e.what());
  } catch (const tuner::FiguresError& e) {
    throw tuner::BadRequest(e.what());
  }
  for (const std::string& note : patch.notes) std::cerr << "csumtune: note: " << note << "\n";
  writeOutput(o.out, patch.text);
  return 0;
}

}  // namespace

void addPatchCommand(CLI::App& app, int& exitCode) {
  auto o = std::make_shared<PatchOptions>();
  auto* cmd = app.add_subcommand(
      "patch",
      "Write the kernel patch that replaces a tree's arch/x86/lib/csum-partial_64.c with the "
      "tuned .S, or for a copying kernel (kind=copy) its csum-copy_64.S (git format-patch "
      "shape for a git checkout; no Signed-off-by: add yours)");
  cmd->add_option("--tree", o->tree, "The kernel tree (its top directory)")->required();
  cmd->add_option("--params", o->params, "Kernel parameters (kernel-safe)");
  cmd->add_option("--results", o->results, "A results.json whose winner to use");
  cmd->add_option("-o,--out,--output", o->out, "Output file (- = stdout)")->capture_default_str();
  cmd->add_flag("--no-figures", o->noFigures,
                "Do not build and time the tree's own file for the commit message");
  cmd->add_option("--cpu", o->cpu, "CPU to pin the measurement to (default: the last one)")
      ->check(CLI::Range(0, 4095));
  cmd->callback([o, &exitCode] {
    if (!dryRun()) exitCode = runPatch(*o);
  });
}

}  // namespace csumtune::cli
