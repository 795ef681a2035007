#include "cli_support.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>

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

std::size_t helpWidth() {
  winsize size{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return std::max<std::size_t>(60, size.ws_col);
  return 100;
}

namespace {

// `text` broken at spaces into lines of at most `width` columns (a word longer than that
// stands alone on its line); the text's own line breaks are kept.
std::vector<std::string> wrapWords(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::istringstream paragraphs(text);
  for (std::string paragraph; std::getline(paragraphs, paragraph);) {
    // A paragraph's leading spaces (a list under a heading line) stay on each of its lines.
    const std::size_t indent = std::min(paragraph.find_first_not_of(' '), paragraph.size());
    const std::string lead(indent, ' ');
    std::istringstream words(paragraph.substr(indent));
    std::string line;
    for (std::string word; words >> word;) {
      if (!line.empty() && line.size() + 1 + word.size() > width) {
        lines.push_back(line);
        line = lead + (indent > 0 ? "  " : "");
      } else if (line.empty()) {
        line = lead;
      } else {
        line += ' ';
      }
      line += word;
    }
    lines.push_back(line);
  }
  if (lines.empty()) lines.emplace_back();
  return lines;
}

class WrappedHelp : public CLI::Formatter {
 public:
  explicit WrappedHelp(std::size_t width) : width_(width) { column_width(30); }

  std::string make_option(const CLI::Option* opt, bool positional) const override {
    return twoColumns(make_option_name(opt, positional) + make_option_opts(opt),
                      make_option_desc(opt));
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    return twoColumns(sub->get_display_name(true), sub->get_description());
  }
  std::string make_description(const CLI::App* app) const override {
    const std::string text = CLI::Formatter::make_description(app);
    std::string out;
    for (const std::string& line : wrapWords(text, width_))
      if (!line.empty()) out += line + "\n";
    return out;
  }

 private:
  // "  NAME  description", the description from column_width_ on, wrapped to width_.
  std::string twoColumns(const std::string& name, const std::string& description) const {
    const std::size_t column = get_column_width();
    std::string out = "  " + name;
    if (description.empty()) return out + "\n";
    const std::size_t room = width_ > column + 20 ? width_ - column : 20;
    if (out.size() >= column) {
      out += "\n" + std::string(column, ' ');
    } else {
      out += std::string(column - out.size(), ' ');
    }
    bool first = true;
    for (const std::string& line : wrapWords(description, room)) {
      if (!first) out += "\n" + std::string(column, ' ');
      out += line;
      first = false;
    }
    return out + "\n";
  }

  std::size_t width_;
};

}  // namespace

void useWrappedHelp(CLI::App& app, std::size_t width) {
  app.formatter(std::make_shared<WrappedHelp>(width));
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
