#include "csumtune/bounded_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

namespace csumtune {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, std::string_view why) {
  throw FileReadError(fmt::format("{} {}", path.string(), why));
}

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(Descriptor&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  Descriptor& operator=(Descriptor&&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Opened without blocking (a FIFO would wait for a writer) and without following a final
// link when links are refused; then the descriptor itself is examined, so what is checked is
// what is read.
Descriptor openRegular(const std::filesystem::path& path, Links links, struct stat& info) {
  if (path.empty()) throw FileReadError("an empty path names no file");
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  if (links == Links::Refuse) flags |= O_NOFOLLOW;
  Descriptor fd(::open(path.c_str(), flags));
  if (fd.get() < 0) {
    const int error = errno;
    struct stat seen {};
    if (links == Links::Refuse && ::lstat(path.c_str(), &seen) == 0 && S_ISLNK(seen.st_mode)) {
      fail(path, "is a symbolic link: refused, it could point at any file");
    }
    if (error == ENOENT) fail(path, "does not exist (no such file)");
    if (error == ENOTDIR) fail(path, "does not exist (a part of the path is not a directory)");
    if (error == ELOOP) fail(path, "is a symbolic link loop");
    fail(path, fmt::format("cannot be opened ({})", std::strerror(error)));
  }
  if (::fstat(fd.get(), &info) != 0) fail(path, "cannot be examined");
  if (S_ISDIR(info.st_mode)) fail(path, "is a directory, not a file");
  if (!S_ISREG(info.st_mode)) fail(path, "is not a regular file (a FIFO, socket or device)");
  // Reads stay non-blocking: a regular file's never block, and a "regular" file that would
  // (some /proc files, e.g. /proc/kmsg) is refused instead of waited on.
  return fd;
}

// Up to `limit` bytes; `limit + 1` is asked for so a file that grew since fstat is noticed.
std::string readUpTo(const Descriptor& fd, const std::filesystem::path& path, std::size_t limit) {
  std::string text;
  char chunk[65536];
  while (text.size() < limit) {
    const std::size_t want = std::min(sizeof chunk, limit - text.size());
    const ssize_t got = ::read(fd.get(), chunk, want);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      fail(path, "is not a regular file (reading it would wait: a device or kernel interface)");
    if (got < 0) fail(path, fmt::format("cannot be read ({})", std::strerror(errno)));
    if (got == 0) break;
    text.append(chunk, static_cast<std::size_t>(got));
  }
  return text;
}

}  // namespace

std::string readBoundedFile(const std::filesystem::path& path, ReadLimits limits) {
  struct stat info {};
  const Descriptor fd = openRegular(path, limits.links, info);
  if (static_cast<std::uintmax_t>(info.st_size) > limits.maxBytes) {
    fail(path, fmt::format("is too large ({} bytes; at most {} are read)", info.st_size,
                           limits.maxBytes));
  }
  std::string text = readUpTo(fd, path, limits.maxBytes + 1);
  if (text.size() > limits.maxBytes) {
    fail(path, fmt::format("is too large (grew past {} bytes while read)", limits.maxBytes));
  }
  return text;
}

std::string readFileHead(const std::filesystem::path& path, std::size_t bytes, Links links) {
  struct stat info {};
  const Descriptor fd = openRegular(path, links, info);
  return readUpTo(fd, path, bytes);
}

}  // namespace csumtune
