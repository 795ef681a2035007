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

// Proves a tree's own file before it is timed: the full plan over Linux's domain (len >= 0),
// with readable bytes after each buffer for its zero-padding tail load (said on stderr unless
// quiet). CheckFailed when it is wrong.
void verifySourceBaseline(const tuner::SourceBaseline& source, std::uint64_t seed, bool quiet);

// The tree's csum-copy_64.S, proven a correct copy (through its ones'-complement adapter)
// before it is timed. Throws CheckFailed.
void verifySourceCopy(const tuner::SourceBaseline& source, std::uint64_t seed);

}  // namespace csumtune::cli
