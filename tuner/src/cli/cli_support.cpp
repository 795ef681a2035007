#include "cli_support.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "atomic_file.hpp"
#include "commands.hpp"

namespace csumtune::cli {

gen::Params parseParamsOption(const std::string& text) {
  try {
    return gen::parseParams(text);
  } catch (const gen::ParamsError& e) {
    throw UsageError(fmt::format("bad --params '{}': {}", text, e.what()));
  }
}

void writeOutput(const std::string& path, std::string_view content, bool binary) {
  if (path.empty() || path == "-") {
    if (binary && isatty(STDOUT_FILENO)) {
      throw UsageError("refusing to write binary to a terminal; use -o FILE");
    }
    std::fwrite(content.data(), 1, content.size(), stdout);
    std::fflush(stdout);
    return;
  }
  try {
    tuner::writeFileAtomically(path, content);
  } catch (const tuner::FileError& e) {
    throw UsageError(e.what());
  }
}

}  // namespace csumtune::cli
