#include "atomic_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace csumtune::tuner {
namespace {

[[noreturn]] void fail(const std::string& path, int err) {
  throw FileError("cannot write " + path + ": " + std::strerror(err));
}

// Writes all of `content` to `fd`; false (errno set) on a short or failed write.
bool writeAll(int fd, std::string_view content) {
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      return false;
    }
    written += static_cast<std::size_t>(n);
  }
  return true;
}

// A symlink is followed: its target is what the user means to write.
// (Also a dangling one: writing creates its target. At most 40 links, as the kernel allows.)
std::string resolveLinks(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path current(path);
  for (int depth = 0; depth < 40; ++depth) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(current, ec))) return current.string();
    const fs::path target = fs::read_symlink(current, ec);
    if (ec) return current.string();
    current = target.is_absolute() ? target : current.parent_path() / target;
  }
  throw FileError("cannot write " + path + ": too many levels of symbolic links");
}

}  // namespace

void writeFileAtomically(const std::string& requested, std::string_view content) {
  const std::string path = resolveLinks(requested);
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) throw FileError("cannot write " + requested + ": it is a directory");
    // A device or FIFO (/dev/null, /dev/stdout, a pipe) is written in place, never replaced.
    // A FIFO is opened without blocking: with nobody reading it that fails (ENXIO) instead of
    // waiting forever. A reader started just before us (`cat fifo & csumtune -o fifo`) gets two
    // seconds to open its end; once open, the writes block as usual.
    const bool fifo = S_ISFIFO(st.st_mode);
    int fd = -1;
    for (int attempt = 0; attempt < 200; ++attempt) {
      fd = open(path.c_str(), O_WRONLY | O_CLOEXEC | (fifo ? O_NONBLOCK : 0));
      if (fd >= 0 || !fifo || errno != ENXIO) break;
      usleep(10000);
    }
    if (fd < 0 && fifo && errno == ENXIO) {
      throw FileError("cannot write " + requested + ": it is a FIFO that no process is reading");
    }
    if (fd < 0) fail(requested, errno);
    if (fifo) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (!writeAll(fd, content)) {
      const int err = errno;
      close(fd);
      fail(requested, err);
    }
    if (close(fd) != 0) fail(requested, errno);
    return;
  }
  const std::filesystem::path target(path);
  std::string temp =
      (target.parent_path() / ("." + target.filename().string() + ".XXXXXX")).string();
  if (target.parent_path().empty()) temp = "." + target.filename().string() + ".XXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0) fail(requested, errno);
  if (!writeAll(fd, content)) {
    const int err = errno;
    close(fd);
    unlink(temp.c_str());
    fail(requested, err);
  }
  fchmod(fd, 0644);
  if (fsync(fd) != 0 || close(fd) != 0 || std::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(temp.c_str());
    fail(requested, err);
  }
}

void writeFilesTogether(const std::string& dir,
                        const std::vector<std::pair<std::string, std::string>>& files,
                        const std::vector<std::string>& owned) {
  std::vector<std::pair<std::string, std::string>> staged;  // temporary, target
  auto discard = [&] {
    for (const auto& [temp, target] : staged) unlink(temp.c_str());
  };
  for (const auto& [name, content] : files) {
    const std::string target = dir + "/" + name;
    std::string temp = dir + "/." + name + ".XXXXXX";
    const int fd = mkstemp(temp.data());
    if (fd < 0) {
      const int err = errno;
      discard();
      fail(target, err);
    }
    staged.emplace_back(temp, target);
    const bool ok = writeAll(fd, content) && fchmod(fd, 0644) == 0 && fsync(fd) == 0;
    const int err = errno;
    if (close(fd) != 0 || !ok) {
      discard();
      fail(target, ok ? errno : err);
    }
  }
  for (const auto& [temp, target] : staged) {
    if (std::rename(temp.c_str(), target.c_str()) != 0) {
      const int err = errno;
      discard();
      fail(target, err);
    }
  }
  for (const std::string& name : owned) {
    const bool written = std::any_of(files.begin(), files.end(),
                                     [&](const auto& file) { return file.first == name; });
    if (!written) unlink((dir + "/" + name).c_str());
  }
}

FolderLock::FolderLock(const std::string& dir) {
  const std::filesystem::path folder = std::filesystem::path(dir).lexically_normal();
  std::filesystem::path name = folder.filename();
  if (name.empty()) name = folder.parent_path().filename();
  const std::string lock =
      (folder.parent_path().empty() ? std::filesystem::path(".") : folder.parent_path()) /
      ("." + name.string() + ".lock");
  fd_ = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) fail(lock, errno);
  if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    close(fd_);
    fd_ = -1;
    if (err == EWOULDBLOCK) {
      throw FileError("another csumtune run is writing into " + dir + " (it holds " + lock +
                      "); wait for it or choose another --out");
    }
    fail(lock, err);
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) close(fd_);
}

void checkWritable(const std::string& requested) {
  const std::string path = resolveLinks(requested);
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw FileError("cannot write " + requested + ": it is a directory");
    if (access(path.c_str(), W_OK) != 0) fail(requested, errno);
    return;
  }
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) parent = ".";
  if (stat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw FileError("cannot write " + requested + ": " + parent.string() +
                    " is not an existing directory");
  }
  if (access(parent.c_str(), W_OK) != 0) fail(requested, errno);
}

}  // namespace csumtune::tuner
