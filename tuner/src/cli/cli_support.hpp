// Small pieces every verb needs, so each reports bad input the same way.
#pragma once

#include <string>
#include <string_view>

#include "csumtune/gen/params.hpp"

namespace csumtune::cli {

// Parses and validates --params; UsageError ("bad --params '...': rule") on failure.
gen::Params parseParamsOption(const std::string& text);

// Writes to standard output (path empty or "-") or atomically to a file; UsageError when the
// file cannot be written, and when binary data would go to a terminal.
void writeOutput(const std::string& path, std::string_view content, bool binary = false);

}  // namespace csumtune::cli
