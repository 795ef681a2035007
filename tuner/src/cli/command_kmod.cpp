// csumtune kmod (--params P | --results FILE) [-o DIR]: a ready-to-build kernel module that
// checks and times the kernel beside the running kernel's own csum_partial.
#include <fmt/format.h>

#include "cli_support.hpp"
#include "commands.hpp"
#include "patch/kernel_module.hpp"
#include "report/results_file.hpp"

namespace csumtune::cli {
namespace {

struct KmodOptions {
  std::string params;
  std::string results;
  std::string out = "csum_test";
};

void runKmod(const KmodOptions& o) {
  if (o.params.empty() == o.results.empty())
    throw tuner::BadRequest("kmod needs --params P or --results FILE");
  gen::Params params;
  std::optional<std::string> tunedOn;
  if (!o.params.empty()) {
    params = parseParamsOption(o.params);
  } else {
    params = tuner::readWinnerParams(o.results);
    tunedOn = "the winner of " + o.results;
  }
  tuner::writeKernelModule(params, tunedOn, o.out);
  fmt::print("{}/: Kbuild Makefile harness.c tuned.S ({})\n", o.out, params.toString());
  // M= wants an absolute path: $PWD/ only before a relative one.
  fmt::print("build: make -C /lib/modules/$(uname -r)/build M={}{} modules\n",
             o.out.starts_with('/') ? "" : "$PWD/", o.out);
  fmt::print("run:   sudo insmod {}/csum_test.ko && sudo dmesg | grep csum_test\n", o.out);
}

}  // namespace

void addKmodCommand(CLI::App& app) {
  auto o = std::make_shared<KmodOptions>();
  auto* cmd = app.add_subcommand(
      "kmod",
      "Write an out-of-tree kernel module that compares and times a kernel against the "
      "running kernel's csum_partial");
  auto* params = cmd->add_option("--params", o->params, "Kernel parameters");
  auto* results = cmd->add_option("--results", o->results, "A results.json: use its winner");
  params->excludes(results);
  cmd->add_option("-o,--out,--output", o->out, "Module directory to write")->capture_default_str();
  cmd->callback([o] {
    if (!dryRun()) runKmod(*o);
  });
}

}  // namespace csumtune::cli
