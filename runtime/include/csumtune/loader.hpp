// Loading tuned kernels: a results.json written by `csumtune tune`, or the best results for
// this CPU found on a search path, with a safe default when there are none.
//
// The search path (resultsSearchPath()), in order; the first directory that holds a usable
// run for this CPU supplies the kernel:
//   1. each entry of $CSUMTUNE_RESULTS (colon-separated), as given;
//   2. the user's results: $XDG_DATA_HOME/csumtune/results, or ~/.local/share/csumtune/results
//      when XDG_DATA_HOME is unset, empty or not absolute (userResultsDirectory());
//   3. the installed package's share/csumtune/results (the committed runs).
// Every directory is laid out as tune writes results/: <dir>/<cpu-key>/<run folder>/results.json
// with winner.S beside it. installRun() copies a finished run into (2).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "csumtune/jit.hpp"

namespace csumtune {

struct LoadOptions {
  // Accept results tuned on another CPU model when its feature flags are the same as this
  // CPU's (the kernel will run correctly; whether it is still the fastest is not known).
  bool acceptSameFeatures = false;
};

// Why best() handed out the built-in default instead of a tuned kernel.
enum class Fallback {
  None,                // not the default: a tuned kernel (or explicit params / a file)
  NoResultsDirectory,  // no directory of the search path exists
  NoRunForThisCpu,     // directories exist, but none has a run under this CPU's key
  RunForAnotherCpu,    // runs under this CPU's key, each tuned on another CPU (copied there)
  NoUsableRun,         // runs for this CPU, none usable (unfinished, broken, copying only, ...)
  SearchFailed,        // the search itself failed (CPU identity, file system): see origin
};

// "no-results-directory", "no-run-for-this-cpu", ... ("none" for Fallback::None).
const char* toString(Fallback reason);

// A kernel and where it came from ("results/amd-.../imix/results.json (imix, hot)", or
// "default carry=adc,... (fallback: no run for this CPU ...)").
struct LoadedKernel {
  Kernel kernel;
  std::string origin;
  // Fallback::None unless best() fell back to the default (origin then says why in words).
  Fallback fallback = Fallback::None;
};

// The directories best() searches, in order: each entry of CSUMTUNE_RESULTS
// (colon-separated), then userResultsDirectory() (when there is one), then the installed
// share/csumtune/results.
std::vector<std::string> resultsSearchPath();

// The user's results directory: $XDG_DATA_HOME/csumtune/results, or
// $HOME/.local/share/csumtune/results (XDG_DATA_HOME unset, empty or relative: the XDG base
// directory rule); "" when neither gives an absolute path. It need not exist.
std::string userResultsDirectory();

// A run best() considers: DIR/<this CPU's key>/<folder>/results.json.
struct FoundRun {
  std::string path;       // the results.json
  std::string directory;  // the search-path entry it was found under
  std::string problem;    // why best() does not use it; "" when it is usable
};

// What best() saw on the search path.
struct ResultsSearch {
  std::string cpuKey;                    // this CPU's
  std::vector<std::string> directories;  // resultsSearchPath()
  std::vector<std::string> existing;     // those of them that exist
  std::vector<std::string> otherKeys;    // CPU keys with run folders there, not this CPU's
  // This CPU's runs, in the order best() tries them: directory by directory, and within one
  // by preference (see best()). A usable run can still fail to compile (a CPU feature
  // missing): best() then goes on to the next.
  std::vector<FoundRun> runs;
};

// Looks at the search path the way best() does, without compiling anything (for `show`, for
// a program that wants to say where it looked). Throws only what hostCpu() throws.
ResultsSearch searchResults();

// Copies the finished run in `runDirectory` (results.json with winner.S beside it, and the
// report and plots when there) to userResultsDirectory()/<its CPU key>/<its run folder>/
// (the folder name tune gives it: imix, mtu-cold, kernel-max296, copy-kernel, ...),
// replacing a run of the same name there; or under `destinationRoot` instead when it is not
// empty. Returns the new results.json's path. Throws Error (BadResults) for a run that did
// not finish or is not consistent (what load() refuses, the CPU excepted: a run for another
// machine may be installed), or when there is no user results directory or it cannot be
// written.
std::string installRun(const std::string& runDirectory, const std::string& destinationRoot = "");

namespace detail {
// Tests only: replaces the installed results directory best() searches after
// CSUMTUNE_RESULTS ("" = none; std::nullopt = the installed one again).
void setInstalledResultsForTesting(std::optional<std::string> directory);
}  // namespace detail

// The safe default: runs on every x86-64 CPU, and is a good shape on most.
gen::Params defaultParams();

}  // namespace csumtune
