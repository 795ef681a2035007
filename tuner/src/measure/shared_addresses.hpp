// Every kernel timed at the same addresses. A short call takes ten-odd cycles, and where its
// code sits — not only its byte in a 64-byte line (place=N) but the lines and pages around it —
// moves it by a cycle or more; the same bytes at two addresses can differ by 20 %. Two kernels
// timed at their own addresses (the JIT's block, a library's mapping) compare their luck as
// much as their code. Here each round draws one address, and every movable kernel's bytes are
// copied there in turn, warmed up and timed: a round's paired samples compare code at one
// address, and the rounds range over as many addresses as there are rounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "csumtune/kernel_fn.hpp"
#include "measure/harness.hpp"

namespace csumtune::tuner {

class SharedAddresses {
 public:
  // The largest code that can be moved.
  static constexpr std::size_t kMaxCodeBytes = std::size_t{64} << 10;

  // Addresses 16-byte aligned (as a link aligns functions), drawn from the seed, one per round,
  // in a region of 2 MiB of code memory. Throws std::runtime_error if the system refuses
  // writable code memory.
  explicit SharedAddresses(std::uint64_t seed);
  ~SharedAddresses();
  SharedAddresses(const SharedAddresses&) = delete;
  SharedAddresses& operator=(const SharedAddresses&) = delete;

  // Puts the kernel's bytes at the round's address (the bytes of the one there before become
  // int3) and returns its entry there. The kernel must be movable.
  KernelFn install(const TimedKernel& kernel, int round);

  // The round's address's offset in the region (what rounds share).
  std::size_t offsetOf(int round) const;
  // How many times code was put at an address.
  std::size_t installs() const { return installs_; }

  // Why [fn, fn + bytes) does not run correctly from another address (it refers to data or
  // code outside those bytes by their address), or nothing when it does: checked in a child
  // process, the copy against the original at every length 0..300 and at 1500, 4096, 9000,
  // 65535 and 65536 bytes (a path for long buffers may be the one that refers outside), at
  // several alignments, so that a crash or a hang of the copy cannot take the caller down.
  std::optional<std::string> whyNotMovable(const TimedKernel& kernel);

 private:
  std::uint8_t* region_ = nullptr;
  std::size_t regionBytes_ = 0;
  std::uint64_t seed_;
  std::size_t occupantAt_ = 0;
  std::size_t occupantBytes_ = 0;
  std::size_t installs_ = 0;
};

}  // namespace csumtune::tuner
