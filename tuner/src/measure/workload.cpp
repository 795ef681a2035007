#include "measure/workload.hpp"

#include <sys/mman.h>

#include <emmintrin.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>

namespace csumtune::tuner {

const char* toString(CacheState cache) {
  return cache == CacheState::Hot ? "hot" : "cold";
}

Workload::Workload(const WorkloadConfig& config, std::size_t maxLength)
    : config_(config), maxLength_(maxLength) {
  if (config.offset < 0 || config.offset > 63) throw std::invalid_argument("offset must be 0..63");
  const std::size_t span = maxLength + 128;
  if (config.cache == CacheState::Cold && config.setSizeBytes < 2 * span) {
    throw std::invalid_argument("the cold set must be at least twice the longest length");
  }
  if (config.setSizeBytes > (std::size_t{4} << 30)) {
    throw std::invalid_argument("the cold set is limited to 4096 MB");
  }
  mapped_ = config.cache == CacheState::Hot ? span : config.setSizeBytes;
  void* p = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    throw std::runtime_error("cannot map the benchmark buffer: " +
                             std::string(std::strerror(errno)));
  }
  base_ = static_cast<std::uint8_t*>(p);
  // The kernel reads packets through its direct map (2 MiB / 1 GiB pages): ask for huge
  // pages so a cold call pays for the cache miss, not for a 4 KiB page walk on top of it.
  if (config.cache == CacheState::Cold) madvise(base_, mapped_, MADV_HUGEPAGE);
  // Random bytes in every page: untouched anonymous pages would all map the one zero page.
  std::uint64_t x = config.seed * 0x9e3779b97f4a7c15ull + 1;
  for (std::size_t i = 0; i + 8 <= mapped_; i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::memcpy(base_ + i, &x, 8);
  }

  if (config.cache == CacheState::Hot) {
    positions_.assign(1, static_cast<std::uint32_t>(64 + config.offset));
    return;
  }
  // As many distinct lines as a power of two allows, up to 2^22: a cycle must touch far more
  // than the last-level cache a core shares, or a position that comes round again may still
  // find its line there (2^20 random draws are 64 MiB, a tenth of them repeats, against a
  // 32 MiB cache on a Zen 5 CCD).
  std::mt19937_64 rng(config.seed);
  const std::size_t lines = (mapped_ - span) / 64;
  std::uniform_int_distribution<std::size_t> line(0, lines - 1);
  positions_.resize(std::bit_floor(std::min(lines, kMaxPositions)));
  std::vector<bool> taken(lines, false);
  for (auto& pos : positions_) {
    std::size_t at = line(rng);
    while (taken[at]) at = line(rng);
    taken[at] = true;
    pos = static_cast<std::uint32_t>(at * 64 + config.offset);
  }
  settle(positions_.size());
}

void Workload::settle(std::size_t count) const {
  if (config_.cache == CacheState::Hot) return;
  std::uint8_t sink = 0;
  for (std::size_t i = 0; i < std::min(count, positions_.size()); ++i) {
    const std::uint8_t* line = base_ + positions_[i];
    sink ^= *line;
    // Out of the caches again: what a read leaves warm is the translation, not the line (a
    // last-level cache larger than what settling reads would make the next calls warm).
    _mm_clflush(line);
  }
  asm volatile("" ::"r"(sink));
}

Workload::~Workload() {
  if (base_) munmap(base_, mapped_);
}

std::size_t Workload::setSize() const {
  return config_.cache == CacheState::Hot ? maxLength_ : mapped_;
}

std::uint8_t* Workload::destination() {
  if (destination_.empty()) destination_.resize(maxLength_ + 64);
  const auto misalign = reinterpret_cast<std::uintptr_t>(destination_.data()) % 64;
  return destination_.data() + (64 - misalign) % 64;
}

}  // namespace csumtune::tuner
