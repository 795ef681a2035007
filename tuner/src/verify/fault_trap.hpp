// Runs code that may read outside its buffer and turns the fault into a report instead of
// a crash, so `verify` can say which length and offset went wrong and exit 1.
#pragma once

#include <csignal>
#include <cstdint>
#include <functional>
#include <optional>

namespace csumtune::tuner {

struct Fault {
  int signal = 0;
  std::uintptr_t address = 0;  // the address the signal names (si_addr)
  // SIGTRAP or SIGILL: the code ran on past its own end (the JIT fills free memory with int3).
  bool ranPastItsCode() const { return signal == SIGTRAP || signal == SIGILL; }
};

// Runs `body` with SIGSEGV, SIGBUS, SIGTRAP and SIGILL trapped on this thread. Returns the
// fault when the body faulted (the body is then abandoned mid-way: keep any state it must
// report in memory that outlives it), or nothing when it ran to completion. Nested use is not
// supported; concurrent use from different threads is.
std::optional<Fault> runTrappingFaults(const std::function<void()>& body);

}  // namespace csumtune::tuner
