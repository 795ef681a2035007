#include "measure/child_wait.hpp"

#include <sys/wait.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

namespace csumtune::tuner {

ChildWait waitForChild(pid_t pid, double seconds, bool group,
                       const volatile std::sig_atomic_t* stop) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return {ChildWait::End::Finished, status};
    if (done < 0 && errno != EINTR) return {ChildWait::End::Lost, 0};
    const bool stopped = stop && *stop;
    if (stopped || Clock::now() >= deadline) {
      kill(group ? -pid : pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return {stopped ? ChildWait::End::Stopped : ChildWait::End::Late, status};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

std::string describeChildEnd(int status) {
  if (WIFSIGNALED(status)) {
    return fmt::format("signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  }
  return fmt::format("exit status {}", WEXITSTATUS(status));
}

}  // namespace csumtune::tuner
