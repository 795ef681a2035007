// Small pieces every verb needs, so each reports bad input the same way.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "csumtune/gen/params.hpp"
#include "measure/kernel_source.hpp"
#include "measure/workload.hpp"
#include "source_file.hpp"

namespace csumtune::cli {

// Option validators that refuse instead of clamping: a finite number in [lo, hi] (NaN and
// infinities are refused), and an unsigned 64-bit integer written as plain decimal digits.
CLI::Validator finiteIn(double lo, double hi);
CLI::Validator unsigned64();

// An option whose value is one of a few names, each standing for one value of an enum: the
// name is checked, the enum value stored (no strings travel past the command line), and the
// help shows the names and the default (the target's value when the option is added).
template <typename Enum>
CLI::Option* addChoice(CLI::App* cmd, const std::string& name, Enum& target,
                       const std::vector<std::pair<std::string, Enum>>& choices,
                       const std::string& help) {
  std::vector<std::string> names;
  std::string fallback;
  for (const auto& [text, value] : choices) {
    names.push_back(text);
    if (value == target && fallback.empty()) fallback = text;  // the first name of a value
  }
  return cmd
      ->add_option_function<std::string>(
          name,
          [&target, choices](const std::string& text) {
            for (const auto& [candidate, value] : choices)
              if (candidate == text) target = value;
          },
          help)
      ->check(CLI::IsMember(names))
      ->default_str(fallback);
}

// The choices every verb spells the same way.
const std::vector<std::pair<std::string, tuner::CacheState>> kCaches{
    {"hot", tuner::CacheState::Hot}, {"cold", tuner::CacheState::Cold}};
const std::vector<std::pair<std::string, gen::Kind>> kKinds{{"sum", gen::Kind::Sum},
                                                            {"copy", gen::Kind::Copy}};
const std::vector<std::pair<std::string, tuner::SourceStyle>> kStyles{
    {"kernel", tuner::SourceStyle::Kernel}, {"gas", tuner::SourceStyle::Gas}};

// The width help is wrapped to: the terminal's (stdout), at least 60; 100 when stdout is not
// a terminal.
std::size_t helpWidth();

// Help text wrapped to `width` columns: descriptions broken at spaces and indented under
// their column, the verbs' and options' names left as they are (a name is never split).
void useWrappedHelp(CLI::App& app, std::size_t width);

// Parses and validates --params; tuner::BadRequest ("bad --params '...': rule") on failure.
gen::Params parseParamsOption(const std::string& text);

// Writes to standard output (path empty or "-") or atomically to a file; tuner::BadRequest when the
// file cannot be written, and when binary data would go to a terminal.
void writeOutput(const std::string& path, std::string_view content, bool binary = false);

// Before the work starts: `-o FILE` can be written (tuner::BadRequest otherwise). "" and "-" are
// standard output.
void checkOutput(const std::string& path);

// Says on stderr (unless quiet) that a tree's csum_partial was verified with readable bytes
// after each buffer, for its zero-padding tail load. (SourceBaseline verifies it as it loads.)
void noteSourceSlack(const tuner::SourceBaseline& source, bool quiet);

}  // namespace csumtune::cli
