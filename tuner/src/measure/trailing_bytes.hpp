// The last 1..7 bytes of a buffer as one 64-bit word (low byte first), read without touching
// a byte past the end: the kernel's load_unaligned_zeropad() may read up to 7 bytes beyond
// (its exception fixup covers a page boundary), user space may not. With 8 or more bytes in
// the buffer, the 8 that END at the buffer's end are loaded and shifted right; below that,
// 4-, 2- and 1-byte loads are put together. Used by our faithful Linux baselines.
#pragma once

#include <cstdint>
#include <cstring>

namespace csumtune::tuner {

// `p` points at the last `rest` (1..7) bytes; `bufferHasEight`: the whole buffer holds at
// least 8 bytes, so the 8 ending at p + rest are inside it.
inline std::uint64_t trailingBytes(const unsigned char* p, int rest, bool bufferHasEight) {
  std::uint64_t trail = 0;
  if (bufferHasEight) {
    std::memcpy(&trail, p + rest - 8, 8);
    return trail >> (64 - 8 * rest);
  }
  int at = 0;
  if (rest & 4) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    trail = v;
    at = 4;
  }
  if (rest & 2) {
    std::uint16_t v;
    std::memcpy(&v, p + at, 2);
    trail |= std::uint64_t{v} << (8 * at);
    at += 2;
  }
  if (rest & 1) trail |= std::uint64_t{p[at]} << (8 * at);
  return trail;
}

}  // namespace csumtune::tuner
