#include "patch/git_identity.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

#include "one_line.hpp"

namespace csumtune::tuner {
namespace {

// One `git config` value: its first line's worth, at most 1 KiB read; "" when git fails.
std::string gitConfig(const std::string& root, const char* key) {
  int out[2];
  if (pipe(out) != 0) return "";
  const pid_t pid = fork();
  if (pid < 0) {
    close(out[0]);
    close(out[1]);
    return "";
  }
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    close(out[1]);
    if (FILE* none = std::freopen("/dev/null", "w", stderr); !none) _exit(127);
    execlp("git", "git", "-C", root.c_str(), "config", "--get", key, static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  // All of it is read (git is not cut off mid-write, which would read as "not set"), at most
  // 1 KiB and a byte kept: a longer value is refused as too long, not taken for missing.
  std::string value;
  char buffer[1024];
  for (ssize_t n; (n = read(out[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    if (value.size() <= 1024)
      value.append(buffer, std::min(static_cast<std::size_t>(n), 1025 - value.size()));
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
  if (!value.empty() && value.back() == '\n') value.pop_back();  // git's own line end
  return value;
}

std::string base64(const std::string& bytes) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t at = 0; at < bytes.size(); at += 3) {
    std::uint32_t group = static_cast<unsigned char>(bytes[at]) << 16;
    if (at + 1 < bytes.size()) group |= static_cast<unsigned char>(bytes[at + 1]) << 8;
    if (at + 2 < bytes.size()) group |= static_cast<unsigned char>(bytes[at + 2]);
    out += kDigits[(group >> 18) & 63];
    out += kDigits[(group >> 12) & 63];
    out += at + 1 < bytes.size() ? kDigits[(group >> 6) & 63] : '=';
    out += at + 2 < bytes.size() ? kDigits[group & 63] : '=';
  }
  return out;
}

bool hasControl(const std::string& text) {
  for (unsigned char c : text)
    if (c < 0x20 || c == 0x7f) return true;
  return false;
}

}  // namespace

std::string identityProblem(const std::string& name, const std::string& email) {
  if (name.size() > 200 || email.size() > 200) return "it is over 200 characters";
  if (hasControl(name) || hasControl(email))
    return "it holds a control character (a line break would add a mail header)";
  if (name.find_first_of("<>") != std::string::npos) return "the name holds < or >";
  if (email.find_first_of("<> ,;\"") != std::string::npos || email.find('@') == std::string::npos)
    return "the address is not of the form user@host";
  if (hasUnsafeChars(name) || hasUnsafeChars(email))
    return "it holds a Unicode bidi or format control, or bytes that are not UTF-8";
  return "";
}

std::string fromHeaderName(const std::string& name) {
  const bool ascii = std::all_of(name.begin(), name.end(),
                                 [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (!ascii) {
    // RFC 2047 encoded words of at most 75 characters, each whole UTF-8 characters, as git
    // format-patch writes them; the space between two words is not part of the name.
    std::string out;
    for (std::size_t at = 0; at < name.size();) {
      std::size_t end = std::min(name.size(), at + 45);
      while (end < name.size() && (static_cast<unsigned char>(name[end]) & 0xC0) == 0x80) --end;
      out += (out.empty() ? "" : " ") + ("=?UTF-8?B?" + base64(name.substr(at, end - at)) + "?=");
      at = end;
    }
    return out;
  }
  if (name.find_first_of("\"(),;:@[]\\.") == std::string::npos) return name;
  std::string quoted = "\"";
  for (const char c : name) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

GitIdentity gitIdentity(const std::string& root) {
  const std::string name = gitConfig(root, "user.name"), email = gitConfig(root, "user.email");
  if (name.empty() || email.empty()) return {};
  if (std::string why = identityProblem(name, email); !why.empty()) return {"", why};
  return {fmt::format("{} <{}>", fromHeaderName(name), email), ""};
}

}  // namespace csumtune::tuner
