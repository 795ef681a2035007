// linux-v6.8: our own faithful implementation of the algorithm of Linux v6.8's
// arch/x86/lib/csum-partial_64.c (written from its description, not copied):
//
//   * an 80-byte loop of two independent 40-byte add/adc chains, combined after the loop
//     with one add/adc;
//   * then one 40-byte chain; when the length was exactly 40 (an IPv6 header, the hottest
//     length there is) it returns at once, testing no tail bits;
//   * then 32-, 16- and 8-byte add/adc chains by the bits of the length;
//   * the last 1..7 bytes in one 8-byte load shifted into place. The kernel takes them with
//     load_unaligned_zeropad(), which may read up to 7 bytes past the end (the kernel has
//     an exception fixup for a page boundary; user space has none). Here, with 8 or more
//     bytes in the buffer, the 8 bytes that END at buf + len are loaded and shifted right
//     instead, which reads only inside the buffer; a buffer under 8 bytes is put together
//     from 4-, 2- and 1-byte loads (a few instructions more than the kernel's one load, on
//     lengths the network stack hardly ever sums). No byte outside [buf, buf + len).
//   * 64 -> 32 bits as (x + ror64(x, 32)) >> 32.
//
// Like the kernel's, it takes len >= 0 only (a negative length is not in Linux's contract);
// it is verified over that domain. Compiled -O2 like the kernel file.
#include <cstdint>
#include <cstring>

#include "measure/baselines.hpp"
#include "measure/linux_words.hpp"

namespace csumtune::tuner {
namespace {

inline std::uint32_t finalize(std::uint64_t x) {
  return static_cast<std::uint32_t>((x + ((x >> 32) | (x << 32))) >> 32);
}

}  // namespace

std::uint32_t linuxV68Checksum(const void* buf, int len, std::uint32_t sum) {
  const auto* p = static_cast<const unsigned char*>(buf);
  const int total = len;
  std::uint64_t acc = sum;

  if (__builtin_expect(len >= 80, 1)) {
    std::uint64_t acc2 = 0;
    do {
      acc = addWords<5>(acc, p);
      acc2 = addWords<5>(acc2, p + 40);
      p += 80;
      len -= 80;
    } while (len >= 80);
    acc = addWithCarry(acc, acc2);
  }
  if (len >= 40) {
    acc = addWords<5>(acc, p);
    len -= 40;
    if (!len) return finalize(acc);
    p += 40;
  }
  if (len & 32) {
    acc = addWords<4>(acc, p);
    p += 32;
  }
  if (len & 16) {
    acc = addWords<2>(acc, p);
    p += 16;
  }
  if (len & 8) {
    acc = addWords<1>(acc, p);
    p += 8;
  }
  if (len & 7) acc = addWithCarry(acc, trailingBytes(p, len & 7, total >= 8));
  return finalize(acc);
}

}  // namespace csumtune::tuner
