// `csumtune patch` as a library call: the change a kernel developer would send, for either kind
// of kernel — a tree's arch/x86/lib/csum-partial_64.c replaced by the tuned .S (kind=sum), or
// its csum-copy_64.S rewritten in place (kind=copy) — with the kernel-style commit message,
// the code sizes and (when asked) figures measured against the tree's own file.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "csumtune/gen/params.hpp"

namespace csumtune::tuner {

// Params the Linux kernel may not run (a vector family): refused, with the rule.
struct RefusedParams : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The figures cannot be measured as asked (the CPU cannot be pinned).
struct FiguresError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The tuning run whose winner the params are, as its results.json says (its header).
struct TunedOn {
  std::string resultsPath;  // as given; "Regenerate:" names it from results/<key>/ on
  std::string cpuBrand;     // as recorded (CPUID padding and all); the subject names it
  std::string cpuKey;
  std::string profile;  // the profile's name, and its lengths and weights
  std::string profileSpec;
  std::string cache;  // "hot" or "cold"
  // Set when the run was disturbed by other work: the run's one-sentence summary of it.
  std::optional<std::string> contention;
};

struct PatchRequest {
  std::string tree;  // the kernel tree's top directory
  gen::Params params;
  // Where the params came from, for the commit message: a tuning run, or (nullopt) given
  // explicitly (csumtune patch --params).
  std::optional<TunedOn> tunedOn;
  bool figures = true;  // build and time the tree's own file against the tuned kernel
  int cpu = -1;         // the CPU the figures are measured on (-1: defaultBenchCpu())
  // Called once the params are accepted and the tree is read, before anything is built or
  // measured (the command line checks there that its output can be written).
  std::function<void()> accepted;
};

struct PatchResult {
  std::string text;  // the patch: git format-patch shape for a git checkout with an identity
  // What the caller should tell the user (the CLI prints each as "csumtune: note: ..."): no
  // size or figures for the tree's file, the tree's git identity refused or missing.
  std::vector<std::string> notes;
};

// The patch for request.params' kind. Throws RefusedParams (a vector family), TreeError (a
// tree this cannot patch: see readKernelTree), FiguresError, and whatever `accepted` throws.
// A tree whose own file cannot be built for user space still gets its patch: its size is
// "unknown", there are no figures, and a note says why.
PatchResult makePatch(const PatchRequest& request);

// The files of request.tree that makePatch reads or its patch changes (the Makefile, the
// replaced file, the added .S), as paths under the tree: where the patch must not be written.
std::vector<std::string> patchedFiles(const PatchRequest& request);

}  // namespace csumtune::tuner
