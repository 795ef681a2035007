// bench --count-instructions: how many instructions one call executes at each length, per
// kernel, as a table for a reader and as JSON or CSV for scripts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "csumtune/cpu.hpp"

namespace csumtune::tuner {

inline constexpr const char* kInstructionSchema = "csumtune-instructions/1";

struct InstructionRow {
  std::string name;    // as bench names the row ("linux-v6.8", the canonical params, ...)
  std::string params;  // canonical params ("" for a baseline)
  std::string kind;    // toString(TimedKind)
  std::size_t bytes = 0;
  std::vector<std::uint64_t> counts;  // instructions, one per size
  std::vector<std::uint64_t> taken;   // taken branches, one per size (empty: not counted)
};

struct InstructionTable {
  CpuIdentity cpu;
  std::vector<int> sizes;
  int offset = 0;
  std::vector<InstructionRow> rows;
  std::vector<std::string> notCounted;  // rows bench would time but cannot count
};

// One line per length, one column per kernel (numbered; the names above the table), and each
// kernel's count as a ratio to linux-v6.8's (when the baselines run; else the first row's);
// then the same for taken branches.
std::string formatInstructionTable(const InstructionTable& table);
std::string formatInstructionJson(const InstructionTable& table);
std::string formatInstructionCsv(const InstructionTable& table);

}  // namespace csumtune::tuner
