// libFuzzer: the generator. The input picks a point of the space (loop shape, prefetch,
// every short-path key and the SIMD middle path) and a buffer; the kernel is compiled (if this
// CPU can run it) and its sum compared with the plain reference over every length of the
// buffer and a random initial sum. A wrong sum aborts.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "csumtune/cpu.hpp"
#include "csumtune/jit.hpp"
#include "verify/reference.hpp"

namespace {

struct Reader {
  const std::uint8_t* data;
  std::size_t size;
  std::size_t at = 0;
  std::uint32_t next(std::uint32_t range) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4 && at < size; ++i) v = v << 8 | data[at++];
    return range ? v % range : v;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace csumtune;
  Reader in{data, size};
  const auto families = gen::allCarryTraits();
  gen::Params p;
  p.carry = families[in.next(static_cast<std::uint32_t>(families.size()))]->carry;
  p.chains = 1 + static_cast<int>(in.next(8));
  p.unroll = p.chains * (1 + static_cast<int>(in.next(32 / p.chains)));
  p.prefetch = 64 * static_cast<int>(in.next(65));
  p.hint = static_cast<gen::Hint>(in.next(gen::kHintCount));
  p.tail = static_cast<gen::Tail>(in.next(gen::kTailCount));
  p.sum = static_cast<gen::SumEntry>(in.next(gen::kSumEntryCount));
  p.entry = static_cast<gen::Entry>(in.next(gen::kEntryCount));
  const int tailChains[] = {1, 2, gen::Params::kShortTailChain};
  p.tailChains = tailChains[in.next(3)];
  const int exact = static_cast<int>(in.next(260));
  p.exact = exact < 8 ? 0 : exact > 256 ? 0 : exact;
  const int bounds[] = {0, 64, 128, 256, 512};  // 512: block80=loop's only
  p.shortBelow = bounds[in.next(5)];
  p.bounds = static_cast<gen::Bounds>(in.next(gen::kBoundsCount));
  p.byteLoad = static_cast<gen::ByteLoad>(in.next(gen::kByteLoadCount));
  p.block80 = static_cast<gen::Block80>(in.next(gen::kBlock80Count));
  // The SIMD families' middle path; other families refuse the key, so they keep mid=0.
  const int mids[] = {0, 128, 256, 512};
  p.mid = mids[in.next(4)];
  if (!gen::validationError(p).empty()) p.mid = 0;
  // avx2's vector sum; other families refuse the key, so they keep the default.
  p.vsum = static_cast<gen::VectorSum>(in.next(gen::kVectorSumCount));
  if (!gen::validationError(p).empty()) p.vsum = gen::VectorSum::Halves;
  // Where the jump targets lie: any kernel takes either.
  p.targets = static_cast<gen::Targets>(in.next(gen::kTargetsCount));
  if (!gen::validationError(p).empty() || !missingFeatures(p).empty()) return 0;
  const std::uint32_t sum = in.next(0);
  std::vector<std::uint8_t> buffer(in.at < size ? data + in.at : data, data + size);
  buffer.resize(std::min<std::size_t>(buffer.size(), 600));
  const Kernel kernel = Jit::compile(p);
  for (std::size_t len = 0; len <= buffer.size(); ++len) {
    // A copy of exactly len bytes: ASan sees any read past its end.
    std::vector<std::uint8_t> exactCopy(buffer.begin(), buffer.begin() + static_cast<long>(len));
    const std::uint8_t* at = exactCopy.empty() ? buffer.data() : exactCopy.data();
    const auto got = tuner::residue(kernel(at, static_cast<int>(len), sum));
    if (got != tuner::referenceResidue(at, static_cast<long>(len), sum)) std::abort();
  }
  return 0;
}
