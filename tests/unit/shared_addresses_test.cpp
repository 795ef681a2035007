#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <stdexcept>
#include <vector>

#include "csumtune/jit.hpp"
#include "measure/harness.hpp"
#include "measure/shared_addresses.hpp"
#include "measure/timed_kernels.hpp"
#include "measure/timer.hpp"
#include "measure/workload.hpp"

namespace csumtune::tuner {
namespace {

// The region needs writable code memory, which a hardened system may refuse (csumtune then
// times every kernel where it was built, with a note): nothing to test there.
std::unique_ptr<SharedAddresses> sharedAddressesOrNull(std::uint64_t seed) {
  try {
    return std::make_unique<SharedAddresses>(seed);
  } catch (const std::runtime_error&) {
    return nullptr;
  }
}

std::vector<std::uint8_t> testData() {
  std::vector<std::uint8_t> data(600);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 131 + 7);
  return data;
}

// Two different kernels in one round land on the same address, run the same sums there as
// where they were built, and the next round draws another address.
TEST(SharedAddresses, EveryKernelOfARoundRunsAtItsAddress) {
  const Kernel a = Jit::compile(std::string_view("carry=adc,chains=2,unroll=8"));
  const Kernel b = Jit::compile(
      std::string_view("carry=adc,chains=4,unroll=16,tail=overlap,entry=lean,short=64"));
  const auto shared = sharedAddressesOrNull(7);
  if (!shared) GTEST_SKIP() << "this system refuses writable code memory";
  SharedAddresses& addresses = *shared;
  const auto data = testData();
  std::set<std::uintptr_t> seen;
  for (int round = 0; round < 4; ++round) {
    const KernelFn atA = addresses.install(timedKernel(a, "a"), round);
    for (int len : {0, 1, 7, 40, 63, 64, 65, 300, 599})
      ASSERT_EQ(atA(data.data(), len, 0x1234u), a(data.data(), len, 0x1234u)) << len;
    const KernelFn atB = addresses.install(timedKernel(b, "b"), round);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(atA), reinterpret_cast<std::uintptr_t>(atB));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(atB) % 16, 0u) << "a link aligns functions to 16";
    EXPECT_NE(reinterpret_cast<std::uintptr_t>(atB), reinterpret_cast<std::uintptr_t>(b.fn()));
    for (int len : {0, 1, 7, 40, 63, 64, 65, 300, 599})
      ASSERT_EQ(atB(data.data(), len, 0xffffffffu), b(data.data(), len, 0xffffffffu)) << len;
    seen.insert(reinterpret_cast<std::uintptr_t>(atB));
  }
  EXPECT_EQ(seen.size(), 4u) << "each round draws its own address";
  EXPECT_EQ(addresses.installs(), 8u);
  // The draw is the seed's: another run with the seed shares the addresses.
  EXPECT_EQ(SharedAddresses(7).offsetOf(3), addresses.offsetOf(3));
  EXPECT_NE(SharedAddresses(8).offsetOf(3), addresses.offsetOf(3));
}

TEST(SharedAddresses, AGeneratedKernelMovesAndCodeThatLeavesItsBytesDoesNot) {
  const Kernel k = Jit::compile(std::string_view("carry=adc,chains=3,unroll=9,tail=overlap"));
  const auto shared = sharedAddressesOrNull(1);
  if (!shared) GTEST_SKIP() << "this system refuses writable code memory";
  SharedAddresses& addresses = *shared;
  EXPECT_EQ(addresses.whyNotMovable(timedKernel(k, "k")), std::nullopt);
  // Its first 16 bytes alone: the copy runs on into int3 and dies in the child, not here.
  TimedKernel cut = timedKernel(k, "cut");
  cut.bytes = 16;
  const auto why = addresses.whyNotMovable(cut);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("crashed"), std::string::npos) << *why;
  // Code that reads data beside it by its address (mov eax, [rip + 1]; ret; then the data):
  // moved without the data, it reads int3 bytes and returns another sum.
  static const std::uint8_t kReadsBeside[] = {0x8b, 0x05, 0x01, 0x00, 0x00, 0x00,
                                              0xc3, 0x78, 0x56, 0x34, 0x12};
  void* page =
      mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  std::memcpy(page, kReadsBeside, sizeof kReadsBeside);
  TimedKernel beside{"beside", "", TimedKind::BaselineSource, reinterpret_cast<KernelFn>(page), 7};
  ASSERT_EQ(beside.fn(nullptr, 0, 0), 0x12345678u);
  const auto whyBeside = addresses.whyNotMovable(beside);
  ASSERT_TRUE(whyBeside.has_value());
  EXPECT_NE(whyBeside->find("other sums"), std::string::npos) << *whyBeside;
  munmap(page, 4096);
  TimedKernel unknown = timedKernel(k, "unknown");
  unknown.bytes = 0;
  EXPECT_EQ(addresses.whyNotMovable(unknown), "its code's size is unknown");
  TimedKernel huge = timedKernel(k, "huge");
  huge.bytes = SharedAddresses::kMaxCodeBytes + 1;
  EXPECT_TRUE(addresses.whyNotMovable(huge).has_value());
}

// A measurement with shared addresses moves every movable kernel before each of its batches
// (the warm-up and the timed one share the move) and leaves the others where they are.
TEST(SharedAddresses, AMeasurementMovesEveryMovableKernelEachRound) {
  const Kernel a = Jit::compile(std::string_view("carry=adc,chains=2,unroll=8"));
  const Kernel b = Jit::compile(std::string_view("carry=adc,chains=2,unroll=4"));
  const Kernel c = Jit::compile(std::string_view("carry=adc,chains=1,unroll=4"));
  const auto shared = sharedAddressesOrNull(3);
  if (!shared) GTEST_SKIP() << "this system refuses writable code memory";
  SharedAddresses& addresses = *shared;
  auto timer = makeTimer(true);
  Workload workload(WorkloadConfig{}, 4096);
  MeasureConfig config;
  config.sizes = {17, 1500};
  config.repeat = 5;
  config.targetBatchTicks = 20000;
  config.addresses = &addresses;
  TimedKernel inPlace = timedKernel(c, "c");
  inPlace.movable = false;  // as a baseline whose code could not be moved
  const auto samples = measureInterleaved({timedKernel(a, "a"), timedKernel(b, "b"), inPlace},
                                          config, *timer, workload);
  ASSERT_EQ(samples.size(), 3u);
  for (const auto& k : samples) {
    for (const auto& s : k.sizes) {
      ASSERT_EQ(s.perCall.size(), 5u);
      for (double t : s.perCall) EXPECT_GT(t, 0.0);
    }
  }
  EXPECT_EQ(addresses.installs(), 2u * 5u * 2u) << "two movable kernels, five rounds, two sizes";
}

}  // namespace
}  // namespace csumtune::tuner
