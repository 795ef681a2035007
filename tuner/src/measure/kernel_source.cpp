#include "measure/kernel_source.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "csumtune/templates.hpp"

namespace csumtune::tuner {
namespace {

namespace fs = std::filesystem;

void writeFile(const fs::path& path, std::string_view text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path);
  out << text;
  if (!out) throw SourceBaselineError("cannot write " + path.string());
}

// VERSION.PATCHLEVEL.SUBLEVEL from the tree's top Makefile (FILE is arch/x86/lib/<file>).
std::string treeVersion(const fs::path& file) {
  const fs::path makefile = file.parent_path() / ".." / ".." / ".." / "Makefile";
  std::ifstream in(makefile);
  if (!in) return {};
  std::map<std::string, std::string> fields;
  const std::regex line(R"(^(VERSION|PATCHLEVEL|SUBLEVEL)\s*=\s*(\d+)\s*$)");
  std::string text;
  for (int i = 0; i < 20 && std::getline(in, text); ++i) {
    std::smatch m;
    if (std::regex_match(text, m, line)) fields[m[1]] = m[2];
  }
  if (!fields.count("VERSION") || !fields.count("PATCHLEVEL")) return {};
  return fmt::format("{}.{}{}", fields["VERSION"], fields["PATCHLEVEL"],
                     fields.count("SUBLEVEL") ? "." + fields["SUBLEVEL"] : "");
}

// Runs argv without a shell; returns its exit status, its output in `output`.
int run(const std::vector<std::string>& argv, const fs::path& log, std::string& output) {
  const pid_t pid = fork();
  if (pid < 0) throw SourceBaselineError("cannot start the compiler (fork failed)");
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  output = text.str();
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
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
    return {name_.c_str(), "baseline-source", nullptr, false, verifiableCopyFn(), timedCopyFn()};
  return {name_.c_str(), "baseline-source", fn_, false};
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
                         dir / "tar.log", output);
  std::vector<fs::path> found;  // one per top directory that has the file, in name order
  for (const auto& top : fs::directory_iterator(into)) found.push_back(top.path() / treeFile(kind));
  std::sort(found.begin(), found.end());
  for (const fs::path& file : found) {
    const auto link = fs::symlink_status(file);
    // tar fails when a pattern matched nothing: a tree without a top Makefile is still a
    // tree (it only goes unnamed), so the file decides.
    if (!fs::exists(link)) continue;
    // A link would make us build whatever it points at, outside the archive.
    if (!fs::is_regular_file(link)) {
      throw SourceBaselineError(
          fmt::format("{} holds {} as something other than a plain file", archive, treeFile(kind)));
    }
    return file;
  }
  throw SourceBaselineError(fmt::format(
      "{} is not a kernel source archive with {} ({}): {}", archive, treeFile(kind),
      status == 127 ? "tar not found" : fmt::format("tar exit {}", status), output.substr(0, 500)));
}

// SIGINT and SIGTERM held while a scratch directory exists: a Ctrl-C during the seconds tar
// or the compiler runs is delivered when the object goes (after the directory is removed), so
// it leaves nothing behind in /tmp. tar and cc, in the same process group, get a Ctrl-C from
// the terminal themselves and stop; their failure then unwinds to here.
class HeldSignals {
 public:
  HeldSignals() {
    struct sigaction hold {};
    hold.sa_handler = [](int signal) { pending = signal; };
    sigemptyset(&hold.sa_mask);
    sigaction(SIGINT, &hold, &previousInt_);
    sigaction(SIGTERM, &hold, &previousTerm_);
  }
  ~HeldSignals() {
    sigaction(SIGINT, &previousInt_, nullptr);
    sigaction(SIGTERM, &previousTerm_, nullptr);
    if (const int signal = pending) {
      pending = 0;
      raise(signal);  // as it would have been: the default ends the process, a handler runs
    }
  }
  HeldSignals(const HeldSignals&) = delete;
  HeldSignals& operator=(const HeldSignals&) = delete;

 private:
  static inline volatile std::sig_atomic_t pending = 0;
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

SourceBaseline::SourceBaseline(const std::string& path, SourceKind kind) : path_(path) {
  const HeldSignals held;          // destroyed last: a Ctrl-C is delivered after the cleanup
  const ScratchDirectory scratch;  // gone once the library is loaded (dlopen keeps its mapping)
  try {
    build(kind, scratch.path());
  } catch (...) {
    if (handle_) dlclose(handle_);
    handle_ = nullptr;
    throw;
  }
}

// Resolves path_ (a file, a tree or an archive) to the file itself, then builds it in `dir`
// and loads it.
void SourceBaseline::build(SourceKind kind, const fs::path& dir) {
  if (path_.empty()) throw SourceBaselineError("an empty path is no kernel source");
  std::error_code ec;
  const auto status = fs::status(path_, ec);
  if (ec || !fs::exists(status)) throw SourceBaselineError(path_ + " does not exist");
  fs::path file = path_;
  if (fs::is_directory(status)) {
    file = fs::path(path_) / treeFile(kind);
    if (!fs::is_regular_file(file)) {
      throw SourceBaselineError(fmt::format("{} is a directory but not a kernel tree (no {} in it)",
                                            path_, treeFile(kind)));
    }
  } else if (!fs::is_regular_file(status)) {
    throw SourceBaselineError(path_ + " is not a regular file");
  } else if (isArchive(path_)) {
    file = extractFromArchive(path_, kind, dir);
  }
  const std::string version = treeVersion(fs::absolute(file));
  name_ = version.empty() ? "source:" + file.filename().string() : "linux-" + version + " (source)";

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

  const char* cc = std::getenv("CC");
  const std::string compiler = cc && *cc ? cc : "cc";
  const fs::path object = dir / "csum.so";
  std::string output;
  // -O2 as the kernel builds it; -fPIC -shared for dlopen; the kernel's own C dialect.
  // (-I comes before the system directories: the stand-ins win over the uapi headers.)
  std::vector<std::string> argv{compiler,
                                "-O2",
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
  argv.insert(argv.end(), {fs::absolute(file).string(), "-o", object.string()});
  const int exitStatus = run(argv, dir / "compile.log", output);
  if (exitStatus != 0) {
    throw SourceBaselineError(
        fmt::format("{} does not build for user space with {} ({}): {}", file.string(), compiler,
                    exitStatus == 127 ? "compiler not found" : fmt::format("exit {}", exitStatus),
                    output.substr(0, 2000)));
  }
  handle_ = dlopen(object.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    throw SourceBaselineError(
        fmt::format("cannot load {} built from {}: {}", object.string(), file.string(), dlerror()));
  }
  const char* symbol = assembly ? "csum_partial_copy_generic" : "csum_partial";
  void* found = dlsym(handle_, symbol);
  if (!found) throw SourceBaselineError(fmt::format("{} defines no {}", file.string(), symbol));
  if (assembly) {
    copyGeneric_ = reinterpret_cast<CopyGenericFn>(found);
  } else {
    fn_ = reinterpret_cast<KernelFn>(found);
  }
}

SourceBaseline::~SourceBaseline() {
  if (handle_) dlclose(handle_);
}

}  // namespace csumtune::tuner
