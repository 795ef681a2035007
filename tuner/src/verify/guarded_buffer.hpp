// A data region with an inaccessible page (PROT_NONE) right before and right after it, so
// any read outside [data(), end()) faults instead of silently passing.
#pragma once

#include <cstddef>
#include <cstdint>

namespace csumtune::tuner {

class GuardedBuffer {
 public:
  explicit GuardedBuffer(std::size_t minimumSize);
  ~GuardedBuffer();
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  std::uint8_t* data() const { return data_; }         // page-aligned, guard page before it
  std::uint8_t* end() const { return data_ + size_; }  // first byte of the trailing guard
  std::size_t size() const { return size_; }

 private:
  void* mapping_ = nullptr;
  std::size_t mappingSize_ = 0;
  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace csumtune::tuner
