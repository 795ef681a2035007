#include "measure/baselines.hpp"

#include <cstring>

namespace csumtune::tuner {

std::uint32_t plainCChecksum(const void* buf, int len, std::uint32_t sum) {
  const auto* p = static_cast<const unsigned char*>(buf);
  std::uint64_t total = sum;
  int i = 0;
  for (; i + 1 < len; i += 2) {
    std::uint16_t word;
    std::memcpy(&word, p + i, 2);  // little-endian x86: the low byte comes first
    total += word;
  }
  if (i < len) total += p[i];
  total = (total & 0xffffffffu) + (total >> 32);
  total = (total & 0xffffffffu) + (total >> 32);
  return static_cast<std::uint32_t>(total);
}

namespace {
constexpr Baseline kBaselines[] = {
    {kPlainCName, TimedKind::BaselineC, plainCChecksum, true},
    {kLinuxV68Name, TimedKind::BaselineLinux, linuxV68Checksum, false},
    {kLinuxV517Name, TimedKind::BaselineLinux, linuxV517Checksum, false},
};
}  // namespace

const Baseline& linuxV68Baseline() {
  return kBaselines[1];
}

const Baseline& copyBoundBaseline() {
  static const Baseline bound{kCopyBoundName, TimedKind::Bound, nullptr, true, csumtune_copy_bound};
  return bound;
}

const Baseline& linuxCsumCopyBaseline() {
  static const Baseline copy{kLinuxCsumCopyName, TimedKind::BaselineLinux, nullptr, true,
                             csumtune_linux_csum_copy};
  return copy;
}

std::span<const Baseline> builtinBaselines() {
  return kBaselines;
}

gen::Params linuxLikeParams() {
  return gen::Params{gen::Carry::Adc, 2, 10, 0, gen::Hint::T0};
}

}  // namespace csumtune::tuner
