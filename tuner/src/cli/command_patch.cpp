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
#include "patch/multi_patch.hpp"
#include "report/results_file.hpp"
#include "report/variant_runs.hpp"

namespace csumtune::cli {
namespace {

struct PatchOptions {
  std::string tree;
  std::string params;
  std::vector<std::string> results;  // one; several (one per CPU key) pick a body at boot
  std::string fallback;              // with several: the generic body's params
  std::string out = "-";
  bool noFigures = false;
  int cpu = -1;
};

// The params and where they came from: --params, or the winner of --results.
tuner::PatchRequest requestOf(const PatchOptions& o) {
  if (o.params.empty() == o.results.empty())
    throw tuner::BadRequest("patch needs --params P or --results FILE");
  const std::string& resultsFile = o.results.empty() ? std::string() : o.results.front();
  tuner::PatchRequest request;
  request.tree = o.tree;
  request.figures = !o.noFigures;
  request.cpu = o.cpu;
  if (!o.params.empty()) {
    request.params = parseParamsOption(o.params);
    return request;
  }
  request.params = tuner::readWinnerParams(resultsFile);
  const auto header = results::readHeader(results::readDocument(resultsFile, "read the winner"),
                                          resultsFile, "read the winner");
  request.tunedOn =
      tuner::TunedOn{resultsFile,
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

// Several --results (or --fallback): one body per CPU key and a generic one, picked at boot.
int runMultiPatch(const PatchOptions& o) {
  if (!o.params.empty())
    throw tuner::BadRequest("--params goes with one body: give --results RUN, one per CPU");
  if (o.cpu != -1)
    throw tuner::BadRequest("--cpu times one body: a patch of several bodies has no figures");
  tuner::MultiPatchRequest request;
  request.tree = o.tree;
  request.results = o.results;
  if (!o.fallback.empty()) request.fallback = parseParamsOption(o.fallback);
  if (o.out != "-") {
    namespace fs = std::filesystem;
    std::vector<std::string> inputs = tuner::multiPatchedFiles(request);
    for (const std::string& r : o.results) inputs.push_back(tuner::resultsFileOf(r));
    std::error_code ec;
    const fs::path target = fs::weakly_canonical(o.out, ec);
    for (const std::string& input : inputs) {
      std::error_code ec2, ec3;
      const bool same = (!ec && target == fs::weakly_canonical(input, ec2) && !ec2) ||
                        (fs::exists(o.out, ec3) && fs::exists(input, ec3) &&
                         fs::equivalent(o.out, input, ec3) && !ec3);
      if (same)
        throw tuner::BadRequest(
            fmt::format("-o {} is {}, which the patch reads or changes: refused", o.out, input));
    }
  }
  request.accepted = [&o] { checkOutput(o.out); };
  tuner::PatchResult patch;
  try {
    patch = tuner::makeMultiPatch(request);
  } catch (const tuner::TreeError& e) {
    throw tuner::BadRequest(e.what());
  } catch (const gen::ParamsError& e) {
    throw tuner::BadRequest(e.what());
  }
  for (const std::string& note : patch.notes) std::cerr << "csumtune: note: " << note << "\n";
  writeOutput(o.out, patch.text);
  return 0;
}

int runPatch(const PatchOptions& o) {
  if (o.results.size() > 1 || !o.fallback.empty()) return runMultiPatch(o);
  tuner::PatchRequest request = requestOf(o);
  refuseOutputOverInput(o.out, request, o.results.empty() ? std::string() : o.results.front());
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
  cmd->add_option("--results", o->results,
                  "A results.json whose winner to use; repeated (one kernel-safe run per CPU "
                  "key and kind): one body per CPU and a generic body for csum_partial "
                  "(summing runs) and csum_partial_copy_generic (copying runs), picked at boot");
  cmd->add_option("--fallback", o->fallback,
                  "With several --results: the generic body's params (default carry=adc, "
                  "emit --library's portable body); must run on every x86-64 CPU");
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
