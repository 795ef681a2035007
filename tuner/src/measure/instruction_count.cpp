#include "measure/instruction_count.hpp"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "measure/taken_branch.hpp"

// A function that is one `ret` and nothing else: the empty twin of every call, so that the
// caller's side of a call (argument set-up, the call, storing the result) can be subtracted.
// A C++ function returning 0 would add an `xor` of its own.
asm(R"(
  .text
  .p2align 4
  .type csumtune_instruction_count_empty, @function
csumtune_instruction_count_empty:
  ret
  .size csumtune_instruction_count_empty, .-csumtune_instruction_count_empty
)");
extern "C" std::uint32_t csumtune_instruction_count_empty(const void*, int, std::uint32_t);

namespace csumtune::tuner {
namespace {

constexpr int kChildCannotTrace = 97;
// A call that steps this often is not a checksum of a buffer bench times (a loop that never ends).
constexpr std::uint64_t kMaxSteps = 200'000'000;

struct Call {
  KernelFn fn = nullptr;
  CopyFn copyFn = nullptr;
};

// The region the parent counts: everything between the two int3. Empty and real calls run
// this same code, so the difference of their counts is the callee's own.
[[gnu::noinline]] std::uint32_t bracketedCall(Call call, const void* buf, void* dst, int len,
                                              std::uint32_t sum) {
  asm volatile("int3" ::: "memory");
  const std::uint32_t result =
      call.copyFn ? call.copyFn(buf, dst, len, sum) : call.fn(buf, len, sum);
  asm volatile("int3" ::: "memory");
  return result;
}

// The child: stops until the parent traces it, then for each size the empty call and the real
// one. Only async-signal-safe calls after fork.
[[noreturn]] void runChild(Call real, Call empty, const InstructionCountRequest& request,
                           const std::uint8_t* buf, std::uint8_t* dst) {
  if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0) _exit(kChildCannotTrace);
  raise(SIGSTOP);
  volatile std::uint32_t sink = 0;
  for (const int len : request.sizes) {
    sink = sink + bracketedCall(empty, buf, dst, len, request.sum);
    sink = sink + bracketedCall(real, buf, dst, len, request.sum);
  }
  _exit(0);
}

class TracedChild {
 public:
  explicit TracedChild(pid_t pid) : pid_(pid) {}
  TracedChild(const TracedChild&) = delete;
  TracedChild& operator=(const TracedChild&) = delete;
  ~TracedChild() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }

  // Waits for the child's next stop; `what` names the step for a message.
  int waitStop(const char* what) {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0) {
      if (errno != EINTR) throw InstructionCountError(fmt::format("waitpid: {}", strerror(errno)));
    }
    if (WIFEXITED(status)) {
      pid_ = 0;
      if (WEXITSTATUS(status) == kChildCannotTrace) {
        throw InstructionCountError(
            "cannot count instructions here: ptrace is not permitted (a seccomp profile or "
            "kernel.yama.ptrace_scope=3)");
      }
      throw InstructionCountError(
          fmt::format("the counting child exited ({}) {}", WEXITSTATUS(status), what));
    }
    if (WIFSIGNALED(status)) {
      pid_ = 0;
      throw InstructionCountError(
          fmt::format("the counting child died of signal {} {}", WTERMSIG(status), what));
    }
    return WSTOPSIG(status);
  }

  void resume(__ptrace_request how) {
    if (ptrace(how, pid_, nullptr, nullptr) != 0)
      throw InstructionCountError(fmt::format("ptrace: {}", strerror(errno)));
  }

  // From the opening int3 to the closing one: the instructions executed between them, and
  // how many of them took a branch (each step's address against the one before it).
  CallCount countToNextBreakpoint(const std::string& name, int len) {
    resume(PTRACE_CONT);
    if (waitStop("before a call") != SIGTRAP)
      throw InstructionCountError("the counting child stopped on another signal");
    CallCount count;
    std::uint64_t at = rip();
    for (std::uint64_t steps = 0; steps < kMaxSteps; ++steps) {
      resume(PTRACE_SINGLESTEP);
      const int signal = waitStop("while single-stepping");
      if (signal != SIGTRAP) {
        throw InstructionCountError(fmt::format("{} at {} bytes: signal {} ({}) while counting",
                                                name, len, signal, strsignal(signal)));
      }
      siginfo_t info{};
      if (ptrace(PTRACE_GETSIGINFO, pid_, nullptr, &info) != 0)
        throw InstructionCountError(fmt::format("ptrace: {}", strerror(errno)));
      // A step reports TRAP_TRACE; the closing int3 (the step that executed it) SI_KERNEL.
      if (info.si_code == SI_KERNEL) {
        count.instructions = steps;
        return count;
      }
      const std::uint64_t next = rip();
      if (tookBranch(at, next, wantsCode(at, next) ? codeAt(at) : std::span<const std::uint8_t>{}))
        ++count.takenBranches;
      at = next;
    }
    throw InstructionCountError(
        fmt::format("{} at {} bytes: more than {} instructions", name, len, kMaxSteps));
  }

  std::uint64_t rip() {
    errno = 0;
    const long value =
        ptrace(PTRACE_PEEKUSER, pid_, offsetof(struct user_regs_struct, rip), nullptr);
    if (errno != 0) throw InstructionCountError(fmt::format("ptrace: {}", strerror(errno)));
    return static_cast<std::uint64_t>(value);
  }

  // The child's bytes at `address`: 16, or as many as are mapped. One remote iovec per byte,
  // because process_vm_readv stops at the first element it cannot read. Where a seccomp
  // profile refuses process_vm_readv, ptrace reads them a word at a time instead.
  std::span<const std::uint8_t> codeAt(std::uint64_t address) {
    std::array<iovec, 16> remote{};
    for (std::size_t i = 0; i < remote.size(); ++i)
      remote[i] = {reinterpret_cast<void*>(address + i), 1};
    iovec local{code_.data(), code_.size()};
    const ssize_t have = process_vm_readv(pid_, &local, 1, remote.data(), remote.size(), 0);
    if (have >= 0) return {code_.data(), static_cast<std::size_t>(have)};
    if (errno == EFAULT) return {};
    std::size_t words = 0;
    for (; words * sizeof(long) < code_.size(); ++words) {
      errno = 0;
      const long word = ptrace(PTRACE_PEEKTEXT, pid_, address + words * sizeof(long), nullptr);
      if (errno == EIO || errno == EFAULT) break;  // the end of the mapping
      if (errno != 0) throw InstructionCountError(fmt::format("ptrace: {}", strerror(errno)));
      std::memcpy(code_.data() + words * sizeof(long), &word, sizeof word);
    }
    return {code_.data(), words * sizeof(long)};
  }

  void finish() {
    resume(PTRACE_CONT);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = 0;
  }

 private:
  pid_t pid_;
  std::array<std::uint8_t, 16> code_{};
};

}  // namespace

std::vector<std::uint64_t> countInstructions(const TimedKernel& kernel,
                                             const InstructionCountRequest& request) {
  std::vector<std::uint64_t> instructions;
  for (const CallCount& count : countCalls(kernel, request))
    instructions.push_back(count.instructions);
  return instructions;
}

std::vector<CallCount> countCalls(const TimedKernel& kernel,
                                  const InstructionCountRequest& request) {
  if (kernel.call == TimedKernel::Call::MemcpyThenSum) {
    throw InstructionCountError(kernel.name +
                                ": memcpy's instructions are the C library's, not counted");
  }
  int maxLen = 0;
  for (const int len : request.sizes) maxLen = std::max(maxLen, len);
  std::vector<std::uint8_t> src(static_cast<std::size_t>(maxLen) + 128);
  std::vector<std::uint8_t> dst(src.size());
  std::mt19937_64 random(request.seed);
  for (auto& byte : src) byte = static_cast<std::uint8_t>(random());
  const std::uint8_t* buf =
      src.data() + ((request.offset - reinterpret_cast<std::uintptr_t>(src.data())) & 63);

  Call real, empty;
  if (kernel.call == TimedKernel::Call::Copy) {
    real.copyFn = kernel.copyFn;
    // (Through void (*)(): the empty function ignores its arguments, whatever their types.)
    empty.copyFn =
        reinterpret_cast<CopyFn>(reinterpret_cast<void (*)()>(&csumtune_instruction_count_empty));
  } else {
    real.fn = kernel.fn;
    empty.fn = &csumtune_instruction_count_empty;
  }

  const pid_t pid = fork();
  if (pid < 0) throw InstructionCountError(fmt::format("fork: {}", strerror(errno)));
  if (pid == 0) runChild(real, empty, request, buf, dst.data());
  TracedChild child(pid);
  if (child.waitStop("before it started") != SIGSTOP)
    throw InstructionCountError("the counting child did not stop as it should");
  if (ptrace(PTRACE_SETOPTIONS, pid, nullptr, PTRACE_O_EXITKILL) != 0)
    throw InstructionCountError(fmt::format("ptrace: {}", strerror(errno)));
  std::vector<CallCount> counts;
  for (const int len : request.sizes) {
    const CallCount caller = child.countToNextBreakpoint("the empty call", len);
    const CallCount call = child.countToNextBreakpoint(kernel.name, len);
    // The empty call is the caller's side plus one `ret`, which is also a taken branch.
    counts.push_back({call.instructions + 1 - caller.instructions,
                      call.takenBranches + 1 - caller.takenBranches});
  }
  child.finish();
  return counts;
}

}  // namespace csumtune::tuner
