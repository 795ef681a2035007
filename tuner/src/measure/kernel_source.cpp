#include "measure/kernel_source.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
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

SourceBaseline::SourceBaseline(const std::string& path) : path_(path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) throw SourceBaselineError(path + " does not exist");
  if (!fs::is_regular_file(status)) throw SourceBaselineError(path + " is not a regular file");
  const std::string version = treeVersion(fs::absolute(path));
  name_ = version.empty() ? "source:" + fs::path(path).filename().string()
                          : "linux-" + version + " (source)";

  char pattern[] = "/tmp/csumtune-source-XXXXXX";
  if (!mkdtemp(pattern)) throw SourceBaselineError("cannot create a temporary directory");
  workDir_ = pattern;
  const fs::path dir(workDir_);
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
  const bool assembly = fs::path(path).extension() == ".S";

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
  argv.insert(argv.end(), {fs::absolute(path).string(), "-o", object.string()});
  const int exitStatus = run(argv, dir / "compile.log", output);
  if (exitStatus != 0) {
    fs::remove_all(dir, ec);
    throw SourceBaselineError(
        fmt::format("{} does not build for user space with {} ({}): {}", path, compiler,
                    exitStatus == 127 ? "compiler not found" : fmt::format("exit {}", exitStatus),
                    output.substr(0, 2000)));
  }
  handle_ = dlopen(object.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    fs::remove_all(dir, ec);
    throw SourceBaselineError(
        fmt::format("cannot load {} built from {}: {}", object.string(), path, dlerror()));
  }
  const char* symbol = assembly ? "csum_partial_copy_generic" : "csum_partial";
  void* found = dlsym(handle_, symbol);
  if (!found) {
    dlclose(handle_);
    handle_ = nullptr;
    fs::remove_all(dir, ec);
    throw SourceBaselineError(fmt::format("{} defines no {}", path, symbol));
  }
  if (assembly) {
    copyGeneric_ = reinterpret_cast<CopyGenericFn>(found);
  } else {
    fn_ = reinterpret_cast<KernelFn>(found);
  }
}

SourceBaseline::~SourceBaseline() {
  if (handle_) dlclose(handle_);
  std::error_code ec;
  if (!workDir_.empty()) std::filesystem::remove_all(workDir_, ec);
}

}  // namespace csumtune::tuner
