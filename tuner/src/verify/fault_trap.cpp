#include "verify/fault_trap.hpp"

#include <csetjmp>
#include <csignal>
#include <mutex>

namespace csumtune::tuner {
namespace {

thread_local sigjmp_buf* activeJump = nullptr;
thread_local Fault lastFault;

void onFault(int signal, siginfo_t* info, void*) {
  if (activeJump == nullptr) {
    // Not ours: behave as if no handler were installed.
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  lastFault = {signal, reinterpret_cast<std::uintptr_t>(info->si_addr)};
  siglongjmp(*activeJump, 1);
}

void installHandlersOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = onFault;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, nullptr);
    sigaction(SIGBUS, &action, nullptr);
    sigaction(SIGTRAP, &action, nullptr);
    sigaction(SIGILL, &action, nullptr);
  });
}

}  // namespace

std::optional<Fault> runTrappingFaults(const std::function<void()>& body) {
  installHandlersOnce();
  sigjmp_buf jump;
  if (sigsetjmp(jump, 1) != 0) {
    activeJump = nullptr;
    return lastFault;
  }
  activeJump = &jump;
  body();
  activeJump = nullptr;
  return std::nullopt;
}

}  // namespace csumtune::tuner
