#include "merge/candidate_tables.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "csumtune/cpu.hpp"
#include "csumtune/gen/version.hpp"
#include "request_errors.hpp"

namespace csumtune::tuner {
namespace {

const KernelFigures* figuresNamed(const BenchReport& report, const std::string& name) {
  for (const KernelFigures& k : report.kernels)
    if (k.kernel.name == name) return &k;
  return nullptr;
}

// Median time per call at each entry of the profile, in the profile's order.
std::vector<double> perCallAt(const KernelFigures& figures, const Profile& profile) {
  std::vector<double> perCall;
  for (const results::ProfileEntry& e : profile.entries) {
    const auto at = std::find_if(figures.sizes.begin(), figures.sizes.end(),
                                 [&](const SizeFigures& f) { return f.size == e.size; });
    if (at == figures.sizes.end()) {
      throw BadRequest(fmt::format("{} was not timed at {} B, a size of profile {}",
                                   figures.kernel.name, e.size, profile.name));
    }
    perCall.push_back(at->perCall.median);
  }
  return perCall;
}

TableCpu tableCpuOf(const CpuIdentity& cpu) {
  TableCpu out{cpuKey(cpu), cpu.vendor, cpu.brand, cpu.family, cpu.model, cpu.stepping, {}};
  for (const CpuFeatureFlag& f : cpu.features) out.features[f.name] = f.present;
  return out;
}

}  // namespace

std::vector<SpeedupTable> tablesFromBench(const BenchReport& report,
                                          const std::vector<Profile>& profiles, gen::Kind kind) {
  const std::string reference = referenceFor(kind);
  const KernelFigures* ref = figuresNamed(report, reference);
  if (ref == nullptr) throw BadRequest(fmt::format("the bench run did not time {}", reference));
  std::vector<SpeedupTable> tables;
  for (const Profile& profile : profiles) {
    SpeedupTable table;
    table.origin = "bench --candidates";
    table.generatorVersion = gen::kGeneratorVersion;
    table.cpu = tableCpuOf(report.setup.cpu);
    table.profile = profile.name;
    table.sizes = profile.entries;
    table.cache = toString(report.setup.cache);
    table.kind = kind;
    table.reference = reference;
    if (report.reliability.unreliable()) table.unreliable = report.reliability.problem();
    const double referenceScore = profile.score(perCallAt(*ref, profile));
    for (const KernelFigures& k : report.kernels) {
      if (k.kernel.kind != TimedKind::Jit || k.kernel.params.empty()) continue;
      const double score = profile.score(perCallAt(k, profile));
      table.kernels.push_back(
          {canonicalParams(k.kernel.params), k.kernel.bytes, referenceScore / score});
    }
    tables.push_back(std::move(table));
  }
  return tables;
}

nlohmann::json candidatesJson(const std::vector<SpeedupTable>& tables) {
  nlohmann::json profiles = nlohmann::json::array();
  for (const SpeedupTable& t : tables) {
    nlohmann::json sizes = nlohmann::json::array();
    for (const auto& e : t.sizes) sizes.push_back({{"size", e.size}, {"weight", e.weight}});
    nlohmann::json kernels = nlohmann::json::array();
    for (const KernelSpeedup& k : t.kernels)
      kernels.push_back({{"params", k.params}, {"code_bytes", k.bytes}, {"speedup", k.speedup}});
    profiles.push_back({{"name", t.profile}, {"sizes", sizes}, {"kernels", kernels}});
  }
  const SpeedupTable* first = tables.empty() ? nullptr : &tables.front();
  return {{"kind", first ? std::string(gen::toString(first->kind)) : "sum"},
          {"reference", first ? first->reference : referenceFor(gen::Kind::Sum)},
          {"cache", first ? first->cache : "hot"},
          {"speedup", "reference time / kernel time on the profile (> 1: faster)"},
          {"profiles", profiles}};
}

std::string formatCandidatesText(const std::vector<SpeedupTable>& tables) {
  std::string out;
  for (const SpeedupTable& t : tables) {
    out += fmt::format("\nspeed-up over {} on profile {} ({}, {} cache), fastest first\n",
                       t.reference, t.profile, results::profileSpec(t.sizes), t.cache);
    std::vector<KernelSpeedup> sorted = t.kernels;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.speedup > b.speedup; });
    for (const KernelSpeedup& k : sorted)
      out += fmt::format("  {:6.3f}x  {:5} B  {}\n", k.speedup, k.bytes, k.params);
  }
  return out;
}

}  // namespace csumtune::tuner
