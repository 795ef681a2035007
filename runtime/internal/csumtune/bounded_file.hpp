// The one way csumtune reads a file a user names (results, a kernel tree's Makefile or source,
// an archive's members): a regular file of bounded size, opened so that a FIFO cannot block,
// a device cannot stream without end and, where asked, a symbolic link cannot lead elsewhere.
#pragma once

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace csumtune {

class FileReadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Links {
  Follow,  // a link to a regular file is read (results a user links into place)
  Refuse,  // the last component must not be a link (a tree's file could point at /etc/shadow)
};

struct ReadLimits {
  std::size_t maxBytes;
  Links links = Links::Follow;
};

// The whole file. Throws FileReadError naming the path and what is wrong: missing, a
// directory, not a regular file (FIFO, socket, device), a link where links are refused,
// larger than maxBytes, unreadable.
std::string readBoundedFile(const std::filesystem::path& path, ReadLimits limits);

// The first `bytes` bytes of the file (or all of it if shorter), with the same checks but
// no size limit: a Makefile's head, however big the file claims to be.
std::string readFileHead(const std::filesystem::path& path, std::size_t bytes, Links links);

}  // namespace csumtune
