#include "measure/timed_kernels.hpp"

#include "measure/shared_addresses.hpp"

#include "measure/code_size.hpp"

namespace csumtune::tuner {

const char* toString(TimedKind kind) {
  switch (kind) {
    case TimedKind::Jit:
      return "jit";
    case TimedKind::Linked:
      return "asm";
    case TimedKind::BaselineC:
      return "baseline-c";
    case TimedKind::BaselineLinux:
      return "baseline-linux";
    case TimedKind::BaselineOurs:
      return "baseline-ours";
    case TimedKind::BaselineSource:
      return "baseline-source";
    case TimedKind::BaselineTwoPass:
      return "baseline-two-pass";
    case TimedKind::Bound:
      return "bound";
  }
  return "?";
}

TimedKernel timedBaseline(const Baseline& baseline, bool movable) {
  TimedKernel timed{baseline.name, "", baseline.kind, baseline.fn};
  if (baseline.copyFn) {
    timed.call = TimedKernel::Call::Copy;
    timed.copyFn = baseline.timedCopyFn ? baseline.timedCopyFn : baseline.copyFn;
    timed.bytes = functionSize(reinterpret_cast<const void*>(timed.copyFn));
  } else if (movable) {
    timed.bytes = functionSize(reinterpret_cast<const void*>(timed.fn));
    timed.movable = timed.bytes > 0;
  }
  return timed;
}

TimedKernel timedKernel(const Kernel& kernel, std::string name) {
  TimedKernel timed{name.empty() ? kernel.canonical() : std::move(name), kernel.canonical(),
                    TimedKind::Jit, kernel.fn(), kernel.size()};
  if (kernel.copies()) {
    timed.call = TimedKernel::Call::Copy;
    timed.copyFn = kernel.copyFn();
  } else {
    timed.movable = timed.bytes <= SharedAddresses::kMaxCodeBytes;
  }
  return timed;
}

}  // namespace csumtune::tuner
