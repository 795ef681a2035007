#include "verify/reference.hpp"

namespace csumtune::tuner {

std::uint32_t referenceResidue(const std::uint8_t* data, long len, std::uint32_t sum) {
  std::uint64_t total = sum;
  long i = 0;
  for (; i + 1 < len; i += 2) total += data[i] | (std::uint32_t{data[i + 1]} << 8);
  if (i < len) total += data[i];
  return residue(total);
}

PrefixReference::PrefixReference(const std::uint8_t* region, std::size_t size) {
  for (int parity = 0; parity < 2; ++parity) {
    auto& prefix = sums_[parity];
    prefix.resize(size + 1);
    prefix[0] = 0;
    for (std::size_t j = 0; j < size; ++j) {
      const std::uint64_t weight = ((j ^ static_cast<std::size_t>(parity)) & 1) ? 256 : 1;
      prefix[j + 1] = prefix[j] + region[j] * weight;
    }
  }
}

std::uint32_t PrefixReference::residueAt(std::size_t offset, std::size_t len,
                                         std::uint32_t sum) const {
  const auto& prefix = sums_[offset & 1];
  return residue(prefix[offset + len] - prefix[offset] + sum);
}

}  // namespace csumtune::tuner
