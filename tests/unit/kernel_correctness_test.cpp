// Every (carry, chains, unroll) shape the generator accepts, each with a different prefetch
// distance and hint, against the full verification plan: lengths 0..1024 at every alignment,
// sampled lengths to 64 KiB, random / all-0xff / all-0x00 data, initial sums 0, 0xffffffff
// and random, guard pages on both sides. (`csumtune verify --all --quick`, run as its own
// test, covers every prefetch and hint of every shape.)
#include <string>

#include <gtest/gtest.h>

#include "csumtune/cpu.hpp"
#include "csumtune/csumtune.h"
#include "csumtune/jit.hpp"
#include "shapes.hpp"
#include "verify/verify.hpp"

namespace csumtune {
namespace {

using csumtune::testing::representativeShapes;
using csumtune::testing::shapeName;

class KernelCorrectness : public ::testing::TestWithParam<gen::Params> {
 protected:
  static void SetUpTestSuite() { fixture_ = new tuner::VerifyFixture(2024); }
  static void TearDownTestSuite() { delete fixture_; }
  static tuner::VerifyFixture* fixture_;
};
tuner::VerifyFixture* KernelCorrectness::fixture_ = nullptr;

TEST_P(KernelCorrectness, MatchesReferenceEverywhere) {
  const gen::Params& params = GetParam();
  if (!missingFeatures(params).empty()) GTEST_SKIP() << "CPU lacks a feature";
  const Kernel kernel = Jit::compile(params);
  EXPECT_EQ(kernel.canonical(), params.toString());
  const auto outcome = tuner::verifyKernel(kernel.fn(), *fixture_, tuner::fullPlan(99));
  EXPECT_TRUE(outcome.ok()) << params.toString() << ": " << *outcome.failure;
  EXPECT_GT(outcome.calls, 200000u);
}

INSTANTIATE_TEST_SUITE_P(AllShapes, KernelCorrectness, ::testing::ValuesIn(representativeShapes()),
                         [](const auto& info) { return shapeName(info.param); });

// kind=copy: every shape that can copy (all but avx512vnni) through the full plan, its
// destination at other alignments and against the other guard page (verifyCopyKernel);
// every other general-purpose shape with non-temporal stores (store=nt).
std::vector<gen::Params> copyingShapes() {
  std::vector<gen::Params> out;
  int n = 0;
  for (gen::Params p : representativeShapes()) {
    p.kind = gen::Kind::Copy;
    if (!gen::validationError(p).empty()) continue;
    if (gen::traitsOf(p.carry).kernelSafe() && n++ % 2 == 1) p.store = gen::Store::Nt;
    out.push_back(p);
    // avx2's default vector sum (halves; the space has madd) copies too: at the smallest
    // and the largest block of two chains.
    if (p.carry == gen::Carry::Avx2 && p.chains == 2 && (p.unroll == 2 || p.unroll == 32)) {
      p.vsum = gen::VectorSum::Halves;
      out.push_back(p);
    }
  }
  return out;
}

// kind=copy through entry=forty's short paths, which move the pointer between the chains of
// one block (the stores follow the loads' displacement): each 80-byte block form, both sum
// entries, one and two tail chains, one accumulator.
std::vector<gen::Params> fortyCopyingFrames() {
  std::vector<gen::Params> out;
  for (const char* frame :
       {"carry=adc,chains=4,unroll=8,tail=overlap,entry=forty,short=512,block80=loop",
        "carry=adc,chains=4,unroll=32,tail=overlap,sum=last,entry=forty,short=512,tailchains=1,"
        "block80=loop",
        "carry=adc,chains=1,unroll=8,tail=overlap,sum=last,entry=forty,short=256,block80=loop",
        "carry=adcx,chains=4,unroll=8,tail=overlap,sum=last,entry=forty,short=256,tailchains=1,"
        "block80=pair",
        "carry=adc,chains=4,unroll=8,tail=overlap,entry=forty,short=128,tailchains=1",
        // Its jump targets aligned: fill between the paths, and jumps across it.
        "carry=adc,chains=4,unroll=32,tail=overlap,sum=last,entry=forty,short=512,tailchains=1,"
        "block80=loop,targets=aligned"}) {
    gen::Params p = gen::parseParams(frame);
    p.kind = gen::Kind::Copy;
    out.push_back(p.canonical());
  }
  return out;
}

class CopyCorrectness : public KernelCorrectness {};

TEST_P(CopyCorrectness, CopiesAndMatchesReferenceEverywhere) {
  const gen::Params& params = GetParam();
  if (!missingFeatures(params).empty()) GTEST_SKIP() << "CPU lacks a feature";
  const Kernel kernel = Jit::compile(params);
  ASSERT_TRUE(kernel.copies());
  EXPECT_EQ(kernel.fn(), nullptr);
  const auto outcome = tuner::verifyCopyKernel(kernel.copyFn(), *fixture_, tuner::fullPlan(77));
  EXPECT_TRUE(outcome.ok()) << params.toString() << ": " << *outcome.failure;
  EXPECT_GT(outcome.calls, 200000u);
}

INSTANTIATE_TEST_SUITE_P(AllShapes, CopyCorrectness, ::testing::ValuesIn(copyingShapes()),
                         [](const auto& info) {
                           return shapeName(info.param) +
                                  (info.param.store == gen::Store::Nt ? "_nt" : "") +
                                  (testing::inSpaceForm(info.param) ? "" : "_halves");
                         });

INSTANTIATE_TEST_SUITE_P(FortyFrames, CopyCorrectness, ::testing::ValuesIn(fortyCopyingFrames()),
                         [](const auto& info) { return "frame" + std::to_string(info.index); });

// avx2's default vector sum (halves: what every avx2 string without vsum names) at every loop
// shape, summing and copying, through the quick plan (what verify --all --quick gives the
// space in CI): the space has avx2 as vsum=madd, so the suites above check halves fully only
// at a few shapes (representativeFrames, copyingShapes).
TEST_F(KernelCorrectness, Avx2HalvesAtEveryLoopShapeThroughTheQuickPlan) {
  if (!missingFeatures(gen::parseParams("carry=avx2")).empty()) GTEST_SKIP() << "no AVX2";
  std::size_t shapes = 0;
  using L = gen::ParamLimits;
  for (int chains = L::kMinChains; chains <= L::kMaxChains; ++chains) {
    for (int unroll = chains; unroll <= L::kMaxUnroll; unroll += chains) {
      const int n = static_cast<int>(shapes);
      gen::Params p{gen::Carry::Avx2, chains, unroll, n * 3 % 65 * 64,
                    static_cast<gen::Hint>(n % gen::kHintCount)};
      if (!gen::validationError(p).empty()) continue;
      ++shapes;
      const Kernel sum = Jit::compile(p);
      const auto summed =
          tuner::verifyKernel(sum.fn(), *fixture_, tuner::forParams(tuner::quickPlan(p, 7), p));
      EXPECT_TRUE(summed.ok()) << p.toString() << ": " << *summed.failure;
      EXPECT_GT(summed.calls, 200u) << p.toString();
      p.kind = gen::Kind::Copy;
      if (!gen::validationError(p).empty()) continue;
      const Kernel copy = Jit::compile(p);
      const auto copied = tuner::verifyCopyKernel(copy.copyFn(), *fixture_,
                                                  tuner::forParams(tuner::quickPlan(p, 7), p));
      EXPECT_TRUE(copied.ok()) << p.toString() << ": " << *copied.failure;
      EXPECT_GT(copied.calls, 200u) << p.toString();
    }
  }
  EXPECT_EQ(shapes, 85u);
}

TEST(KernelShapes, CoverEveryFamilyChainAndUnroll) {
  EXPECT_EQ(representativeShapes().size(), 85u * 6 + 33u);
}

// The shapes the project's scripts rely on, by name.
TEST(KernelShapes, NamedShapesCompileAndAgreeWithEachOther) {
  const char* named[] = {"carry=adc,chains=8,unroll=32,prefetch=4096,hint=nta",
                         "carry=add32,chains=1,unroll=2,prefetch=0,hint=t0",
                         "carry=cmov,chains=8,unroll=16,prefetch=128,hint=t1",
                         "carry=adcx,chains=8,unroll=32,prefetch=64,hint=t2"};
  std::vector<std::uint8_t> data(70000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 131 + 7);
  std::vector<Kernel> kernels;
  for (const char* p : named) {
    if (!missingFeatures(gen::parseParams(p)).empty()) continue;
    kernels.push_back(Jit::compile(std::string_view(p)));
  }
  for (int len : {0, 1, 40, 1500, 65536, 69999}) {
    const std::uint16_t first = fold16(kernels[0](data.data(), len, 0x80000001u)) % 0xffff;
    for (const Kernel& k : kernels) {
      EXPECT_EQ(fold16(k(data.data(), len, 0x80000001u)) % 0xffff, first) << k.canonical();
    }
  }
}

}  // namespace
}  // namespace csumtune
