#include "report/instruction_table.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/bench_report.hpp"

namespace csumtune::tuner {
namespace {

// CSV quoting: params strings hold commas.
std::string csvField(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// What the others are compared with: linux-v6.8 when the baselines run (plain C comes first),
// as in bench's timing table; else the first row.
std::size_t referenceRow(const InstructionTable& table) {
  for (std::size_t k = 0; k < table.rows.size(); ++k)
    if (table.rows[k].name == "linux-v6.8") return k;
  return 0;
}

}  // namespace

namespace {

// One block: a line per length, a column per kernel, and each count over the reference's.
std::string countBlock(const InstructionTable& table,
                       std::vector<std::uint64_t> InstructionRow::*counts) {
  const std::size_t ref = referenceRow(table);
  std::string out;
  if (table.rows.size() > 1)
    out += fmt::format("  (/[{}]: the count over [{}]'s)\n", ref + 1, ref + 1);
  out += fmt::format("{:>7}", "length");
  for (std::size_t k = 0; k < table.rows.size(); ++k) {
    out += fmt::format(" {:>7}", fmt::format("[{}]", k + 1));
    if (k != ref) out += fmt::format(" {:>6}", fmt::format("/[{}]", ref + 1));
  }
  out += "\n";
  for (std::size_t s = 0; s < table.sizes.size(); ++s) {
    out += fmt::format("{:>7}", table.sizes[s]);
    const double reference =
        table.rows.empty() ? 0.0 : static_cast<double>((table.rows[ref].*counts)[s]);
    for (std::size_t k = 0; k < table.rows.size(); ++k) {
      const std::uint64_t count = (table.rows[k].*counts)[s];
      out += fmt::format(" {:>7}", count);
      if (k == ref) continue;
      out += reference > 0 ? fmt::format(" {:>6.2f}", static_cast<double>(count) / reference)
                           : fmt::format(" {:>6}", "-");
    }
    out += "\n";
  }
  return out;
}

bool allTaken(const InstructionTable& table) {
  return std::all_of(table.rows.begin(), table.rows.end(), [&](const InstructionRow& row) {
    return row.taken.size() == table.sizes.size();
  });
}

}  // namespace

std::string formatInstructionTable(const InstructionTable& table) {
  std::string out = fmt::format(
      "instructions per call (each call single-stepped once: its own instructions, the final ret "
      "included), buf mod 64 = {}, {}\n",
      table.offset, cpuKey(table.cpu));
  for (std::size_t k = 0; k < table.rows.size(); ++k) {
    const InstructionRow& row = table.rows[k];
    out += fmt::format("  [{}] {}{}\n", k + 1, row.name,
                       row.bytes ? fmt::format(" ({} B)", row.bytes) : std::string());
  }
  for (const std::string& skipped : table.notCounted) out += "  not counted: " + skipped + "\n";
  out += countBlock(table, &InstructionRow::counts);
  if (allTaken(table) && !table.rows.empty()) {
    out +=
        "\ntaken branches per call (jumps taken, the final ret included; a jump to the next "
        "instruction is not one)\n";
    out += countBlock(table, &InstructionRow::taken);
  }
  return out;
}

std::string formatInstructionJson(const InstructionTable& table) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const InstructionRow& row : table.rows) {
    kernels.push_back({{"name", row.name},
                       {"params", row.params},
                       {"kind", row.kind},
                       {"bytes", row.bytes},
                       {"instructions", row.counts},
                       {"taken_branches", row.taken}});
  }
  const nlohmann::json doc = {
      {"schema", kInstructionSchema}, {"cpu", cpuJson(table.cpu)},
      {"offset", table.offset},       {"sizes", table.sizes},
      {"kernels", kernels},           {"not_counted", table.notCounted},
  };
  return doc.dump(2) + "\n";
}

std::string formatInstructionCsv(const InstructionTable& table) {
  std::string out = "name,params,kind,bytes,length,instructions,taken_branches\n";
  for (const InstructionRow& row : table.rows) {
    for (std::size_t s = 0; s < table.sizes.size(); ++s) {
      out += fmt::format("{},{},{},{},{},{},{}\n", csvField(row.name), csvField(row.params),
                         row.kind, row.bytes, table.sizes[s], row.counts[s],
                         s < row.taken.size() ? std::to_string(row.taken[s]) : std::string());
    }
  }
  return out;
}

}  // namespace csumtune::tuner
