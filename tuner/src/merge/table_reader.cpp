#include "merge/table_reader.hpp"

#include <cmath>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "csumtune/cpu.hpp"
#include "csumtune/results/document.hpp"
#include "report/bench_report.hpp"
#include "report/results_file.hpp"
#include "request_errors.hpp"

namespace csumtune::tuner {
namespace {

using nlohmann::json;
constexpr std::string_view kMergePurpose = "merge";

[[noreturn]] void refuse(const std::string& path, const std::string& why) {
  throw BadRequest(fmt::format("cannot merge {}: {}", results::printable(path), why));
}

// The key the recorded identity gives must be the key the file says.
void checkKey(const TableCpu& cpu, const std::string& path) {
  const std::string recomputed =
      cpuKeyOf(cpu.vendor, cpu.brand, cpu.family, cpu.model, cpu.stepping, cpu.features);
  if (recomputed != cpu.key) {
    refuse(path, fmt::format("it says CPU key {} but its CPU fields give {}: the file was edited",
                             results::printable(cpu.key, 60), recomputed));
  }
}

gen::Kind kindNamed(const std::string& name, const std::string& path) {
  if (name == "sum") return gen::Kind::Sum;
  if (name == "copy") return gen::Kind::Copy;
  refuse(path, fmt::format("unknown kernel kind '{}'", results::printable(name, 40)));
}

double positiveFigure(const json& j, const char* key, const std::string& path) {
  const json& v = j.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || !(v.get<double>() > 0))
    refuse(path, fmt::format("\"{}\" is not a positive finite number", key));
  return v.get<double>();
}

std::uint32_t cpuNumber(const json& cpu, const char* key, const std::string& path) {
  const json& v = cpu.at(key);
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() > 0xffffffffu)
    refuse(path, fmt::format("\"cpu.{}\" is not a CPUID number", key));
  return static_cast<std::uint32_t>(v.get<std::uint64_t>());
}

std::vector<SpeedupTable> benchTables(const json& j, const std::string& path) {
  const auto section = j.find("candidates");
  if (section == j.end() || !section->is_object()) {
    refuse(path,
           "it is a bench file without candidates: measure the shared list with "
           "bench --candidates FILE --format json");
  }
  const json& cpu = j.at("cpu");
  SpeedupTable base;
  base.source = path;
  base.origin = "bench --candidates";
  base.generatorVersion = j.at("generator_version").get<std::string>();
  base.cpu.key = cpu.at("key").get<std::string>();
  base.cpu.vendor = cpu.at("vendor").get<std::string>();
  base.cpu.brand = cpu.at("brand").get<std::string>();
  base.cpu.family = cpuNumber(cpu, "family", path);
  base.cpu.model = cpuNumber(cpu, "model", path);
  base.cpu.stepping = cpuNumber(cpu, "stepping", path);
  for (const auto& [name, present] : cpu.at("features").items())
    base.cpu.features[name] = present.get<bool>();
  checkKey(base.cpu, path);
  base.kind = kindNamed(section->at("kind").get<std::string>(), path);
  base.reference = section->at("reference").get<std::string>();
  base.cache = section->at("cache").get<std::string>();
  // bench's own verdict on its figures (files without one: none said).
  if (const auto r = j.find("reliability"); r != j.end() && r->is_object()) {
    if (!r->value("reliable", true)) base.unreliable = r->value("problem", "unreliable figures");
  }
  std::vector<SpeedupTable> tables;
  std::set<std::string> profiles;
  for (const json& p : section->at("profiles")) {
    SpeedupTable table = base;
    table.profile = p.at("name").get<std::string>();
    if (!profiles.insert(table.profile).second)
      refuse(path, fmt::format("profile {} appears twice", results::printable(table.profile)));
    for (const json& e : p.at("sizes")) {
      const json& size = e.at("size");
      if (!size.is_number_integer() || size.get<std::int64_t>() < 1 ||
          size.get<std::int64_t>() > std::numeric_limits<int>::max())
        refuse(path, "a profile size is out of range");
      table.sizes.push_back({size.get<int>(), positiveFigure(e, "weight", path)});
    }
    if (table.sizes.empty()) refuse(path, "a profile has no sizes");
    std::set<std::string> seen;
    for (const json& k : p.at("kernels")) {
      KernelSpeedup row;
      row.params = canonicalParams(k.at("params").get<std::string>());
      if (!seen.insert(row.params).second)
        refuse(path, fmt::format("kernel {} appears twice in profile {}", row.params,
                                 results::printable(table.profile)));
      if (gen::parseParams(row.params).kind != table.kind)
        refuse(path, fmt::format("kernel {} is not of the file's kind", row.params));
      const json& bytes = k.at("code_bytes");
      if (!bytes.is_number_unsigned()) refuse(path, "\"code_bytes\" is not a count");
      row.bytes = bytes.get<std::size_t>();
      row.speedup = positiveFigure(k, "speedup", path);
      table.kernels.push_back(std::move(row));
    }
    tables.push_back(std::move(table));
  }
  if (tables.empty()) refuse(path, "its candidates section holds no profile");
  return tables;
}

std::vector<SpeedupTable> tuneTables(const json& j, const std::string& path) {
  results::checkDocument(j, path, kMergePurpose);
  const results::RunHeader header = results::readHeader(j, path, kMergePurpose);
  const json& cpu = j.at("cpu");
  if (!cpu.contains("vendor") || !cpu.contains("family")) {
    refuse(path,
           "it records no CPU vendor, family, model and stepping: its key cannot be recomputed");
  }
  if (!header.complete) refuse(path, "the run did not finish (complete: false)");
  SpeedupTable table;
  table.source = path;
  table.origin = "tune";
  table.generatorVersion = j.at("generator_version").get<std::string>();
  table.cpu = {header.cpuKey,
               cpu.at("vendor").get<std::string>(),
               header.cpuBrand,
               cpuNumber(cpu, "family", path),
               cpuNumber(cpu, "model", path),
               cpuNumber(cpu, "stepping", path),
               header.cpuFeatures};
  checkKey(table.cpu, path);  // readHeader checked it too; the rule is merge's own as well
  table.profile = header.profile;
  table.sizes = header.sizes;
  table.cache = header.cache;
  table.reference = j.at("measure").at("reference").get<std::string>();
  if (header.disturbed) table.unreliable = "the machine was busy: " + header.contentionSummary;
  std::set<std::string> seen;
  bool first = true;
  for (const Evaluation& e : readEvaluations(path)) {
    if (first) table.kind = e.params.kind;
    first = false;
    if (e.params.kind != table.kind) refuse(path, "its evaluations are of both kinds");
    if (e.status != EvalStatus::Ok || !std::isfinite(e.score) || !(e.score > 0)) continue;
    const std::string key = e.params.canonical().toString();
    if (!seen.insert(key).second) continue;  // one kernel, two spellings: the first timing
    table.kernels.push_back({key, e.bytes, 1.0 / e.score});
  }
  if (table.reference != referenceFor(table.kind)) {
    refuse(path, fmt::format("it was timed against {}, not {}: its speed-ups are not comparable",
                             results::printable(table.reference, 80), referenceFor(table.kind)));
  }
  return {table};
}

}  // namespace

std::vector<SpeedupTable> readSpeedupTables(const std::string& path) {
  const json j = results::readJsonFile(path, kMergePurpose);
  try {
    const std::string schema = j.is_object() && j.contains("schema") && j.at("schema").is_string()
                                   ? j.at("schema").get<std::string>()
                                   : "";
    if (schema == kBenchSchema) return benchTables(j, path);
    if (schema == results::kSchema) return tuneTables(j, path);
    refuse(path, fmt::format("not a bench --candidates JSON nor a results.json (schema '{}')",
                             results::printable(schema, 60)));
  } catch (const json::exception& e) {
    refuse(path, fmt::format("a field is missing or malformed ({})", results::printable(e.what())));
  } catch (const gen::ParamsError& e) {
    refuse(path, fmt::format("it holds bad params ({})", results::printable(e.what())));
  }
}

}  // namespace csumtune::tuner
