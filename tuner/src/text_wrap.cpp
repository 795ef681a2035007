#include "text_wrap.hpp"

namespace csumtune::tuner {
namespace {

std::vector<std::string> splitAt(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find(separator, start);
    if (end == std::string_view::npos) {
      parts.emplace_back(text.substr(start));
      break;
    }
    parts.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// A word too long for `width`: pieces that each end after a comma, greedily filled.
std::vector<std::string> breakAfterCommas(const std::string& word, std::size_t width) {
  std::vector<std::string> pieces;
  std::size_t start = 0;
  while (start < word.size()) {
    std::size_t end = word.size();
    if (end - start > width) {
      const std::size_t comma = word.rfind(',', start + width - 1);
      end = comma != std::string::npos && comma >= start ? comma + 1 : start + width;
    }
    pieces.push_back(word.substr(start, end - start));
    start = end;
  }
  return pieces;
}

}  // namespace

std::vector<std::string> wrapWords(std::string_view words, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  for (const std::string& word : splitAt(words, ' ')) {
    if (word.empty()) continue;
    if (!line.empty() && line.size() + 1 + word.size() <= width) {
      line += ' ' + word;
      continue;
    }
    if (!line.empty()) lines.push_back(line);
    line.clear();
    if (word.size() <= width) {
      line = word;
      continue;
    }
    auto pieces = breakAfterCommas(word, width);
    for (std::size_t i = 0; i + 1 < pieces.size(); ++i) lines.push_back(pieces[i]);
    line = pieces.back();
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string wrapShellCommand(std::string_view command, std::size_t width) {
  // Room for the " \" and "\" the continuation lines end with, and the indent of two.
  const std::size_t room = width > 4 ? width - 4 : width;
  std::string out, line;
  const auto endLine = [&](const std::string& ending) {
    out += line + ending + "\n";
    line.clear();
  };
  for (const std::string& word : splitAt(command, ' ')) {
    if (word.empty()) continue;
    if (!line.empty() && line.size() + 1 + word.size() <= room) {
      line += ' ' + word;
      continue;
    }
    if (!line.empty()) {
      endLine(" \\");
      line = "  ";
    }
    if (line.size() + word.size() <= room) {
      line += word;
      continue;
    }
    // Pieces joined by backslash-newline with nothing before the next piece: one word again.
    auto pieces = breakAfterCommas(word, room);
    for (std::size_t i = 0; i + 1 < pieces.size(); ++i) {
      line += pieces[i];
      endLine("\\");
    }
    line += pieces.back();
  }
  out += line;
  return out;
}

}  // namespace csumtune::tuner
