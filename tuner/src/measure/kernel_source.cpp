#include "measure/kernel_source.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "csumtune/bounded_file.hpp"
#include "csumtune/gen/params.hpp"
#include "csumtune/results/document.hpp"
#include "csumtune/templates.hpp"
#include "measure/child_wait.hpp"
#include "verify/verify.hpp"

namespace csumtune::tuner {
namespace {

namespace fs = std::filesystem;

// Bounds on what a user's file may cost: the file itself, the time to unpack it from an
// archive, to build it, and to load and verify it in the probe.
constexpr std::size_t kMaxSourceBytes = 1 << 20;
constexpr double kArchiveSeconds = 300;
constexpr double kCompileSeconds = 120;
constexpr double kDefaultProbeSeconds = 120;
constexpr rlim_t kMaxProbeOutput = 1 << 20;
constexpr rlim_t kMaxUnpackedBytes = 16 << 20;  // a tree's top Makefile or one of its files
constexpr rlim_t kMaxObjectBytes = 256 << 20;

void writeFile(const fs::path& path, std::string_view text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path);
  out << text;
  if (!out) throw SourceBaselineError("cannot write " + path.string());
}

// VERSION.PATCHLEVEL.SUBLEVEL from the tree's top Makefile (FILE is arch/x86/lib/<file>), read
// through the bounded reader: a FIFO, a device or a link there is refused, a huge file is
// read only as far as its head. A tree without a Makefile goes unnamed.
std::string treeVersion(const fs::path& file) {
  const fs::path makefile = file.parent_path() / ".." / ".." / ".." / "Makefile";
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(makefile, ec))) return {};
  std::string head;
  try {
    head = readFileHead(makefile, 4096, Links::Refuse);
  } catch (const FileReadError& e) {
    throw SourceBaselineError(std::string("the tree's Makefile: ") + e.what());
  }
  std::map<std::string, std::string> fields;
  const std::regex line(R"(^(VERSION|PATCHLEVEL|SUBLEVEL)\s*=\s*(\d+)\s*$)");
  std::istringstream in(head);
  std::string text;
  for (int i = 0; i < 20 && std::getline(in, text); ++i) {
    std::smatch m;
    if (std::regex_match(text, m, line)) fields[m[1]] = m[2];
  }
  if (!fields.count("VERSION") || !fields.count("PATCHLEVEL")) return {};
  return fmt::format("{}.{}{}", fields["VERSION"], fields["PATCHLEVEL"],
                     fields.count("SUBLEVEL") ? "." + fields["SUBLEVEL"] : "");
}

volatile std::sig_atomic_t pendingSignal = 0;  // set by HeldSignals' handler

// Waits for `pid`, at most `seconds`; a held Ctrl-C or SIGTERM, or the deadline, kills it.
// Returns its wait status.
int waitFor(pid_t pid, double seconds, const std::string& what, bool group = false) {
  const ChildWait wait = waitForChild(pid, seconds, group, &pendingSignal);
  switch (wait.end) {
    case ChildWait::End::Finished:
      return wait.status;
    case ChildWait::End::Lost:
      throw SourceBaselineError("lost the child running " + what);
    case ChildWait::End::Stopped:
      throw SourceBaselineError("interrupted while " + what);
    case ChildWait::End::Late:
      break;
  }
  throw SourceBaselineError(
      fmt::format("{} did not finish within {:g} s (stopped)", what, seconds));
}

// What a child wrote to its log, at most `bytes` of it.
std::string logHead(const fs::path& log, std::size_t bytes) {
  try {
    return readFileHead(log, bytes, Links::Refuse);
  } catch (const FileReadError&) {
    return {};
  }
}

// Runs argv without a shell, its output into `log`, within `seconds`, writing no file larger
// than `maxFileBytes` (an archive member that unpacks to gigabytes, sparse or not, fails);
// returns its exit status (128 + the signal when one ended it), its output's head in `output`.
int run(const std::vector<std::string>& argv, const fs::path& log, std::string& output,
        double seconds, rlim_t maxFileBytes) {
  const pid_t pid = fork();
  if (pid < 0) throw SourceBaselineError("cannot start " + argv[0] + " (fork failed)");
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    const rlimit files{maxFileBytes, maxFileBytes};
    setrlimit(RLIMIT_FSIZE, &files);
    signal(SIGXFSZ, SIG_IGN);  // the write fails with EFBIG and the tool says so
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  const int status = waitFor(pid, seconds, "running " + argv[0]);
  output = logHead(log, 4000);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

SourceBaseline::CopyGenericFn verifiedCopy = nullptr;  // behind verifiableCopyFn()

std::uint32_t addWithEndAroundCarry(std::uint32_t a, std::uint32_t b) {
  const std::uint64_t sum = std::uint64_t{a} + b;
  return static_cast<std::uint32_t>(sum) + static_cast<std::uint32_t>(sum >> 32);
}

std::uint32_t copyAsCsumAndCopy(const void* src, void* dst, int len, std::uint32_t sum) {
  return addWithEndAroundCarry(verifiedCopy(src, dst, len), sum);
}

}  // namespace

CopyFn SourceBaseline::verifiableCopyFn() const {
  if (!copyGeneric_) return nullptr;
  verifiedCopy = copyGeneric_;
  return copyAsCsumAndCopy;
}

CopyFn SourceBaseline::timedCopyFn() const {
  // Through void*, as dlsym handed it out: the same code, called with one argument more.
  return reinterpret_cast<CopyFn>(reinterpret_cast<void*>(copyGeneric_));
}

Baseline SourceBaseline::baseline() const {
  if (copies())
    return {name_.c_str(), TimedKind::BaselineSource, nullptr,
            false,         verifiableCopyFn(),        timedCopyFn()};
  return {name_.c_str(), TimedKind::BaselineSource, fn_, false};
}

namespace {

// Where a kernel tree keeps the file each kind of baseline is.
const char* treeFile(SourceKind kind) {
  return kind == SourceKind::Copy ? "arch/x86/lib/csum-copy_64.S"
                                  : "arch/x86/lib/csum-partial_64.c";
}

bool isArchive(const std::string& path) {
  for (const char* end : {".tar", ".tar.xz", ".tar.gz", ".tgz", ".tar.bz2", ".tar.zst"}) {
    const std::string_view e(end);
    if (path.size() > e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0)
      return true;
  }
  return false;
}

// The file a kernel source archive (Debian's /usr/src/linux-source-X.Y.tar.xz, a kernel.org
// tarball) holds for `kind`, with the tree's top Makefile beside it for the version: extracted
// into `dir` (GNU tar reads any compression it knows by itself). Only the top directory's
// Makefile: with --no-wildcards-match-slash, `*` stops at a slash.
fs::path extractFromArchive(const std::string& archive, SourceKind kind, const fs::path& dir) {
  const fs::path into = dir / "tree";
  fs::create_directories(into);
  std::string output;
  // As root, tar would restore the archive's owners and modes: not wanted for a scratch copy.
  const int status = run({"tar", "-xf", archive, "-C", into.string(), "--no-same-owner",
                          "--no-same-permissions", "--wildcards", "--no-wildcards-match-slash",
                          "*/Makefile", std::string("*/") + treeFile(kind)},
                         dir / "tar.log", output, kArchiveSeconds, kMaxUnpackedBytes);
  std::vector<fs::path> found;  // one per top directory that has the file, in name order
  for (const auto& top : fs::directory_iterator(into)) found.push_back(top.path() / treeFile(kind));
  std::sort(found.begin(), found.end());
  // tar fails when a pattern matched nothing: a tree without a top Makefile is still a tree
  // (it only goes unnamed). Any other failure, and any write it could not finish (a member
  // over the size limit is only a warning to tar), is fatal.
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    const bool benign = line.empty() || line.find("Not found in archive") != std::string::npos ||
                        line.find("Exiting with failure status") != std::string::npos;
    if ((status != 0 && !benign) || line.find("Cannot ") != std::string::npos) {
      throw SourceBaselineError(fmt::format(
          "{} is not a kernel source archive with {} that can be unpacked ({}): {}", archive,
          treeFile(kind), status == 127 ? "tar not found" : fmt::format("tar exit {}", status),
          output.substr(0, 500)));
    }
  }
  for (const fs::path& file : found) {
    // What it is (a link, a FIFO, too big) the reader judges.
    if (fs::exists(fs::symlink_status(file))) return file;
  }
  throw SourceBaselineError(fmt::format(
      "{} is not a kernel source archive with {} ({}): {}", archive, treeFile(kind),
      status == 127 ? "tar not found" : fmt::format("tar exit {}", status), output.substr(0, 500)));
}

// SIGINT and SIGTERM held while a scratch directory exists: a Ctrl-C while tar, the compiler
// or the probe runs kills that child (waitFor), unwinds, removes the directory and is then
// delivered, so it leaves nothing behind in /tmp and ends the process as it would have.
class HeldSignals {
 public:
  HeldSignals() {
    struct sigaction hold {};
    hold.sa_handler = [](int signal) { pendingSignal = signal; };
    sigemptyset(&hold.sa_mask);
    sigaction(SIGINT, &hold, &previousInt_);
    sigaction(SIGTERM, &hold, &previousTerm_);
  }
  ~HeldSignals() {
    sigaction(SIGINT, &previousInt_, nullptr);
    sigaction(SIGTERM, &previousTerm_, nullptr);
    if (const int signal = pendingSignal) {
      pendingSignal = 0;
      raise(signal);  // as it would have been: the default ends the process, a handler runs
    }
  }
  HeldSignals(const HeldSignals&) = delete;
  HeldSignals& operator=(const HeldSignals&) = delete;

 private:
  struct sigaction previousInt_ {};
  struct sigaction previousTerm_ {};
};

// A scratch directory under $TMPDIR (else /tmp), removed with everything in it when it goes.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/csumtune-source-XXXXXX";
    if (!mkdtemp(pattern.data()))
      throw SourceBaselineError("cannot create a temporary directory in " +
                                pattern.substr(0, pattern.rfind('/')));
    path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

}  // namespace

namespace {

// The probe's verdict, through a pipe: "ok", or "wrong" and the first failing case.
// What user code must leave as it found it in a process it shares with csumtune: the
// handlers of the signals csumtune relies on, the standard descriptors, no alarm. (SIGSEGV
// and SIGBUS are the verifier's own: its fault trap installs them.)
struct ProcessState {
  std::vector<std::pair<void*, int>> handlers;  // handler and flags of each watched signal
  std::vector<std::pair<dev_t, ino_t>> descriptors;

  static ProcessState now() {
    ProcessState state;
    for (const int signal : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGALRM, SIGCHLD}) {
      struct sigaction action {};
      sigaction(signal, nullptr, &action);
      state.handlers.emplace_back(reinterpret_cast<void*>(action.sa_handler), action.sa_flags);
    }
    for (const int fd : {0, 1, 2}) {
      struct stat info {};
      state.descriptors.emplace_back(fstat(fd, &info) == 0 ? std::pair{info.st_dev, info.st_ino}
                                                           : std::pair<dev_t, ino_t>{});
    }
    return state;
  }
  bool operator==(const ProcessState&) const = default;
};

// The probe's verdict, through a pipe: "ok", or "wrong" and the first failing case, or
// "error" and why. Loaded, verified over the full plan, then unloaded (its destructors run
// here too), and the process state compared with what it was before.
void probeAndReport(const fs::path& object, SourceKind kind, std::uint64_t seed, int verdictFd) {
  auto say = [&](std::string text) {
    text.resize(std::min<std::size_t>(text.size(), 3500));
    [[maybe_unused]] const ssize_t n = ::write(verdictFd, text.data(), text.size());
  };
  const VerifyFixture fixture(seed);  // before the user's code runs: its state is ours
  const ProcessState before = ProcessState::now();
  void* handle = dlopen(object.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return say(std::string("error\ncannot load it: ") + dlerror());
  const char* symbol = kind == SourceKind::Copy ? "csum_partial_copy_generic" : "csum_partial";
  void* found = dlsym(handle, symbol);
  if (!found) return say(fmt::format("error\nit defines no {}", symbol));
  VerifyOutcome outcome;
  if (kind == SourceKind::Copy) {
    // The kernel never passes a negative length (csum-wrappers_64.c takes an int it got from
    // a size), and the file does not guard against one: verified over len >= 0.
    verifiedCopy = reinterpret_cast<SourceBaseline::CopyGenericFn>(found);
    outcome = verifyCopyKernel(copyAsCsumAndCopy, fixture, withoutNegativeLengths(fullPlan(seed)));
  } else {
    const auto plan = withTrailingSlack(withoutNegativeLengths(fullPlan(seed)),
                                        SourceBaseline::kReadsPastEnd + 1);
    outcome = verifyKernel(reinterpret_cast<KernelFn>(found), fixture, plan);
  }
  const unsigned alarmLeft = alarm(0);
  dlclose(handle);
  if (alarmLeft != 0 || !(ProcessState::now() == before)) {
    return say(
        "error\nit changes the process it runs in (signal handlers, an alarm, or the standard "
        "input, output or error): a kernel function may not");
  }
  say(outcome.ok() ? std::string("ok") : "wrong\n" + *outcome.failure);
}

// The probe's deadline: $CSUMTUNE_BASELINE_SECONDS (tests shorten it), else the default. A
// value that is not a number of seconds is refused, not replaced.
double probeSeconds() {
  const char* text = std::getenv("CSUMTUNE_BASELINE_SECONDS");
  if (!text) return kDefaultProbeSeconds;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(seconds >= 0.1 && seconds <= 86400)) {
    throw SourceBaselineError(
        fmt::format("CSUMTUNE_BASELINE_SECONDS='{}' is not a number of seconds from 0.1 to 86400",
                    results::printable(text, 40)));
  }
  return seconds;
}

// Loads the built object and verifies it over the full plan in a child process, so that
// whatever the user's code does — exit, abort, crash, loop, print — happens there: a
// constructor that calls exit(0) cannot end csumtune with a false success, a loop is killed
// at the deadline, Ctrl-C still works. Only a file that loads, returns and sums correctly
// there, silently, is loaded into this process. Throws SourceBaselineError, or
// SourceBaselineWrong for a wrong sum.
void probeInChild(const fs::path& object, SourceKind kind, std::uint64_t seed, const fs::path& log,
                  const std::string& what) {
  const double seconds = probeSeconds();
  int verdict[2];
  if (pipe2(verdict, O_CLOEXEC) != 0) throw SourceBaselineError("cannot create a pipe");
  std::fflush(nullptr);  // nothing buffered here is written twice by the child
  const pid_t pid = fork();
  if (pid < 0) throw SourceBaselineError("cannot start the probe (fork failed)");
  if (pid == 0) {
    // A group of its own: kill(0, ...) in the user's code reaches only the probe, and the
    // probe's own children die with it.
    setpgid(0, 0);
    ::close(verdict[0]);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int none = ::open("/dev/null", O_RDONLY);
    if (out < 0 || none < 0) _exit(125);
    dup2(none, 0);
    dup2(out, 1);
    dup2(out, 2);
    const rlimit output{kMaxProbeOutput, kMaxProbeOutput};  // a file that prints without end
    setrlimit(RLIMIT_FSIZE, &output);
    std::setvbuf(stdout, nullptr, _IONBF, 0);  // what it prints reaches the log at once
    try {
      probeAndReport(object, kind, seed, verdict[1]);
    } catch (...) {
      _exit(124);
    }
    std::fflush(nullptr);
    _exit(0);  // not exit(): the parent's atexit handlers and buffers are not the child's
  }
  setpgid(pid, pid);  // (also here: whichever of the two runs first)
  ::close(verdict[1]);
  int status = 0;
  try {
    status = waitFor(pid, seconds, "loading and verifying " + what, true);
  } catch (...) {
    ::close(verdict[0]);
    throw;
  }
  kill(-pid, SIGKILL);  // whatever the user's code left running in the probe's group
  // What the probe wrote is in the pipe now; a process that escaped the group may still hold
  // its write end, so the pipe is read without waiting for its end.
  std::string answer;
  fcntl(verdict[0], F_SETFL, O_NONBLOCK);
  char chunk[4096];
  for (ssize_t n; (n = ::read(verdict[0], chunk, sizeof chunk)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    answer.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(verdict[0]);
  const std::string printed = logHead(log, 300);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || answer.empty()) {
    throw SourceBaselineError(fmt::format(
        "{} ended the process ({}) while it was loaded or called: a kernel function must "
        "return{}",
        what, describeChildEnd(status), printed.empty() ? "" : "; it printed: " + printed));
  }
  if (!printed.empty()) {
    throw SourceBaselineError(
        fmt::format("{} printed while it was loaded or called (a kernel function must not): {}",
                    what, printed));
  }
  if (answer.rfind("wrong\n", 0) == 0) {
    throw SourceBaselineWrong(
        fmt::format("{} is wrong, not timing it: {}", what, answer.substr(6)));
  }
  if (answer.rfind("error\n", 0) == 0) {
    throw SourceBaselineError(fmt::format("{}: {}", what, answer.substr(6)));
  }
  if (answer != "ok") throw SourceBaselineError(what + ": the probe gave no verdict");
}

// The file a path stands for: itself, a tree's file for `kind`, or that file extracted from
// an archive into `dir`.
fs::path resolveSource(const std::string& path, SourceKind kind, const fs::path& dir) {
  if (path.empty()) throw SourceBaselineError("an empty path is no kernel source");
  std::error_code ec;
  const auto status = fs::status(path, ec);
  const std::string shown = results::printable(path, 300);
  if (ec || !fs::exists(status)) throw SourceBaselineError(shown + " does not exist");
  if (fs::is_directory(status)) {
    const fs::path file = fs::path(path) / treeFile(kind);
    if (!fs::exists(fs::symlink_status(file, ec))) {
      throw SourceBaselineError(fmt::format("{} is a directory but not a kernel tree (no {} in it)",
                                            shown, treeFile(kind)));
    }
    return file;
  }
  if (!fs::is_regular_file(status)) throw SourceBaselineError(shown + " is not a regular file");
  if (isArchive(path)) return extractFromArchive(path, kind, dir);
  return path;
}

// A tree's file (from a directory or an archive) must be the tree's own: no link, and no
// directory of its path may lead outside the tree.
bool insideTree(const fs::path& file, const std::string& path, const fs::path& dir) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const fs::path root = fs::canonical(path, ec);
    const fs::path real = fs::weakly_canonical(file, ec);
    const auto [r, f] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
    return r == root.end();
  }
  const fs::path root = fs::canonical(dir / "tree", ec);
  if (ec) return true;  // not from an archive
  const fs::path real = fs::weakly_canonical(file, ec);
  const auto [r, f] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
  return r == root.end();
}

}  // namespace

SourceBaseline::SourceBaseline(const std::string& path, SourceKind kind, std::uint64_t seed,
                               std::optional<int> place)
    : place_(place), path_(path) {
  const HeldSignals held;          // destroyed last: a Ctrl-C is delivered after the cleanup
  const ScratchDirectory scratch;  // gone once the library is loaded (dlopen keeps its mapping)
  try {
    build(kind, seed, scratch.path());
  } catch (...) {
    if (handle_) dlclose(handle_);
    handle_ = nullptr;
    throw;
  }
}

// Resolves path_ (a file, a tree or an archive) to the file itself, copies it through the
// bounded reader into `dir`, builds and probes it there, then loads it.
void SourceBaseline::build(SourceKind kind, std::uint64_t seed, const fs::path& dir) {
  const fs::path file = resolveSource(path_, kind, dir);
  const bool fromTree = file != fs::path(path_);
  std::string text;
  try {
    text = readBoundedFile(file, {kMaxSourceBytes, fromTree ? Links::Refuse : Links::Follow});
  } catch (const FileReadError& e) {
    throw SourceBaselineError(results::printable(e.what(), 600));
  }
  if (fromTree && !insideTree(file, path_, dir)) {
    throw SourceBaselineError(
        fmt::format("{}: a directory on the way to {} is a link out of the tree: refused", path_,
                    treeFile(kind)));
  }
  const std::string version = treeVersion(fs::absolute(file));
  // Names and paths as shown: a file name's control or bidi characters never reach a terminal.
  name_ = version.empty() ? "source:" + results::printable(file.filename().string())
                          : "linux-" + version + " (source)";
  shownPath_ = results::printable(path_, 300);
  if (place_) {
    const auto places = gen::allPlacements();
    if (std::find(places.begin(), places.end(), *place_) == places.end())
      throw SourceBaselineError(fmt::format("a file's place must be one of {} (got {})",
                                            fmt::join(places, ", "), *place_));
    if (file.extension() == ".S")
      throw SourceBaselineError("a place is for a csum_partial file, not csum-copy_64.S");
    name_ += fmt::format(" place={}", *place_);
  }
  const std::string what = fmt::format("{} ({})", name_, shownPath_);

  writeFile(dir / "include/linux/compiler.h", templates::stub_linux_compiler());
  writeFile(dir / "include/linux/export.h", templates::stub_linux_export());
  writeFile(dir / "include/linux/types.h", templates::stub_linux_types());
  writeFile(dir / "include/linux/bitops.h", templates::stub_linux_bitops());
  writeFile(dir / "include/asm/checksum.h", templates::stub_asm_checksum());
  writeFile(dir / "include/asm/word-at-a-time.h", templates::stub_asm_word_at_a_time());
  writeFile(dir / "include/linux/linkage.h", templates::stub_linux_linkage());
  writeFile(dir / "include/asm/asm.h", templates::stub_asm_asm());
  writeFile(dir / "include/asm/errno.h", "/* csumtune: nothing the assembly needs */\n");
  writeFile(dir / "include/asm/export.h", templates::stub_linux_export());
  const bool assembly = file.extension() == ".S";
  // The compiler reads our copy of what was checked, not the path (which could change).
  const fs::path copy = dir / "src" / file.filename();
  writeFile(copy, text);

  const char* cc = std::getenv("CC");
  const std::string compiler = cc && *cc ? cc : "cc";
  const fs::path object = dir / "csum.so";
  std::string output;
  // -O2 as the kernel builds it, with jump targets and loops packed as arch/x86/Makefile asks
  // for x86-64 (-falign-jumps=1 -falign-loops=1: gcc's default would pad them to 16 bytes,
  // a layout the kernel's own build of the file never has, and a short call's time depends on
  // it; clang honours the loops' and ignores the jumps', as it does in a kernel build);
  // -fPIC -shared for dlopen; the kernel's own C dialect. (-I comes before the system
  // directories: the stand-ins win over the uapi headers.)
  std::vector<std::string> argv{compiler,
                                "-O2",
                                "-falign-jumps=1",
                                "-falign-loops=1",
                                "-std=gnu11",
                                "-fPIC",
                                "-shared",
                                "-fno-strict-aliasing",
                                "-fno-common",
                                "-w",
                                "-Wl,-z,noexecstack",
                                "-I",
                                (dir / "include").string()};
  if (assembly) argv.push_back("-D__ASSEMBLY__");  // as kbuild assembles a .S
  if (place_) {
    // Every function on a line, and `place` NOPs in front of each entry (the kernel's own
    // call padding is made the same way): the entry lands at byte `place` of its line.
    argv.push_back("-falign-functions=64");
    if (*place_ > 0) argv.push_back(fmt::format("-fpatchable-function-entry={0},{0}", *place_));
  }
  argv.insert(argv.end(), {copy.string(), "-o", object.string()});
  const int exitStatus = run(argv, dir / "compile.log", output, kCompileSeconds, kMaxObjectBytes);
  if (exitStatus != 0) {
    throw SourceBaselineError(
        fmt::format("{} does not build for user space with {} ({}): {}", file.string(), compiler,
                    exitStatus == 127 ? "compiler not found" : fmt::format("exit {}", exitStatus),
                    output.substr(0, 2000)));
  }
  // The file's own kind (a .S is the copy) decides what it is verified as; callers that
  // wanted the other kind refuse it by copies().
  probeInChild(object, assembly ? SourceKind::Copy : SourceKind::Sum, seed, dir / "probe.log",
               what);
  handle_ = dlopen(object.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    throw SourceBaselineError(
        fmt::format("cannot load {} built from {}: {}", object.string(), file.string(), dlerror()));
  }
  const char* symbol = assembly ? "csum_partial_copy_generic" : "csum_partial";
  void* found = dlsym(handle_, symbol);
  if (!found) throw SourceBaselineError(fmt::format("{} defines no {}", file.string(), symbol));
  if (place_ &&
      reinterpret_cast<std::uintptr_t>(found) % 64 != static_cast<std::uintptr_t>(*place_)) {
    throw SourceBaselineError(fmt::format(
        "{} could not be placed at byte {} of a line: {} put its entry at byte {}", file.string(),
        *place_, compiler, reinterpret_cast<std::uintptr_t>(found) % 64));
  }
  if (assembly) {
    copyGeneric_ = reinterpret_cast<CopyGenericFn>(found);
  } else {
    fn_ = reinterpret_cast<KernelFn>(found);
  }
}

SourceBaseline::~SourceBaseline() {
  if (handle_) dlclose(handle_);
}

std::string slackNote(const SourceBaseline& source) {
  return fmt::format(
      "{} ({}) was verified over len >= 0 with {} readable bytes after each buffer: its tail "
      "load (load_unaligned_zeropad) may read up to {} bytes past the end, which only the "
      "kernel's exception fixup makes safe",
      source.name(), source.path(), SourceBaseline::kReadsPastEnd + 1,
      SourceBaseline::kReadsPastEnd);
}

}  // namespace csumtune::tuner
