// Small pieces every verb needs, so each reports bad input the same way.
#pragma once

#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "csumtune/gen/params.hpp"
#include "measure/kernel_source.hpp"

namespace csumtune::cli {

// Option validators that refuse instead of clamping: a finite number in [lo, hi] (NaN and
// infinities are refused), and an unsigned 64-bit integer written as plain decimal digits.
CLI::Validator finiteIn(double lo, double hi);
CLI::Validator unsigned64();

// Parses and validates --params; UsageError ("bad --params '...': rule") on failure.
gen::Params parseParamsOption(const std::string& text);

// Writes to standard output (path empty or "-") or atomically to a file; UsageError when the
// file cannot be written, and when binary data would go to a terminal.
void writeOutput(const std::string& path, std::string_view content, bool binary = false);

// Before the work starts: `-o FILE` can be written (UsageError otherwise). "" and "-" are
// standard output.
void checkOutput(const std::string& path);

// Says on stderr (unless quiet) that a tree's csum_partial was verified with readable bytes
// after each buffer, for its zero-padding tail load. (SourceBaseline verifies it as it loads.)
void noteSourceSlack(const tuner::SourceBaseline& source, bool quiet);

}  // namespace csumtune::cli
