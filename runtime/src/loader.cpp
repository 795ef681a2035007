#include "csumtune/loader.hpp"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <tuple>
#include <utility>

#include <pwd.h>
#include <unistd.h>

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

// The winner of a results file already read, checked: refused when the run did not finish
// or has no winner, when it was tuned on another CPU (unless the caller accepts one with the
// same features; no `host`: not looked at), when it is not a valid kernel or not a
// csum_partial (`sumOnly`), or when winner.S beside the file is missing or names another
// kernel (a run is all or nothing: the files of a finished run come together).
gen::Params checkedWinner(const results::RunHeader& header, const std::string& path,
                          std::string_view purpose, const LoadOptions& options,
                          const CpuIdentity* host, bool sumOnly) {
  if (!header.complete) results::fail(path, purpose, kUnfinished);
  if (!header.winnerParams)
    results::fail(path, purpose, "has no winner (the tuning run did not finish)");
  if (host) {
    const std::string hostKey = cpuKey(*host);
    if (header.cpuKey != hostKey) {
      const bool sameFeatures = header.cpuFeatures == hostFeatures(*host);
      if (!(options.acceptSameFeatures && sameFeatures)) {
        throw Error(Error::Kind::OtherCpu,
                    fmt::format("cannot {} {}: tuned on another CPU ({}, key {}); this is {} (key "
                                "{}){}",
                                purpose, path, results::printable(header.cpuBrand, 80),
                                results::printable(header.cpuKey, 60), host->brand, hostKey,
                                sameFeatures ? "; it has the same features: accept it explicitly"
                                             : "; its features differ"));
      }
    }
  }
  gen::Params parsed;
  try {
    parsed = gen::parseParams(*header.winnerParams);
  } catch (const gen::ParamsError& e) {
    results::fail(path, purpose, "has a winner that is not valid: " + results::printable(e.what()));
  }
  // load() and best() hand out csum_partial; a copying kernel is not one.
  if (sumOnly && parsed.kind != gen::Kind::Sum) {
    results::fail(path, purpose, "has a copying winner (kind=copy), not a csum_partial");
  }
  if (const std::string problem = results::winnerSourceProblem(path, parsed); !problem.empty())
    results::fail(path, purpose, problem + ": its winner is not used");
  return parsed;
}

LoadedKernel loadRun(const results::RunHeader& header, const std::string& path,
                     const LoadOptions& options) {
  const CpuIdentity host = hostCpu();
  const gen::Params parsed = checkedWinner(header, path, kLoad, options, &host, true);
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
// period); then by path. Runs that cannot be used come after the usable ones.
using Rank = std::tuple<bool, std::size_t, bool, bool, bool, bool, std::string>;

// A run found on the search path, with its header when it could be read (read once: loading
// does not read the file again).
struct Scanned {
  FoundRun run;
  bool otherCpu = false;
  std::optional<results::RunHeader> header;
  Rank rank;
};

struct Scan {
  ResultsSearch search;
  std::vector<Scanned> runs;        // in the order best() tries them
  std::vector<std::string> errors;  // directories that could not be listed
};

// At most `limit` names, then "and N more".
std::string listed(const std::vector<std::string>& names, std::size_t limit = 4) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < limit; ++i)
    out += (i ? ", " : "") + results::printable(names[i], 120);
  if (names.size() > limit) out += fmt::format(" and {} more", names.size() - limit);
  return out;
}

Scan scan() {
  namespace fs = std::filesystem;
  Scan out;
  ResultsSearch& s = out.search;
  const CpuIdentity host = hostCpu();
  s.cpuKey = cpuKey(host);
  s.directories = resultsSearchPath();
  for (const std::string& root : s.directories) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) continue;
    s.existing.push_back(root);
    // The CPU keys with runs here (folders holding run folders), to say what there is instead.
    for (auto it = fs::directory_iterator(root, ec); !ec && it != fs::directory_iterator();
         it.increment(ec)) {
      const std::string name = it->path().filename().string();
      std::error_code statusError;
      if (name == s.cpuKey || name.empty() || name[0] == '.' ||
          !fs::is_directory(it->path(), statusError))
        continue;
      if (std::find(s.otherKeys.begin(), s.otherKeys.end(), name) == s.otherKeys.end() &&
          s.otherKeys.size() < 64)
        s.otherKeys.push_back(name);
    }
    const fs::path dir = fs::path(root) / s.cpuKey;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<Scanned> here;
    // Only regular results files are looked at: a FIFO, a directory or a dangling link in
    // the search path must not block or break the start of a program.
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
         it.increment(ec)) {
      const fs::path file = it->path() / "results.json";
      std::error_code statusError;
      if (!fs::is_regular_file(file, statusError)) continue;
      Scanned found;
      found.run = {file.string(), root, ""};
      found.rank = {true, 0, false, false, false, false, file.string()};
      try {
        const auto header = results::readHeader(results::readDocument(file, kLoad), file, kLoad);
        found.rank = {false,
                      results::profilePreference(header.profile),
                      header.cache != "hot",
                      header.kernelSafe,
                      header.maxBytes != 0,
                      header.disturbed,
                      file.string()};
        found.header = header;
        // A copying run (tune --kind copy, copy-* folders) has no csum_partial to hand out.
        if (header.winnerParams && header.winnerParams->find("kind=copy") != std::string::npos) {
          found.run.problem = fmt::format(
              "{} is a copying run (kind=copy): it has no csum_partial for best()", file.string());
        } else {
          checkedWinner(header, file.string(), kLoad, LoadOptions{}, &host, true);
        }
      } catch (const Error& e) {
        found.run.problem = e.what();
        found.otherCpu = e.kind() == Error::Kind::OtherCpu;
      }
      if (!found.run.problem.empty()) std::get<0>(found.rank) = true;
      here.push_back(std::move(found));
    }
    if (ec) out.errors.push_back(fmt::format("cannot list {}: {}", dir.string(), ec.message()));
    std::sort(here.begin(), here.end(),
              [](const Scanned& a, const Scanned& b) { return a.rank < b.rank; });
    for (auto& found : here) {
      s.runs.push_back(found.run);
      out.runs.push_back(std::move(found));
    }
  }
  return out;
}

// Why the search gave no tuned kernel, in words (what best() puts in the origin).
std::pair<Fallback, std::string> fallbackReason(const Scan& scan,
                                                const std::vector<std::string>& loadProblems) {
  const ResultsSearch& s = scan.search;
  const std::string key = results::printable(s.cpuKey, 60);
  std::string hint = fmt::format(
      "; to use a tuned kernel, run csumtune tune on this machine and copy its run folder to "
      "{}/{}/ (or point CSUMTUNE_RESULTS at tune's results directory)",
      userResultsDirectory().empty() ? std::string("a directory on the search path")
                                     : userResultsDirectory(),
      key);
  if (s.directories.empty()) {
    return {Fallback::NoResultsDirectory,
            "no results directory: the search path is empty (CSUMTUNE_RESULTS unset, no home "
            "directory, no installed results)" +
                hint};
  }
  if (s.existing.empty()) {
    return {Fallback::NoResultsDirectory, fmt::format("no results directory: none of {} exists{}",
                                                      listed(s.directories, 6), hint)};
  }
  if (scan.runs.empty()) {
    std::string why = fmt::format("no run for this CPU (key {}) in {}", key, listed(s.existing, 6));
    if (!s.otherKeys.empty()) why += "; the runs there are for CPU keys " + listed(s.otherKeys);
    if (!scan.errors.empty()) why += " (" + scan.errors.front() + ")";
    return {Fallback::NoRunForThisCpu, why + hint};
  }
  const bool allOtherCpu =
      std::all_of(scan.runs.begin(), scan.runs.end(), [](const Scanned& r) { return r.otherCpu; });
  std::vector<std::string> problems;
  for (const Scanned& r : scan.runs)
    if (!r.run.problem.empty()) problems.push_back(r.run.problem);
  for (const std::string& p : loadProblems) problems.push_back(p);
  const std::string more = problems.size() > 1
                               ? fmt::format("; and {} more run(s) not usable", problems.size() - 1)
                               : "";
  if (allOtherCpu) {
    return {Fallback::RunForAnotherCpu,
            fmt::format("the runs filed under this CPU's key {} were tuned on another CPU ({}{})",
                        key, problems.front(), more)};
  }
  return {Fallback::NoUsableRun,
          fmt::format("no usable tuned results for CPU {} ({}{})", key,
                      problems.empty() ? "none found" : problems.front(), more)};
}

std::string environmentDirectory(const char* name) {
  const char* value = std::getenv(name);
  if (!value || value[0] != '/') return "";
  return value;
}

std::string homeDirectory() {
  if (std::string home = environmentDirectory("HOME"); !home.empty()) return home;
  struct passwd entry;
  struct passwd* found = nullptr;
  std::vector<char> buffer(16384);
  if (getpwuid_r(getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found &&
      found->pw_dir && found->pw_dir[0] == '/')
    return found->pw_dir;
  return "";
}

// A path component tune would write: letters, digits, '-', '_', '.', not starting with '.'.
bool safeComponent(const std::string& name) {
  if (name.empty() || name[0] == '.' || name.size() > 200) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  });
}

}  // namespace

namespace detail {
void setInstalledResultsForTesting(std::optional<std::string> directory) {
  installedResultsOverride() = std::move(directory);
}
}  // namespace detail

const char* toString(Fallback reason) {
  switch (reason) {
    case Fallback::None:
      return "none";
    case Fallback::NoResultsDirectory:
      return "no-results-directory";
    case Fallback::NoRunForThisCpu:
      return "no-run-for-this-cpu";
    case Fallback::RunForAnotherCpu:
      return "run-for-another-cpu";
    case Fallback::NoUsableRun:
      return "no-usable-run";
    case Fallback::SearchFailed:
      return "search-failed";
  }
  return "unknown";
}

gen::Params defaultParams() {
  return gen::Params{gen::Carry::Adc, 4, 16, 0, gen::Hint::T0};
}

std::string userResultsDirectory() {
  // The XDG base directory rule: XDG_DATA_HOME when set to an absolute path, else
  // $HOME/.local/share.
  if (const std::string data = environmentDirectory("XDG_DATA_HOME"); !data.empty())
    return (std::filesystem::path(data) / "csumtune" / "results").string();
  if (const std::string home = homeDirectory(); !home.empty())
    return (std::filesystem::path(home) / ".local" / "share" / "csumtune" / "results").string();
  return "";
}

std::vector<std::string> resultsSearchPath() {
  std::vector<std::string> dirs = detail::environmentList("CSUMTUNE_RESULTS", ':');
  if (const std::string user = userResultsDirectory(); !user.empty()) dirs.push_back(user);
  if (const std::string installed = installedResults(); !installed.empty())
    dirs.push_back(installed);
  return dirs;
}

ResultsSearch searchResults() {
  return scan().search;
}

LoadedKernel Jit::load(const std::string& path) {
  return load(path, LoadOptions{});
}

LoadedKernel Jit::load(const std::string& path, const LoadOptions& options) {
  return loadRun(results::readHeader(results::readDocument(path, kLoad), path, kLoad), path,
                 options);
}

LoadedKernel best() {
  Fallback reason = Fallback::SearchFailed;
  std::string why;
  try {
    const Scan found = scan();
    std::vector<std::string> loadProblems;
    for (const Scanned& candidate : found.runs) {
      if (!candidate.run.problem.empty() || !candidate.header) continue;
      try {
        return loadRun(*candidate.header, candidate.run.path, LoadOptions{});
      } catch (const Error& e) {
        // A CPU feature masked since (CSUMTUNE_DISABLE_FEATURES), a file changed meanwhile.
        loadProblems.push_back(e.what());
      }
    }
    std::tie(reason, why) = fallbackReason(found, loadProblems);
  } catch (const std::exception& e) {
    // Whatever the file system does (permissions, loops, races), a program still gets a
    // working kernel: the default, with the reason.
    reason = Fallback::SearchFailed;
    why = fmt::format("the search for tuned results failed: {}", e.what());
  }
  return LoadedKernel{Jit::compile(defaultParams()),
                      fmt::format("default {} (fallback: {})", defaultParams().toString(), why),
                      reason};
}

std::string installRun(const std::string& runDirectory, const std::string& destinationRoot) {
  namespace fs = std::filesystem;
  constexpr std::string_view kInstall = "install";
  const std::string root = destinationRoot.empty() ? userResultsDirectory() : destinationRoot;
  if (root.empty()) {
    throw Error(Error::Kind::BadResults,
                "cannot install: no user results directory (neither XDG_DATA_HOME nor HOME "
                "names an absolute directory)");
  }
  const fs::path source(runDirectory);
  std::error_code ec;
  if (!fs::is_directory(source, ec))
    results::fail(runDirectory, kInstall, "is not a run folder (a directory with results.json)");
  auto cannot = [&](const fs::path& path, const std::string& what, const std::error_code& error) {
    results::fail(path.string(), kInstall, fmt::format("{}: {}", what, error.message()));
  };
  fs::create_directories(root, ec);
  if (ec) cannot(root, "cannot be created", ec);
  // The files are copied first and checked as copied: what is installed is what was checked.
  const fs::path staging = fs::path(root) / fmt::format(".install-{}", ::getpid());
  fs::remove_all(staging, ec);
  fs::create_directory(staging, ec);
  if (ec) cannot(staging, "cannot be created", ec);
  try {
    for (const char* name :
         {"results.json", "winner.S", "report.md", "pareto.svg", "space.svg", "sweep.svg"}) {
      const fs::path from = source / name;
      std::error_code statusError;
      const fs::file_status status = fs::status(from, statusError);
      if (!fs::exists(status)) continue;  // results.json and winner.S are checked below
      if (!fs::is_regular_file(status))
        results::fail(from.string(), kInstall, "is not a regular file");
      fs::copy_file(from, staging / name, fs::copy_options::overwrite_existing, ec);
      if (ec) cannot(from, "cannot be copied", ec);
    }
    const fs::path copied = staging / "results.json";
    if (!fs::exists(copied))
      results::fail((source / "results.json").string(), kInstall, "does not exist");
    // Messages name the folder the user gave, not the staging copy.
    auto named = [&](auto check) {
      try {
        return check();
      } catch (const Error& e) {
        std::string message = e.what();
        for (std::size_t at; (at = message.find(staging.string())) != std::string::npos;)
          message.replace(at, staging.string().size(), source.string());
        throw Error(e.kind(), message);
      }
    };
    const auto header = named([&] {
      return results::readHeader(results::readDocument(copied, kInstall), copied.string(),
                                 kInstall);
    });
    const gen::Params winner = named([&] {
      return checkedWinner(header, copied.string(), kInstall, LoadOptions{}, nullptr, false);
    });
    const std::string folder =
        results::runFolderName(header.profile, header.cache == "cold", header.kernelSafe,
                               header.maxBytes, winner.kind == gen::Kind::Copy);
    if (!safeComponent(header.cpuKey) || !safeComponent(folder)) {
      results::fail(
          (source / "results.json").string(), kInstall,
          fmt::format("names a CPU key or profile that is not a folder name ({}/{})",
                      results::printable(header.cpuKey, 60), results::printable(folder, 60)));
    }
    const fs::path keyDir = fs::path(root) / header.cpuKey;
    const fs::path destination = keyDir / folder;
    fs::create_directories(keyDir, ec);
    if (ec) cannot(keyDir, "cannot be created", ec);
    // A run of the same name is replaced: moved aside, the new one moved in, the old removed.
    const fs::path old = keyDir / fmt::format(".replaced-{}-{}", folder, ::getpid());
    fs::remove_all(old, ec);
    const bool replacing = fs::exists(destination, ec);
    if (replacing) {
      fs::rename(destination, old, ec);
      if (ec) cannot(destination, "cannot be replaced", ec);
    }
    fs::rename(staging, destination, ec);
    if (ec) {
      std::error_code restore;
      if (replacing) fs::rename(old, destination, restore);
      cannot(destination, "cannot be written", ec);
    }
    if (replacing) fs::remove_all(old, ec);
    return (destination / "results.json").string();
  } catch (...) {
    std::error_code cleanup;
    fs::remove_all(staging, cleanup);
    throw;
  }
}

}  // namespace csumtune
