#include "patch/git_identity.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include <fmt/format.h>

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
  std::string value;
  char buffer[1024];
  for (ssize_t n; value.size() < 1024 && (n = read(out[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    value.append(buffer, static_cast<std::size_t>(n));
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
  if (!value.empty() && value.back() == '\n') value.pop_back();  // git's own line end
  return value;
}

bool hasControl(const std::string& text) {
  for (unsigned char c : text)
    if (c < 0x20 || c == 0x7f) return true;
  return false;
}

}  // namespace

std::string identityProblem(const std::string& name, const std::string& email) {
  if (hasControl(name) || hasControl(email))
    return "it holds a control character (a line break would add a mail header)";
  if (name.find_first_of("<>") != std::string::npos) return "the name holds < or >";
  if (email.find_first_of("<> ,;\"") != std::string::npos || email.find('@') == std::string::npos)
    return "the address is not of the form user@host";
  if (name.size() > 200 || email.size() > 200) return "it is over 200 characters";
  return "";
}

GitIdentity gitIdentity(const std::string& root) {
  const std::string name = gitConfig(root, "user.name"), email = gitConfig(root, "user.email");
  if (name.empty() || email.empty()) return {};
  if (std::string why = identityProblem(name, email); !why.empty()) return {"", why};
  return {fmt::format("{} <{}>", name, email), ""};
}

}  // namespace csumtune::tuner
