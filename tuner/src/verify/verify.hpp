// Correctness checking: a kernel against the plain reference over lengths, alignments,
// data patterns and initial sums, with guard pages against reads outside the buffer.
// Every candidate passes through here before anything times it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "csumtune/gen/params.hpp"
#include "csumtune/kernel_fn.hpp"
#include "verify/guarded_buffer.hpp"
#include "verify/reference.hpp"

namespace csumtune {
class Kernel;
}

namespace csumtune::tuner {

enum class DataPattern : std::uint8_t { Random, AllOnes, AllZeros };
const char* toString(DataPattern pattern);

// Where a buffer of `len` bytes is placed inside the guarded region.
struct Placement {
  enum Kind : std::uint8_t { Aligned, AgainstEnd, AgainstStart } kind = Aligned;
  int alignment = 0;  // for Aligned: buf mod 64 (as close to the trailing guard as allowed)
  // For AgainstEnd: bytes between the buffer's end and the trailing guard page; for
  // AgainstStart: between the leading guard page and the buffer (0: right against it).
  int gap = 0;
};

struct VerifyCase {
  int len;
  Placement placement;
  DataPattern pattern;
  std::uint32_t sum;
};

struct VerifyPlan {
  std::string name;
  std::vector<VerifyCase> cases;
  // Readable bytes kept after every buffer (0: buffers end right at the guard page). For
  // code built to read past the end, as the kernel's load_unaligned_zeropad does.
  int trailingSlack = 0;
  // 0: the kernel may read no byte outside the buffer (only reads that reach a guard page can
  // show otherwise). N: it may read bytes outside the buffer inside the aligned N-byte blocks
  // that hold a byte of it (bounds=aligned: 8): every case with len > 0 (of the aligned
  // placements, those at alignments below N: every offset in the block) is then run a second
  // time on a copy of the buffer whose other bytes in those blocks are different garbage (the
  // complement of the first run's), and must give the same, right, result.
  int overReadBlock = 0;
  // quickPlan's: withOverReads() then samples the gaps instead of taking every one.
  bool sampled = false;
};

// Every length 0..1024 at every alignment 0..63 and each data pattern (initial sums
// rotating through 0, 0xffffffff and random values), every length with each pattern and
// sum against both guard pages, sampled lengths up to 65536, and negative lengths.
VerifyPlan fullPlan(std::uint64_t seed);

// For sweeping the whole space: every length up to two main-loop blocks plus 72 bytes
// (every tail path, zero/one/two iterations), a few long ones, each once at a rotating
// alignment and once against the trailing guard page.
VerifyPlan quickPlan(int blockBytes, std::uint64_t seed);

// quickPlan for `params`: where its short or middle path reaches past its block
// (block80=loop's short path, a middle path), every length up to that path's end and two
// blocks and 72 bytes more, so that the main loop's tails run after it too.
VerifyPlan quickPlan(const gen::Params& params, std::uint64_t seed);

// The lengths frame variants are given exact paths for when every short path is checked
// (verify --all --frames, the linked .S kernels): the shortest, a non-multiple of 8, the hot
// 40, a whole cache line, and long ones with and without a remainder.
inline const std::vector<int> kFrameCheckLengths{8, 13, 40, 64, 200, 255};

// The plan without its negative lengths: for Linux's own code, which is called with
// len >= 0 only.
VerifyPlan withoutNegativeLengths(VerifyPlan plan);

// The plan with `bytes` of readable memory after every buffer (the guard page that far
// behind it): for the kernel's own code, whose tail may read up to 7 bytes past the end.
VerifyPlan withTrailingSlack(VerifyPlan plan, int bytes);

// The plan for a kernel that may read outside its buffer inside the aligned `block`-byte
// blocks that hold a byte of it: overReadBlock set, and cases that put the buffer's end at
// every gap 0..63 before the trailing guard page and its start at every gap 0..63 after the
// leading one (every length 0..136 at every gap, each longer length of the plan at two), so
// that a read one block further than allowed reaches a guard page and faults. A sampled
// (quick) plan takes two gaps per length: over the lengths 0..136 every gap 0..63 at both
// ends, and every gap below 8 for every length mod 8.
VerifyPlan withOverReads(VerifyPlan plan, int block);

// The plan as `params` needs it: withOverReads(plan, 8) for bounds=aligned, else unchanged.
VerifyPlan forParams(VerifyPlan plan, const gen::Params& params);

// Three guarded regions (random, all-0xff, all-0x00) with their prefix references. Read-only
// once built: one fixture can serve many kernels and threads.
class VerifyFixture {
 public:
  static constexpr std::size_t kMaxLength = 65536;
  explicit VerifyFixture(std::uint64_t seed);
  ~VerifyFixture();

  struct Region {
    explicit Region(std::size_t size) : buffer(size) {}
    GuardedBuffer buffer;
    PrefixReference reference{nullptr, 0};  // set once the buffer is filled
  };
  const Region& region(DataPattern pattern) const;
  // An address in the leading guard page: any read from it faults.
  const void* unreadable() const;
  // Distinct for every fixture a process makes: what a thread copied from one is not taken
  // for a copy of another made at the same address.
  std::uint64_t id() const { return id_; }

 private:
  std::vector<std::unique_ptr<Region>> regions_;
  std::uint64_t id_;
};

struct VerifyOutcome {
  std::uint64_t calls = 0;
  std::optional<std::string> failure;  // the first failing case, described
  bool ok() const { return !failure; }
};

VerifyOutcome verifyKernel(KernelFn fn, const VerifyFixture& fixture, const VerifyPlan& plan);

// A copying kernel (kind=copy) over the same plan: each case's source is placed as for
// verifyKernel, its destination in a guarded buffer of its own at another alignment (and
// against the other guard page when the source is against one); the copy must be exact, the
// sum right, and the 256 bytes on either side of the destination untouched. Reads outside
// the source and writes outside the destination buffer fault.
VerifyOutcome verifyCopyKernel(CopyFn fn, const VerifyFixture& fixture, const VerifyPlan& plan);

// A compiled kernel, whichever its kind: verifyKernel, or verifyCopyKernel for kind=copy.
VerifyOutcome verifyCompiled(const Kernel& kernel, const VerifyFixture& fixture,
                             const VerifyPlan& plan);

// Where a case puts a buffer of `len` bytes in `buffer` (leaving `slack` readable bytes after
// it when placed against the end), and how a message says so.
std::uint8_t* placeBuffer(const GuardedBuffer& buffer, int len, Placement placement, int slack);
std::string describePlacement(Placement placement);

}  // namespace csumtune::tuner
