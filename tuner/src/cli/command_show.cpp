// csumtune show [FILE]: a results.json (tune) or a bench JSON, summarized for a human; without
// FILE, what best() sees: the search path, this CPU's runs on it, and which one it picks.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "csumtune/loader.hpp"
#include "csumtune/results/document.hpp"
#include "report/bench_report.hpp"

namespace csumtune::cli {
namespace {

using nlohmann::json;
constexpr std::string_view kPurpose = "show";

// Text from a file goes to a terminal: control bytes (ESC, BEL, ...), bidi and other format
// controls escaped, long strings cut (results::printable).
using results::printable;
std::string text(const json& j, const char* key) {
  return printable(j.at(key).get<std::string>());
}
// Counts and figures are printed only when they are what they claim to be.
std::uint64_t count(const json& j, const char* key) {
  const json& v = j.at(key);
  if (!v.is_number_unsigned()) throw tuner::BadRequest(fmt::format("'{}' is not a count", key));
  return v.get<std::uint64_t>();
}
double real(const json& j, const char* key) {
  const json& v = j.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()))
    throw tuner::BadRequest(fmt::format("'{}' is not a finite number", key));
  return v.get<double>();
}

void showResults(const json& j, const std::string& path) {
  // Every field the file holds, optional ones too, is what the writer writes (else exit 2).
  results::checkDocument(j, path, kPurpose);
  const results::RunHeader header = results::readHeader(j, path, kPurpose);
  const auto& s = j.at("search");
  fmt::print("tuning run   {} ({})\n", text(j, "created"), text(j, "host"));
  fmt::print("cpu          {} (key {})\n", printable(header.cpuBrand), printable(header.cpuKey));
  fmt::print("workload     {} ({}), {} cache{}\n", printable(header.profile),
             printable(results::profileSpec(header.sizes)), printable(header.cache),
             header.kernelSafe ? ", kernel-safe" : "");
  fmt::print(
      "search       {}: {} unique evaluations ({} ok, {} wrong, {} refused), {} revisits, {:.1f} "
      "s; {}\n",
      text(s, "algorithm"), count(s, "unique_evaluations"), count(s, "ok"), count(s, "wrong"),
      count(s, "refused"), count(s, "revisits"), real(s, "elapsed_seconds"),
      text(s, "stopped_because"));
  // Whether the machine was busy while it was tuned (runs before the contention record: no line).
  if (!header.contentionSummary.empty()) {
    fmt::print("machine      {}{}\n", printable(header.contentionSummary),
               header.disturbed ? " (tune again in a quiet period or with --wait-quiet)" : "");
  }
  // A run is all or nothing: an unfinished one has no winner anyone uses, whatever it names.
  if (!header.complete) {
    fmt::print(
        "complete     NO: the run was interrupted or failed (complete: false); load() and best() "
        "do not use it (resume it with tune --resume)\n");
    if (header.winnerParams) {
      fmt::print("winner       none used (the file names {}, from the unfinished run: not used)\n",
                 printable(*header.winnerParams));
    } else {
      fmt::print("winner       none (the run did not finish; continue it with --resume)\n");
    }
    return;
  }
  if (!header.winnerParams) {
    fmt::print("winner       none (the run found no winner)\n");
    return;
  }
  // The winner is printed only when it is a valid kernel.
  gen::Params winner;
  try {
    winner = gen::parseParams(*header.winnerParams);
  } catch (const gen::ParamsError& e) {
    throw tuner::BadRequest(fmt::format("{}: the winner '{}' is not a valid kernel: {}", path,
                                        printable(*header.winnerParams), printable(e.what())));
  }
  const std::string unit = text(j.at("timer"), "unit");
  fmt::print("winner       {}\n", printable(*header.winnerParams));
  // What load() and best() will say of it: they use it only with its winner.S.
  if (const std::string problem = results::winnerSourceProblem(path, winner); !problem.empty())
    fmt::print("not used     this file {}: load() and best() do not use its winner\n", problem);
  if (const auto b = j.at("winner").find("bytes");
      b != j.at("winner").end() && b->is_number_unsigned())
    fmt::print("size         {} bytes of code\n", b->get<std::uint64_t>());
  fmt::print("verdict      {}\n", text(j.at("winner"), "verdict"));
  fmt::print("\nfinalists ({}/byte on the profile, speedup vs {} [95% CI])\n", unit,
             printable(j.at("winner").value("baseline", std::string("the reference"))));
  for (const auto& f : j.at("finalists")) {
    const auto& sp = f.at("speedup");
    fmt::print("  {:.4f}  {:.3f}x [{:.3f}, {:.3f}]  {}\n", real(f, "score_per_byte"),
               real(sp, "median"), real(sp, "ci_low"), real(sp, "ci_high"), text(f, "params"));
  }
}

void showBench(const json& j) {
  const std::string unit = text(j, "unit");
  fmt::print("bench        {} cache, {} samples, {} ({})\n", text(j.at("workload"), "cache"),
             count(j.at("workload"), "repeat"), unit, text(j.at("cpu"), "brand"));
  if (const auto r = j.find("reliability"); r != j.end() && r->is_object()) {
    fmt::print("machine      {}\n", text(*r, "machine"));
    fmt::print("spread       median {:.1f} % MAD/median (widest {:.1f} %, {})\n",
               real(*r, "median_spread_percent"), real(*r, "widest_spread_percent"),
               text(*r, "widest_figure"));
    if (const std::string problem = text(*r, "problem"); !problem.empty())
      fmt::print("unreliable   {}\n", problem);
  }
  for (const auto& k : j.at("kernels")) {
    fmt::print("{}\n", text(k, "name"));
    for (const auto& r : k.at("results")) {
      const auto& b = r.at("per_byte");
      fmt::print("  {:>7} B  {:.4f} ±{:.4f} {}/byte\n", count(r, "size"), real(b, "median"),
                 real(b, "mad"), unit);
    }
  }
}

// Where a directory of the search path comes from.
std::string originOf(const std::string& directory) {
  if (const char* env = std::getenv("CSUMTUNE_RESULTS")) {
    std::istringstream entries(env);
    for (std::string entry; std::getline(entries, entry, ':');)
      if (!entry.empty() && entry == directory) return "CSUMTUNE_RESULTS";
  }
  if (directory == userResultsDirectory()) return "your results: tune --install puts runs here";
  return "installed";
}

// What best() sees, in the order it looks, and what it picks.
void showSearch() {
  const ResultsSearch search = searchResults();
  fmt::print("best() looks for runs of this CPU (key {}) in, in order:\n",
             printable(search.cpuKey));
  for (std::size_t i = 0; i < search.directories.size(); ++i) {
    const std::string& d = search.directories[i];
    const bool exists =
        std::find(search.existing.begin(), search.existing.end(), d) != search.existing.end();
    fmt::print("  {}. {} ({}){}\n", i + 1, printable(d), originOf(d), exists ? "" : ": missing");
  }
  if (search.runs.empty()) {
    fmt::print("runs for this CPU: none\n");
  } else {
    fmt::print("runs for this CPU, in the order best() tries them:\n");
    for (const FoundRun& run : search.runs)
      fmt::print("  {}  {}\n", printable(run.path),
                 run.problem.empty() ? "usable" : "not used: " + printable(run.problem));
  }
  if (!search.otherKeys.empty()) {
    std::string keys;
    for (const std::string& key : search.otherKeys)
      keys += (keys.empty() ? "" : ", ") + printable(key);
    fmt::print("runs of other CPUs: {}\n", keys);
  }
  // best() itself: the same search, and the kernel compiled (a usable run can still need a
  // feature this CPU lacks).
  const LoadedKernel picked = best();
  fmt::print("best() picks {}\n", printable(picked.origin, 2000));  // its whole reason
  if (picked.fallback != Fallback::None)
    fmt::print(
        "to use a tuned kernel: csumtune tune --install (or put a run in one of the directories "
        "above)\n");
}

}  // namespace

void runShow(const std::string& path) {
  const json j = results::readJsonFile(path, kPurpose);
  try {
    const std::string schema = j.is_object() ? j.value("schema", "") : "";
    if (schema == results::kSchema) {
      showResults(j, path);
    } else if (schema == tuner::kBenchSchema) {
      showBench(j);
    } else {
      throw tuner::BadRequest(
          fmt::format("{}: not a csumtune results or bench file (schema '{}')", path, schema));
    }
  } catch (const json::exception& e) {
    throw tuner::BadRequest(
        fmt::format("{}: a field is missing or malformed ({})", path, e.what()));
  }
}

void addShowCommand(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand(
      "show",
      "Summarize a results.json (tune) or a bench --format json file; without FILE, the runs "
      "best() finds for this CPU and the one it picks");
  auto* file =
      cmd->add_option("FILE", *path, "results.json or bench JSON (none: what best() sees)");
  cmd->callback([path, file] {
    if (dryRun()) return;
    if (file->count() == 0) {
      showSearch();
    } else {
      runShow(*path);
    }
  });
}

}  // namespace csumtune::cli
