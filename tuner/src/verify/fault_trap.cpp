#include "verify/fault_trap.hpp"

#include <csetjmp>
#include <csignal>
#include <mutex>

namespace csumtune::tuner {
namespace {

thread_local sigjmp_buf* activeJump = nullptr;
thread_local std::uintptr_t faultAddress = 0;

void onFault(int signal, siginfo_t* info, void*) {
  if (activeJump == nullptr) {
    // Not ours: behave as if no handler were installed.
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  faultAddress = reinterpret_cast<std::uintptr_t>(info->si_addr);
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
  });
}

}  // namespace

std::optional<std::uintptr_t> runTrappingFaults(const std::function<void()>& body) {
  installHandlersOnce();
  sigjmp_buf jump;
  if (sigsetjmp(jump, 1) != 0) {
    activeJump = nullptr;
    return faultAddress;
  }
  activeJump = &jump;
  body();
  activeJump = nullptr;
  return std::nullopt;
}

}  // namespace csumtune::tuner
