// Every (carry, chains, unroll) shape the generator accepts, each with a different prefetch
// distance and hint, against the full verification plan: lengths 0..1024 at every alignment,
// sampled lengths to 64 KiB, random / all-0xff / all-0x00 data, initial sums 0, 0xffffffff
// and random, guard pages on both sides. (`csumtune verify --all --quick`, run as its own
// test, covers every prefetch and hint of every shape.)
#include <gtest/gtest.h>

#include <map>

#include "csumtune/cpu.hpp"
#include "csumtune/csumtune.h"
#include "csumtune/jit.hpp"
#include "verify.hpp"

namespace csumtune {
namespace {

std::vector<gen::Params> shapes() {
  std::map<std::string, gen::Params> distinct;  // one per (carry, chains, unroll)
  int i = 0;
  for (const gen::Params& p : gen::enumerateSpace()) {
    gen::Params shape = p;
    shape.prefetch = 0;
    shape.hint = gen::Hint::T0;
    const std::string key = shape.toString();
    if (distinct.count(key)) continue;
    // Spread prefetch distances over 0..4096 and cycle the hints.
    shape.prefetch = (i * 7 % 65) * 64;
    shape.hint = static_cast<gen::Hint>(i % 4);
    distinct.emplace(key, shape);
    ++i;
  }
  std::vector<gen::Params> out;
  for (auto& [key, shape] : distinct) out.push_back(shape);
  return out;
}

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

INSTANTIATE_TEST_SUITE_P(AllShapes, KernelCorrectness, ::testing::ValuesIn(shapes()),
                         [](const auto& info) {
                           const auto& p = info.param;
                           return std::string(gen::toString(p.carry)) + "_c" +
                                  std::to_string(p.chains) + "_u" + std::to_string(p.unroll);
                         });

TEST(KernelShapes, CoverEveryFamilyChainAndUnroll) {
  EXPECT_EQ(shapes().size(), 85u * 3 + 33u);
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
