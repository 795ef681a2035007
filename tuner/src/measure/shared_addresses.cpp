#include "measure/shared_addresses.hpp"

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "measure/child_wait.hpp"

namespace csumtune::tuner {
namespace {

constexpr std::size_t kSpan = std::size_t{2} << 20;  // where the addresses are drawn
constexpr std::uint8_t kInt3 = 0xcc;

std::uint64_t splitMix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The lengths, alignments and sums a moved copy must agree with its original on.
struct MoveCheck {
  static constexpr int kSlack = 4096 + 64;
  static constexpr int kLongest = 65536;  // the longest length bench and tune time by default
  std::vector<std::uint8_t> data = std::vector<std::uint8_t>(kLongest + 2 * kSlack);
  MoveCheck() {
    std::uint64_t x = 0x5eed;
    for (auto& byte : data) byte = static_cast<std::uint8_t>((x = splitMix(x)) >> 56);
  }
  // 0 when the copy agrees everywhere, 1 at the first disagreement (run in the child).
  int run(KernelFn original, KernelFn copy) const {
    static constexpr int kLong[] = {1500, 4096, 9000, kLongest - 1, kLongest};
    static constexpr std::uint32_t kSums[] = {0, 0xffffffffu, 0x12345678u};
    for (int len = 0; len <= 305; ++len) {
      const int n = len <= 300 ? len : kLong[len - 301];
      for (int align : {0, 1, 3, 7, 62}) {
        const std::uint8_t* buf = data.data() + kSlack + align;
        for (std::uint32_t sum : kSums) {
          if (original(buf, n, sum) != copy(buf, n, sum)) return 1;
        }
      }
    }
    return 0;
  }
};

}  // namespace

SharedAddresses::SharedAddresses(std::uint64_t seed) : seed_(seed) {
  regionBytes_ = kSpan + kMaxCodeBytes;
  void* region = mmap(nullptr, regionBytes_, PROT_READ | PROT_WRITE | PROT_EXEC,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) {
    throw std::runtime_error(fmt::format("cannot map writable code memory for shared addresses: {}",
                                         std::strerror(errno)));
  }
  region_ = static_cast<std::uint8_t*>(region);
  std::memset(region_, kInt3, regionBytes_);
}

SharedAddresses::~SharedAddresses() {
  if (region_) munmap(region_, regionBytes_);
}

std::size_t SharedAddresses::offsetOf(int round) const {
  const std::uint64_t draw = splitMix(seed_ ^ splitMix(static_cast<std::uint64_t>(round)));
  return static_cast<std::size_t>(draw % kSpan) & ~std::size_t{15};
}

KernelFn SharedAddresses::install(const TimedKernel& kernel, int round) {
  if (!kernel.movable || kernel.bytes == 0 || kernel.bytes > kMaxCodeBytes)
    throw std::logic_error(kernel.name + " cannot be moved");
  std::memset(region_ + occupantAt_, kInt3, occupantBytes_);
  occupantAt_ = offsetOf(round);
  occupantBytes_ = kernel.bytes;
  ++installs_;
  std::uint8_t* at = region_ + occupantAt_;
  std::memcpy(at, reinterpret_cast<const void*>(kernel.fn), kernel.bytes);
  // x86 keeps instruction fetch coherent with stores; this says so to the compiler.
  __builtin___clear_cache(reinterpret_cast<char*>(at), reinterpret_cast<char*>(at + kernel.bytes));
  return reinterpret_cast<KernelFn>(at);
}

std::optional<std::string> SharedAddresses::whyNotMovable(const TimedKernel& kernel) {
  if (kernel.bytes == 0) return "its code's size is unknown";
  if (kernel.bytes > kMaxCodeBytes)
    return fmt::format("its {} bytes of code are more than {}", kernel.bytes, kMaxCodeBytes);
  const MoveCheck check;  // made before the fork: the child only calls and compares
  TimedKernel probe = kernel;
  probe.movable = true;
  const pid_t pid = fork();
  if (pid < 0) return fmt::format("fork failed: {}", std::strerror(errno));
  if (pid == 0) {
    const KernelFn copy = install(probe, 0);
    _exit(check.run(kernel.fn, copy));
  }
  // A copy that jumps back into itself forever is stopped after a while.
  const ChildWait wait = waitForChild(pid, 20);
  switch (wait.end) {
    case ChildWait::End::Finished:
      break;
    case ChildWait::End::Lost:
      return "lost the child that ran a copy at another address";
    case ChildWait::End::Late:
    case ChildWait::End::Stopped:
      return "a copy at another address did not return";
  }
  if (WIFSIGNALED(wait.status)) {
    return fmt::format("a copy at another address crashed ({})", describeChildEnd(wait.status));
  }
  if (WEXITSTATUS(wait.status) != 0) return "a copy at another address returns other sums";
  return std::nullopt;
}

}  // namespace csumtune::tuner
