#include "cli_support.hpp"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "atomic_file.hpp"
#include "commands.hpp"
#include "verify/verify.hpp"

namespace csumtune::cli {

CLI::Validator finiteIn(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        double value = 0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() ||
            !std::isfinite(value) || value < lo || value > hi) {
          return fmt::format("'{}' is not a number in {}..{}", text, lo, hi);
        }
        return {};
      },
      fmt::format("NUMBER in [{} - {}]", lo, hi));
}

CLI::Validator unsigned64() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t value = 0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
          return fmt::format("'{}' is not an integer in 0..18446744073709551615", text);
        }
        return {};
      },
      "UINT64");
}

void checkOutput(const std::string& path) {
  if (path.empty() || path == "-") return;
  try {
    tuner::checkWritable(path);
  } catch (const tuner::FileError& e) {
    throw tuner::BadRequest(e.what());
  }
}

gen::Params parseParamsOption(const std::string& text) {
  try {
    return gen::parseParams(text);
  } catch (const gen::ParamsError& e) {
    throw tuner::BadRequest(fmt::format("bad --params '{}': {}", text, e.what()));
  }
}

void writeOutput(const std::string& path, std::string_view content, bool binary) {
  if (path.empty() || path == "-") {
    if (binary && isatty(STDOUT_FILENO)) {
      throw tuner::BadRequest("refusing to write binary to a terminal; use -o FILE");
    }
    if (std::fwrite(content.data(), 1, content.size(), stdout) != content.size() ||
        std::fflush(stdout) != 0) {
      throw tuner::BadRequest(std::string("cannot write to standard output: ") +
                              std::strerror(errno));
    }
    return;
  }
  try {
    tuner::writeFileAtomically(path, content);
  } catch (const tuner::FileError& e) {
    throw tuner::BadRequest(e.what());
  }
}

void noteSourceSlack(const tuner::SourceBaseline& source, bool quiet) {
  if (quiet || source.copies()) return;
  std::fprintf(stderr, "csumtune: note: %s\n", tuner::slackNote(source).c_str());
}

}  // namespace csumtune::cli
