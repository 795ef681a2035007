// Runs code that may read outside its buffer and turns the fault into a report instead of
// a crash, so `verify` can say which length and offset went wrong and exit 1.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

namespace csumtune::tuner {

// Runs `body` with SIGSEGV/SIGBUS trapped on this thread. Returns the faulting address
// when the body faulted (the body is then abandoned mid-way: keep any state it must report
// in memory that outlives it), or nothing when it ran to completion. Nested use is not
// supported; concurrent use from different threads is.
std::optional<std::uintptr_t> runTrappingFaults(const std::function<void()>& body);

}  // namespace csumtune::tuner
