// A kernel tree's own arch/x86/lib/csum-partial_64.c as a baseline (bench/tune
// --baseline-source FILE), or its csum-copy_64.S for copying kernels: compiled for user space with
// the system C compiler against csumtune's stand-in kernel headers (templates/kernel-stubs/),
// loaded with dlopen, verified like every kernel and timed interleaved with the others. The
// measurement the 2013 thread asked for: the in-kernel implementation, from user space.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "csumtune/kernel_fn.hpp"
#include "measure/baselines.hpp"

namespace csumtune::tuner {

// The file cannot be used: missing, not a regular file, does not compile, has no csum_partial
// (or, for a .S, no csum_partial_copy_generic).
class SourceBaselineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The file built and ran, but its sums are wrong: a failed check (exit 1), not bad input.
class SourceBaselineWrong : public SourceBaselineError {
 public:
  using SourceBaselineError::SourceBaselineError;
};

// Which of a tree's files a tree or an archive stands for.
enum class SourceKind { Sum, Copy };

class SourceBaseline {
 public:
  // Builds and loads `path`. The compiler is $CC, else cc; flags as the kernel's: -O2. A
  // file ending in .S is the copy: csum-copy_64.S, assembled through the C preprocessor.
  // `path` may also be a kernel tree's top directory or a kernel source archive (Debian's
  // /usr/src/linux-source-6.12.tar.xz, a kernel.org tarball): then `kind` picks the file,
  // arch/x86/lib/csum-partial_64.c or csum-copy_64.S (from an archive, extracted with its
  // top Makefile, which names the version).
  //
  // Before it is loaded here, the built file is loaded and verified over the full plan
  // (Linux's domain, len >= 0; a csum_partial with kReadsPastEnd readable bytes after each
  // buffer) in a child process with a deadline ($CSUMTUNE_BASELINE_SECONDS, else 120 s):
  // a file that exits, aborts, crashes, loops or prints there is refused
  // (SourceBaselineError), one that sums wrongly throws SourceBaselineWrong. The source is
  // read through the bounded reader (a regular file of at most 1 MiB; from a tree or an
  // archive, no link) and the compiler builds that copy.
  //
  // `place` (a summing file only): build it with its entry at that byte of a 64-byte line (the
  // compiler aligns functions to 64 and puts `place` bytes of NOPs in front of the entry), so
  // that the file can be timed wherever a link may put it; name() then says where. Without it
  // the compiler places it as it always does.
  explicit SourceBaseline(const std::string& path, SourceKind kind = SourceKind::Sum,
                          std::uint64_t seed = 1, std::optional<int> place = std::nullopt);
  ~SourceBaseline();
  SourceBaseline(const SourceBaseline&) = delete;
  SourceBaseline& operator=(const SourceBaseline&) = delete;

  KernelFn fn() const { return fn_; }  // null for the copy

  // The copy (a .S): csum_partial_copy_generic(src, dst, len), its sum starting from ~0.
  using CopyGenericFn = std::uint32_t (*)(const void* src, void* dst, int len);
  bool copies() const { return copyGeneric_ != nullptr; }
  CopyGenericFn copyGeneric() const { return copyGeneric_; }
  // For timing: the function itself called as a CopyFn. SysV passes the fourth argument in
  // rcx, which it never reads, so the call is exactly the kernel's code; its result does not
  // depend on the sum passed in, which lets consecutive calls overlap (if anything, in its
  // favour).
  CopyFn timedCopyFn() const;
  // For verifying: a CopyFn with csum_and_copy's meaning, the kernel's result plus `sum` in
  // ones' complement (0xffffffff, its start, is negative zero there). One SourceBaseline copy
  // at a time per process can be behind it.
  CopyFn verifiableCopyFn() const;

  // The file as a Baseline, summing or copying (kind "baseline-source", named name()): what
  // tune measures against and bench and patch time.
  Baseline baseline() const;
  // "linux-6.1.192 (source)" when the file sits in a tree whose Makefile says its version,
  // else "source:<file name>".
  const std::string& name() const { return name_; }
  const std::string& path() const { return shownPath_; }  // as given, escaped for display
  // Readable bytes the code may read past a buffer's end (load_unaligned_zeropad): 7, so
  // it is verified with 8 bytes of slack.
  static constexpr int kReadsPastEnd = 7;

 private:
  void build(SourceKind kind, std::uint64_t seed, const std::filesystem::path& dir);

  std::optional<int> place_;
  std::string path_, shownPath_, name_;
  void* handle_ = nullptr;
  KernelFn fn_ = nullptr;
  CopyGenericFn copyGeneric_ = nullptr;
};

// What a user should know of a tree's csum_partial as a baseline: it was verified with readable
// bytes after each buffer, for its zero-padding tail load (one line, for a note).
std::string slackNote(const SourceBaseline& source);

}  // namespace csumtune::tuner
