// csumtune show FILE: a results.json (tune) or a bench JSON, summarized for a human.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "csumtune/results/document.hpp"
#include "report/bench_report.hpp"

namespace csumtune::cli {
namespace {

using nlohmann::json;
constexpr std::string_view kPurpose = "show";

void showResults(const json& j, const std::string& path) {
  const results::RunHeader header = results::readHeader(j, path, kPurpose);
  const auto& s = j.at("search");
  fmt::print("tuning run   {} ({})\n", j.at("created").get<std::string>(),
             j.at("host").get<std::string>());
  fmt::print("cpu          {} (key {})\n", header.cpuBrand, header.cpuKey);
  fmt::print("workload     {} ({}), {} cache{}\n", header.profile,
             results::profileSpec(header.sizes), header.cache,
             header.kernelSafe ? ", kernel-safe" : "");
  fmt::print(
      "search       {}: {} unique evaluations ({} ok, {} wrong, {} refused), {} revisits, {:.1f} "
      "s; {}\n",
      s.at("algorithm").get<std::string>(), s.at("unique_evaluations").get<std::size_t>(),
      s.at("ok").get<std::size_t>(), s.at("wrong").get<std::size_t>(),
      s.at("refused").get<std::size_t>(), s.at("revisits").get<std::size_t>(),
      s.at("elapsed_seconds").get<double>(), s.at("stopped_because").get<std::string>());
  if (!header.winnerParams) {
    fmt::print("winner       none (the run did not finish; continue it with --resume)\n");
    return;
  }
  const std::string unit = j.at("timer").at("unit").get<std::string>();
  fmt::print("winner       {}\n", *header.winnerParams);
  fmt::print("verdict      {}\n", j.at("winner").at("verdict").get<std::string>());
  fmt::print("\nfinalists ({}/byte on the profile, speedup vs {} [95% CI])\n", unit,
             j.at("winner").value("baseline", std::string("the reference")));
  for (const auto& f : j.at("finalists")) {
    const auto& sp = f.at("speedup");
    fmt::print("  {:.4f}  {:.3f}x [{:.3f}, {:.3f}]  {}\n", f.at("score_per_byte").get<double>(),
               sp.at("median").get<double>(), sp.at("ci_low").get<double>(),
               sp.at("ci_high").get<double>(), f.at("params").get<std::string>());
  }
}

void showBench(const json& j) {
  const std::string unit = j.at("unit").get<std::string>();
  fmt::print("bench        {} cache, {} samples, {} ({})\n",
             j.at("workload").at("cache").get<std::string>(),
             j.at("workload").at("repeat").get<int>(), unit,
             j.at("cpu").at("brand").get<std::string>());
  for (const auto& k : j.at("kernels")) {
    fmt::print("{}\n", k.at("name").get<std::string>());
    for (const auto& r : k.at("results")) {
      const auto& b = r.at("per_byte");
      fmt::print("  {:>7} B  {:.4f} ±{:.4f} {}/byte\n", r.at("size").get<int>(),
                 b.at("median").get<double>(), b.at("mad").get<double>(), unit);
    }
  }
}

void runShow(const std::string& path) {
  const json j = results::readJsonFile(path, kPurpose);
  try {
    const std::string schema = j.is_object() ? j.value("schema", "") : "";
    if (schema == results::kSchema) {
      showResults(j, path);
    } else if (schema == tuner::kBenchSchema) {
      showBench(j);
    } else {
      throw UsageError(
          fmt::format("{}: not a csumtune results or bench file (schema '{}')", path, schema));
    }
  } catch (const json::exception& e) {
    throw UsageError(fmt::format("{}: a field is missing or malformed ({})", path, e.what()));
  }
}

}  // namespace

void addShowCommand(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto* cmd =
      app.add_subcommand("show", "Summarize a results.json (tune) or a bench --format json file");
  cmd->add_option("FILE", *path, "results.json or bench JSON")->required();
  cmd->callback([path] { runShow(*path); });
}

}  // namespace csumtune::cli
