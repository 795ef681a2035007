// linux-v5.17: our own faithful implementation of the algorithm of Linux v5.17's
// arch/x86/lib/csum-partial_64.c (the one Debian 12's 6.1 kernel runs), written from its
// description:
//
//   * an odd buffer address: the first byte is summed into the high half of a word and the
//     32-bit sum rotated by 8, the rest summed from the even address, and the result's
//     bytes swapped back at the end;
//   * a 64-byte loop of one add/adc chain;
//   * 32-, 16- and 8-byte chains by the bits of the length;
//   * the last 1..7 bytes in one load (the kernel's load_unaligned_zeropad, which may read up
//     to 7 bytes past the end; here, as in linux-v6.8, the 8 bytes that END at buf + len
//     shifted right when there are 8 or more, else 4-, 2- and 1-byte loads);
//   * 64 -> 32 bits with add32_with_carry.
//
// It answers how far the same algorithm, built from the tree's own file
// (bench --baseline-source), is from one linked into csumtune. len >= 0 only, like Linux.
#include <cstdint>
#include <cstring>

#include "measure/baselines.hpp"
#include "measure/linux_words.hpp"

namespace csumtune::tuner {
namespace {

inline std::uint32_t add32WithCarry(std::uint32_t a, std::uint32_t b) {
  asm("addl %2,%0\n\tadcl $0,%0" : "=r"(a) : "0"(a), "rm"(b));
  return a;
}

inline std::uint32_t ror32(std::uint32_t x, unsigned n) {
  return (x >> n) | (x << (32 - n));
}

}  // namespace

std::uint32_t linuxV517Checksum(const void* buf, int len, std::uint32_t sum) {
  const auto* p = static_cast<const unsigned char*>(buf);
  std::uint64_t acc = sum;
  const bool odd = reinterpret_cast<std::uintptr_t>(p) & 1;
  if (__builtin_expect(odd, 0)) {
    if (__builtin_expect(len == 0, 0)) return sum;
    acc = ror32(sum, 8);
    acc += static_cast<std::uint64_t>(*p) << 8;
    --len;
    ++p;
  }
  const int total = len;
  while (__builtin_expect(len >= 64, 0)) {
    acc = addWords<8>(acc, p);
    p += 64;
    len -= 64;
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
  if (len & 7) {
    acc = addWithCarry(acc, trailingBytes(p, len & 7, total >= 8));
  }
  std::uint32_t result =
      add32WithCarry(static_cast<std::uint32_t>(acc >> 32), static_cast<std::uint32_t>(acc));
  if (__builtin_expect(odd, 0)) {
    // Fold to 16 bits, then swap the bytes back (the sum was taken one byte off).
    std::uint32_t folded = (result & 0xffff) + (result >> 16);
    folded = (folded & 0xffff) + (folded >> 16);
    result = ((folded >> 8) & 0xff) | ((folded & 0xff) << 8);
  }
  return result;
}

}  // namespace csumtune::tuner
