// Where each timed call reads its buffer.
//
// hot:  the same buffer every call (it stays in L1/L2): the loop's own speed.
// cold: a pool far larger than the last-level cache (default 256 MiB), each call at a fresh
//       random 64-byte-aligned position, so neither the caches nor the hardware prefetcher
//       can have the data ready: the cost a packet's first touch pays.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace csumtune::tuner {

enum class CacheState { Hot, Cold };
const char* toString(CacheState cache);

struct WorkloadConfig {
  CacheState cache = CacheState::Hot;
  std::size_t setSizeBytes = std::size_t{256} << 20;  // cold pool size
  int offset = 0;                                     // buf mod 64 (alignment under test)
  std::uint64_t seed = 1;
};

class Workload {
 public:
  // maxLength: the longest call that will be made.
  Workload(const WorkloadConfig& config, std::size_t maxLength);
  ~Workload();
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;

  const WorkloadConfig& config() const { return config_; }
  const std::uint8_t* base() const { return base_; }
  // The most positions a cold cycle has (2^22 lines: 256 MiB).
  static constexpr std::size_t kMaxPositions = std::size_t{1} << 22;
  // Byte offsets from base() for consecutive calls, each at a distinct line of the pool (the
  // largest power of two of them the pool holds, at most kMaxPositions); index with
  // (cursor & mask()).
  const std::uint32_t* positions() const { return positions_.data(); }
  std::size_t mask() const { return positions_.size() - 1; }
  // Bytes the workload spans (the "Set Sz" of the 2013 thread's tables).
  std::size_t setSize() const;
  // The longest call the workload was built for.
  std::size_t maxLength() const { return maxLength_; }
  // Where copying kernels write: one 64-byte-aligned buffer of maxLength() bytes, the same
  // for every call (it stays in cache, hot or cold: a cold source is what the copy meets).
  // Made on first use: a summing run never pays for it.
  std::uint8_t* destination();
  // Cold only: reads a byte at each of the first `count` positions of the cycle and flushes its
  // line again. Under a hypervisor a cold pool's translations (the guest's and the host's page
  // tables) are themselves read from memory until they are cached: a measurement that begins
  // there costs many times its steady cold figure per call, calibrates its batches from it
  // and times a moving target. All positions when the pool is made; the ones a measurement
  // starts with before each one.
  void settle(std::size_t count) const;

 private:
  WorkloadConfig config_;
  std::size_t mapped_ = 0;
  std::uint8_t* base_ = nullptr;
  std::size_t maxLength_ = 0;
  std::vector<std::uint32_t> positions_;
  std::vector<std::uint8_t> destination_;
};

}  // namespace csumtune::tuner
