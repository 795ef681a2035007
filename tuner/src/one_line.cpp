#include "one_line.hpp"

#include <cstdint>

namespace csumtune::tuner {
namespace {

bool isFormatControl(std::uint32_t cp) {
  return cp == 0x061C || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFEFF;
}

bool isControl(std::uint32_t cp) {
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

// The UTF-8 sequence at text[at]: its code point and length, or length 0 when it is not one
// (truncated, overlong, a surrogate, beyond U+10FFFF, a stray continuation byte).
std::pair<std::uint32_t, std::size_t> decodeAt(std::string_view text, std::size_t at) {
  const auto c = static_cast<unsigned char>(text[at]);
  std::uint32_t cp = 0;
  std::size_t length = 0;
  if (c < 0x80) return {c, 1};
  if ((c & 0xE0) == 0xC0) {
    cp = c & 0x1F;
    length = 2;
  } else if ((c & 0xF0) == 0xE0) {
    cp = c & 0x0F;
    length = 3;
  } else if ((c & 0xF8) == 0xF0) {
    cp = c & 0x07;
    length = 4;
  } else {
    return {0, 0};
  }
  if (at + length > text.size()) return {0, 0};
  for (std::size_t k = 1; k < length; ++k) {
    const auto d = static_cast<unsigned char>(text[at + k]);
    if ((d & 0xC0) != 0x80) return {0, 0};
    cp = (cp << 6) | (d & 0x3F);
  }
  if ((length == 2 && cp < 0x80) || (length == 3 && cp < 0x800) ||
      (length == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
    return {0, 0};
  return {cp, length};
}

}  // namespace

bool hasUnsafeChars(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    const auto [cp, length] = decodeAt(text, at);
    if (length == 0 || isControl(cp) || isFormatControl(cp)) return true;
    at += length;
  }
  return false;
}

std::string oneLine(std::string_view text) {
  std::string clean;
  for (std::size_t at = 0; at < text.size();) {
    const auto [cp, length] = decodeAt(text, at);
    if (length == 0) {
      clean += '?';
      ++at;
      continue;
    }
    if (isControl(cp) || isFormatControl(cp))
      clean += '?';
    else
      clean.append(text.substr(at, length));
    at += length;
  }
  std::string out;
  for (const char c : clean) {
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    // "*/" would close the comment the text is printed in, "/*" open one.
    if (!out.empty() && ((out.back() == '*' && c == '/') || (out.back() == '/' && c == '*')))
      out += ' ';
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

}  // namespace csumtune::tuner
