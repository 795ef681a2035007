#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "commands.hpp"
#include "csumtune/cpu.hpp"
#include "report/bench_report.hpp"

namespace csumtune::cli {
namespace {

enum class CpuFormat { Text, Json };

nlohmann::json toJson(const CpuIdentity& cpu) {
  nlohmann::json json = tuner::cpuJson(cpu);
  json["disabled_by_environment"] = cpu.disabled;
  return json;
}

void printText(const CpuIdentity& cpu) {
  fmt::print("vendor     {}\n", cpu.vendor);
  fmt::print("brand      {}\n", cpu.brand);
  fmt::print("family     {:#x} ({})  model {:#x} ({})  stepping {}\n", cpu.family, cpu.family,
             cpu.model, cpu.model, cpu.stepping);
  fmt::print("microcode  {}\n", cpu.microcode.value_or("(not readable)"));
  fmt::print("key        {}\n", cpuKey(cpu));
  std::string line;
  for (const auto& f : cpu.features)
    line += fmt::format("{}{}{}", line.empty() ? "" : " ", f.present ? "+" : "-", f.name);
  fmt::print("features   {}\n", line);
  if (!cpu.disabled.empty()) {
    std::string names;
    for (const auto& d : cpu.disabled) names += (names.empty() ? "" : ",") + d;
    fmt::print("masked     {} (CSUMTUNE_DISABLE_FEATURES)\n", names);
  }
}

}  // namespace

void addCpuCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("cpu", "Show this CPU's identity and the features kernels use");
  auto format = std::make_shared<CpuFormat>(CpuFormat::Text);
  addChoice(cmd, "--format", *format, {{"text", CpuFormat::Text}, {"json", CpuFormat::Json}},
            "text or json");
  cmd->add_flag_callback(
      "--json", [format] { *format = CpuFormat::Json; }, "Same as --format json");
  cmd->callback([format] {
    if (dryRun()) return;
    const CpuIdentity cpu = hostCpu();
    if (*format == CpuFormat::Json) {
      std::cout << toJson(cpu).dump(2) << "\n";
    } else {
      printText(cpu);
    }
  });
}

}  // namespace csumtune::cli
