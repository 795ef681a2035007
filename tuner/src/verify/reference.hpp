// The plain reference every kernel is judged against, and a prefix-sum form of it that
// answers "what should buf[off, off+len) sum to" in O(1), so that hundreds of thousands of
// (length, offset) cases can be checked per kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace csumtune::tuner {

// The value of a ones'-complement sum modulo 0xffff, in 0..0xfffe. Two partial sums are
// the same checksum exactly when their residues are equal (0 and 0xffff both give 0).
constexpr std::uint32_t residue(std::uint64_t partial) {
  return static_cast<std::uint32_t>(partial % 0xffff);
}

// Deliberately the simplest correct code: 16-bit little-endian words, an odd last byte as
// the low byte of a final word, summed in 64 bits. len <= 0 sums nothing.
std::uint32_t referenceResidue(const std::uint8_t* data, long len, std::uint32_t sum);

// Prefix sums over a fixed region, one per starting parity: byte j weighs 1 when it is the
// low byte of its 16-bit word (j - start even) and 256 otherwise.
class PrefixReference {
 public:
  PrefixReference(const std::uint8_t* region, std::size_t size);
  std::uint32_t residueAt(std::size_t offset, std::size_t len, std::uint32_t sum) const;

 private:
  std::vector<std::uint64_t> sums_[2];
};

}  // namespace csumtune::tuner
