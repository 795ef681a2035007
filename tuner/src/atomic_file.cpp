#include "atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace csumtune::tuner {

void writeFileAtomically(const std::string& path, std::string_view content) {
  const std::filesystem::path target(path);
  std::string temp =
      (target.parent_path() / ("." + target.filename().string() + ".XXXXXX")).string();
  if (target.parent_path().empty()) temp = "." + target.filename().string() + ".XXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0) throw FileError("cannot write " + path + ": " + std::strerror(errno));
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      const int err = errno;
      close(fd);
      unlink(temp.c_str());
      throw FileError("cannot write " + path + ": " + std::strerror(err));
    }
    written += static_cast<std::size_t>(n);
  }
  fchmod(fd, 0644);
  if (fsync(fd) != 0 || close(fd) != 0 || std::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(temp.c_str());
    throw FileError("cannot write " + path + ": " + std::strerror(err));
  }
}

}  // namespace csumtune::tuner
