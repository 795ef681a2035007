#include "csumtune/loader.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "csumtune/cpu.hpp"
#include "csumtune/results/document.hpp"
#include "env_list.hpp"

#ifndef CSUMTUNE_INSTALLED_RESULTS
#define CSUMTUNE_INSTALLED_RESULTS ""
#endif

// Where `cmake --install` put the committed results. A weak default, the prefix compiled in;
// a program built against the installed package gets a strong definition from the package's
// CMake config (cmake/csumtune_results_dir.in), with the prefix the package was found at,
// so a relocated install (--prefix P, moved, unpacked elsewhere) still finds its results.
extern "C" __attribute__((weak)) const char* csumtune_installed_results_dir(void) {
  return CSUMTUNE_INSTALLED_RESULTS;
}

namespace csumtune {
namespace {

constexpr std::string_view kLoad = "load";

std::optional<std::string>& installedResultsOverride() {
  static std::optional<std::string> value;
  return value;
}

std::string installedResults() {
  if (installedResultsOverride()) return *installedResultsOverride();
  const char* dir = csumtune_installed_results_dir();
  return dir ? dir : "";
}

std::map<std::string, bool> hostFeatures(const CpuIdentity& host) {
  std::map<std::string, bool> out;
  for (const auto& f : host.features) out[f.name] = f.present;
  return out;
}

// Why a run's winner is not used, whatever it names: the run did not finish (interrupted, or
// its best candidate failed a check), so its winner was never verified with the full plan.
constexpr std::string_view kUnfinished =
    "is from a run that was interrupted or failed (complete: false): its winner is not used; "
    "resume it with tune --resume";

// The winner of a results file already read: refused when the run did not finish or has no
// winner, when it was tuned on another CPU (unless the caller accepts one with the same
// features), when it is not a valid kernel, or when winner.S beside the file is missing or
// names another kernel (a run is all or nothing: the files of a finished run come together).
LoadedKernel loadRun(const results::RunHeader& header, const std::string& path,
                     const LoadOptions& options) {
  if (!header.complete) results::fail(path, kLoad, kUnfinished);
  if (!header.winnerParams)
    results::fail(path, kLoad, "has no winner (the tuning run did not finish)");
  const CpuIdentity host = hostCpu();
  const std::string hostKey = cpuKey(host);
  if (header.cpuKey != hostKey) {
    const bool sameFeatures = header.cpuFeatures == hostFeatures(host);
    if (!(options.acceptSameFeatures && sameFeatures)) {
      throw Error(Error::Kind::OtherCpu,
                  fmt::format("cannot load {}: tuned on another CPU ({}, key {}); this is {} (key "
                              "{}){}",
                              path, results::printable(header.cpuBrand, 80),
                              results::printable(header.cpuKey, 60), host.brand, hostKey,
                              sameFeatures ? "; it has the same features: accept it explicitly"
                                           : "; its features differ"));
    }
  }
  gen::Params parsed;
  try {
    parsed = gen::parseParams(*header.winnerParams);
  } catch (const gen::ParamsError& e) {
    results::fail(path, kLoad, "has a winner that is not valid: " + results::printable(e.what()));
  }
  // load() and best() hand out csum_partial; a copying kernel is not one.
  if (parsed.kind != gen::Kind::Sum) {
    results::fail(path, kLoad, "has a copying winner (kind=copy), not a csum_partial");
  }
  if (const std::string problem = results::winnerSourceProblem(path, parsed); !problem.empty())
    results::fail(path, kLoad, problem + ": its winner is not used");
  return LoadedKernel{
      Jit::compile(parsed),
      fmt::format("{} ({}, {} cache, tuned on {}{})", path, results::printable(header.profile, 60),
                  header.cache, results::printable(header.cpuKey, 60),
                  header.disturbed ? "; " + results::printable(header.contentionSummary) : "")};
}

// A run best() may use, and how much it prefers it: the default tune's profile first, then
// the others in the catalogue's order; hot before cold; user-space before kernel-safe (a
// process is not bound by the kernel's rules); without a code-size limit before with one; a
// run on a quiet machine before one on a busy machine (its winner may be another's in a quiet
// period); then by path.
struct Candidate {
  std::tuple<std::size_t, bool, bool, bool, bool, std::string> rank;
  std::string path;
  results::RunHeader header;  // read once: loading does not read the file again
};

}  // namespace

namespace detail {
void setInstalledResultsForTesting(std::optional<std::string> directory) {
  installedResultsOverride() = std::move(directory);
}
}  // namespace detail

gen::Params defaultParams() {
  return gen::Params{gen::Carry::Adc, 4, 16, 0, gen::Hint::T0};
}

std::vector<std::string> resultsSearchPath() {
  std::vector<std::string> dirs = detail::environmentList("CSUMTUNE_RESULTS", ':');
  if (const std::string installed = installedResults(); !installed.empty())
    dirs.push_back(installed);
  return dirs;
}

LoadedKernel Jit::load(const std::string& path) {
  return load(path, LoadOptions{});
}

LoadedKernel Jit::load(const std::string& path, const LoadOptions& options) {
  return loadRun(results::readHeader(results::readDocument(path, kLoad), path, kLoad), path,
                 options);
}

LoadedKernel best() {
  std::vector<std::string> problems;
  std::string key = "(unknown)";
  try {
    key = cpuKey(hostCpu());
    std::vector<Candidate> candidates;
    for (const std::string& root : resultsSearchPath()) {
      const std::filesystem::path dir = std::filesystem::path(root) / key;
      std::error_code ec;
      if (!std::filesystem::is_directory(dir, ec)) continue;
      // Only regular results files are looked at: a FIFO, a directory or a dangling link in
      // the search path must not block or break the start of a program.
      for (auto it = std::filesystem::directory_iterator(dir, ec);
           !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
        const std::filesystem::path file = it->path() / "results.json";
        std::error_code statusError;
        if (!std::filesystem::is_regular_file(file, statusError)) continue;
        try {
          const auto header = results::readHeader(results::readDocument(file, kLoad), file, kLoad);
          // An interrupted or failed run is passed over, whatever winner it names.
          if (!header.complete) {
            problems.push_back(fmt::format("cannot {}: {} {}", kLoad, file.string(), kUnfinished));
            continue;
          }
          // A copying run (tune --kind copy, copy-* folders) has no csum_partial to hand out.
          if (header.winnerParams && header.winnerParams->find("kind=copy") != std::string::npos)
            continue;
          candidates.push_back(
              {{results::profilePreference(header.profile), header.cache != "hot",
                header.kernelSafe, header.maxBytes != 0, header.disturbed, file.string()},
               file.string(),
               header});
        } catch (const Error& e) {
          problems.push_back(e.what());
        }
      }
      if (ec) problems.push_back(fmt::format("cannot list {}: {}", dir.string(), ec.message()));
    }
    std::sort(candidates.begin(), candidates.end(),
              [](const Candidate& a, const Candidate& b) { return a.rank < b.rank; });
    for (const Candidate& candidate : candidates) {
      try {
        return loadRun(candidate.header, candidate.path, LoadOptions{});
      } catch (const Error& e) {
        problems.push_back(e.what());
      }
    }
  } catch (const std::exception& e) {
    // Whatever the file system does (permissions, loops, races), a program still gets a
    // working kernel: the default, with the reason.
    problems.push_back(e.what());
  }
  std::string why = fmt::format("no usable tuned results for CPU {}", key);
  if (!problems.empty()) why += " (" + problems.front() + ")";
  return LoadedKernel{Jit::compile(defaultParams()),
                      fmt::format("default {} ({})", defaultParams().toString(), why)};
}

}  // namespace csumtune
