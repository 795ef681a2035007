// Files are written whole or not at all: a temporary file next to the target, then rename.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace csumtune::tuner {

// A file could not be written (missing directory, permissions, full disk).
class FileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A regular file (or a new one) is replaced atomically; a symlink's target is written; a
// device or FIFO (/dev/null, /dev/stdout) is written in place, never replaced.
void writeFileAtomically(const std::string& path, std::string_view content);

// The files of one run into `dir` as one unit: every file is first written in full to a
// temporary name beside its target; only when all are written are they renamed into place,
// and the files of `owned` this run did not write are removed (so a folder never mixes two
// runs' files). On any failure the previous files stay and the temporaries are removed.
// Files in `dir` that are not in `files` or `owned` are never touched.
void writeFilesTogether(const std::string& dir,
                        const std::vector<std::pair<std::string, std::string>>& files,
                        const std::vector<std::string>& owned);

// An exclusive lock on an output folder, held for the life of the object (flock on a
// sibling `.<name>.lock` file): a second process writing into the same folder is refused
// with a message instead of silently losing one run's files. Throws FileError.
class FolderLock {
 public:
  explicit FolderLock(const std::string& dir);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

// Before any work: the file could be written (its folder exists and is writable, it is not a
// directory). Throws FileError.
void checkWritable(const std::string& path);

}  // namespace csumtune::tuner
