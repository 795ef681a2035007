// The pieces our faithful Linux baselines (linux_v68.cpp, linux_v517.cpp) are made of, as
// the kernel writes them: add/adc chains over N words in inline assembly, one add with carry,
// and the last 1..7 bytes of a buffer as one 64-bit word (low byte first), read without
// touching a byte past the end: the kernel's load_unaligned_zeropad() may read up to 7 bytes beyond
// (its exception fixup covers a page boundary), user space may not. With 8 or more bytes in
// the buffer, the 8 that END at the buffer's end are loaded and shifted right; below that,
// 4-, 2- and 1-byte loads are put together. Used by our faithful Linux baselines.
#pragma once

#include <cstdint>
#include <cstring>

namespace csumtune::tuner {

// sum += the `Words` 8-byte words at p, one add/adc chain closed by adc $0.
template <int Words>
inline std::uint64_t addWords(std::uint64_t sum, const unsigned char* p) {
  static_assert(Words == 8 || Words == 5 || Words == 4 || Words == 2 || Words == 1);
  if constexpr (Words == 8) {
    asm("addq 0*8(%[src]),%[res]\n\tadcq 1*8(%[src]),%[res]\n\t"
        "adcq 2*8(%[src]),%[res]\n\tadcq 3*8(%[src]),%[res]\n\t"
        "adcq 4*8(%[src]),%[res]\n\tadcq 5*8(%[src]),%[res]\n\t"
        "adcq 6*8(%[src]),%[res]\n\tadcq 7*8(%[src]),%[res]\n\tadcq $0,%[res]"
        : [res] "+r"(sum)
        : [src] "r"(p), "m"(*reinterpret_cast<const char(*)[64]>(p)));
  } else if constexpr (Words == 5) {
    asm("addq 0*8(%[src]),%[res]\n\tadcq 1*8(%[src]),%[res]\n\t"
        "adcq 2*8(%[src]),%[res]\n\tadcq 3*8(%[src]),%[res]\n\t"
        "adcq 4*8(%[src]),%[res]\n\tadcq $0,%[res]"
        : [res] "+r"(sum)
        : [src] "r"(p), "m"(*reinterpret_cast<const char(*)[40]>(p)));
  } else if constexpr (Words == 4) {
    asm("addq 0*8(%[src]),%[res]\n\tadcq 1*8(%[src]),%[res]\n\t"
        "adcq 2*8(%[src]),%[res]\n\tadcq 3*8(%[src]),%[res]\n\tadcq $0,%[res]"
        : [res] "+r"(sum)
        : [src] "r"(p), "m"(*reinterpret_cast<const char(*)[32]>(p)));
  } else if constexpr (Words == 2) {
    asm("addq 0*8(%[src]),%[res]\n\tadcq 1*8(%[src]),%[res]\n\tadcq $0,%[res]"
        : [res] "+r"(sum)
        : [src] "r"(p), "m"(*reinterpret_cast<const char(*)[16]>(p)));
  } else {
    asm("addq 0*8(%[src]),%[res]\n\tadcq $0,%[res]"
        : [res] "+r"(sum)
        : [src] "r"(p), "m"(*reinterpret_cast<const char(*)[8]>(p)));
  }
  return sum;
}

// sum += value with end-around carry.
inline std::uint64_t addWithCarry(std::uint64_t sum, std::uint64_t value) {
  asm("addq %[value],%[res]\n\tadcq $0,%[res]" : [res] "+r"(sum) : [value] "r"(value));
  return sum;
}

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
