// Files are written whole or not at all: a temporary file next to the target, then rename.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace csumtune::tuner {

// A file could not be written (missing directory, permissions, full disk).
class FileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A regular file (or a new one) is replaced atomically; a symlink's target is written; a
// device or FIFO (/dev/null, /dev/stdout) is written in place, never replaced.
void writeFileAtomically(const std::string& path, std::string_view content);

// Before any work: the file could be written (its folder exists and is writable, it is not a
// directory). Throws FileError.
void checkWritable(const std::string& path);

}  // namespace csumtune::tuner
