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

void writeFileAtomically(const std::string& path, std::string_view content);

}  // namespace csumtune::tuner
