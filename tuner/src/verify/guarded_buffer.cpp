#include "verify/guarded_buffer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace csumtune::tuner {

GuardedBuffer::GuardedBuffer(std::size_t minimumSize) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  size_ = (minimumSize + page - 1) / page * page;
  mappingSize_ = size_ + 2 * page;
  mapping_ = mmap(nullptr, mappingSize_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping_ == MAP_FAILED) {
    throw std::runtime_error(std::string("mmap of guarded buffer failed: ") + std::strerror(errno));
  }
  data_ = static_cast<std::uint8_t*>(mapping_) + page;
  if (mprotect(data_, size_, PROT_READ | PROT_WRITE) != 0) {
    munmap(mapping_, mappingSize_);
    throw std::runtime_error(std::string("mprotect of guarded buffer failed: ") +
                             std::strerror(errno));
  }
}

GuardedBuffer::~GuardedBuffer() {
  munmap(mapping_, mappingSize_);
}

}  // namespace csumtune::tuner
