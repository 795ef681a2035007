#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "csumtune/csumtune.h"
#include "csumtune/gen/kernel_program.hpp"
#include "csumtune/jit.hpp"
#include "verify/reference.hpp"

namespace csumtune {
namespace {

TEST(CApi, CompilesCallsAndFrees) {
  char err[256] = "untouched";
  csumtune_kernel* k = csumtune_compile("unroll=8,chains=2,carry=cmov", err, sizeof err);
  ASSERT_NE(k, nullptr) << err;
  EXPECT_STREQ(csumtune_kernel_params(k), "carry=cmov,chains=2,unroll=8,prefetch=0,hint=t0");
  // Its size is the machine code's, as the C++ API and the generator count it.
  const gen::Params params = gen::parseParams("carry=cmov,chains=2,unroll=8");
  EXPECT_EQ(csumtune_kernel_size(k), Jit::compile(params).size());
  EXPECT_EQ(csumtune_kernel_size(k), gen::KernelProgram(params).bytes().size());
  EXPECT_GT(csumtune_kernel_size(k), 64u);
  csumtune_fn fn = csumtune_kernel_fn(k);
  std::uint8_t data[777];
  for (int i = 0; i < 777; ++i) data[i] = static_cast<std::uint8_t>(i * 97);
  for (int len = 0; len <= 777; ++len) {
    ASSERT_EQ(tuner::residue(fn(data, len, 0xfffffff0u)),
              tuner::referenceResidue(data, len, 0xfffffff0u));
  }
  csumtune_kernel_free(k);
  csumtune_kernel_free(nullptr);
}

// A copying kernel (kind=copy) through both APIs: it is called as a copy, never as a sum.
TEST(CApi, CopyingKernelsAreCalledAsCopies) {
  char err[256] = "";
  csumtune_kernel* k = csumtune_compile("carry=adc,chains=4,unroll=16,kind=copy", err, sizeof err);
  ASSERT_NE(k, nullptr) << err;
  EXPECT_EQ(csumtune_kernel_fn(k), nullptr);
  csumtune_copy_fn copy = csumtune_kernel_copy_fn(k);
  ASSERT_NE(copy, nullptr);
  std::uint8_t src[777], dst[777 + 2];
  for (int i = 0; i < 777; ++i) src[i] = static_cast<std::uint8_t>(i * 97 + 3);
  for (int len = 0; len <= 777; ++len) {
    std::memset(dst, 0xee, sizeof dst);
    ASSERT_EQ(tuner::residue(copy(src, dst + 1, len, 0xfffffff0u)),
              tuner::referenceResidue(src, len, 0xfffffff0u));
    ASSERT_EQ(std::memcmp(dst + 1, src, static_cast<std::size_t>(len)), 0) << len;
    ASSERT_EQ(dst[0], 0xee);
    ASSERT_EQ(dst[len + 1], 0xee);
  }
  csumtune_kernel_free(k);
  EXPECT_EQ(csumtune_kernel_copy_fn(nullptr), nullptr);
  csumtune_kernel* summing = csumtune_compile("carry=adc", err, sizeof err);
  ASSERT_NE(summing, nullptr);
  EXPECT_EQ(csumtune_kernel_copy_fn(summing), nullptr);
  csumtune_kernel_free(summing);

  const Kernel copying = Jit::compile("carry=cmov,chains=2,unroll=8,kind=copy");
  EXPECT_TRUE(copying.copies());
  EXPECT_THROW(copying(src, 10, 0), Error);
  EXPECT_EQ(tuner::residue(copying.copy(src, dst, 10, 0)), tuner::referenceResidue(src, 10, 0));
  const Kernel sum = Jit::compile("carry=cmov,chains=2,unroll=8");
  EXPECT_THROW(sum.copy(src, dst, 10, 0), Error);
}

TEST(CApi, BadParamsGiveNullAndAMessage) {
  char err[256] = "";
  EXPECT_EQ(csumtune_compile("carry=adcx,chains=3,unroll=3", err, sizeof err), nullptr);
  EXPECT_NE(std::string(err).find("adcx needs an even chain count"), std::string::npos) << err;
  EXPECT_EQ(csumtune_compile("carry=quantum", err, sizeof err), nullptr);
  EXPECT_NE(std::string(err).find("carry=quantum is unknown"), std::string::npos) << err;
  EXPECT_EQ(csumtune_compile(nullptr, err, sizeof err), nullptr);
  EXPECT_STREQ(err, "params is NULL");
  // A message longer than the buffer is cut, and still terminated.
  char tiny[8];
  EXPECT_EQ(csumtune_compile("chains=0", tiny, sizeof tiny), nullptr);
  EXPECT_EQ(std::string(tiny).size(), 7u);
  // No buffer at all is allowed.
  EXPECT_EQ(csumtune_compile("chains=0", nullptr, 0), nullptr);
}

TEST(CApi, NullKernelIsHarmless) {
  EXPECT_EQ(csumtune_kernel_fn(nullptr), nullptr);
  EXPECT_EQ(csumtune_kernel_params(nullptr), nullptr);
  EXPECT_EQ(csumtune_kernel_size(nullptr), 0u);
}

// A kernel whose instructions the CPU lacks is refused, never run. The environment mask
// makes this machine look like one without ADX.
// The runtime outlives its kernels, so a kernel takes the place of the last one freed: what
// follows its code must be int3 (which verify reports), never the last kernel's code, which
// a kernel missing its ret would run on into unnoticed.
TEST(Runtime, CodeAFreedKernelLeavesIsFilledWithInt3) {
  std::uintptr_t bigAt = 0;
  std::size_t bigSize = 0;
  {
    const Kernel big = Jit::compile("carry=adc,chains=6,unroll=30");
    bigAt = reinterpret_cast<std::uintptr_t>(big.fn());
    bigSize = big.size();
  }
  const Kernel small = Jit::compile("carry=adc,chains=2,unroll=4");
  ASSERT_LT(small.size() + 16, bigSize);
  const auto* code = reinterpret_cast<const std::uint8_t*>(small.fn());
  for (std::size_t i = small.size(); i < small.size() + 16; ++i)
    EXPECT_EQ(code[i], 0xcc) << "byte " << i << " after the start of a " << small.size()
                             << "-byte kernel"
                             << (reinterpret_cast<std::uintptr_t>(code) == bigAt
                                     ? " placed where a bigger one was"
                                     : "");
}

// place=N puts the entry at byte N of a 64-byte line, in front of it only int3, and the code
// after it is the same bytes wherever it sits (every jump is relative to itself).
TEST(Runtime, PlacesTheEntryAtItsOffsetInALine) {
  const std::string frame = "carry=adc,chains=4,unroll=16,tail=overlap,entry=lean,short=64";
  const Kernel atLine = Jit::compile(frame);
  const auto* lineCode = reinterpret_cast<const std::uint8_t*>(atLine.fn());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(lineCode) % 64, 0u);
  std::vector<std::uint8_t> buf(300);
  for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<std::uint8_t>(i * 37 + 11);
  for (int place : gen::ParamLimits::kPlacements) {
    const Kernel placed = Jit::compile(frame + ",place=" + std::to_string(place));
    const auto* code = reinterpret_cast<const std::uint8_t*>(placed.fn());
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(code) % 64, static_cast<std::uintptr_t>(place));
    ASSERT_EQ(placed.size(), atLine.size());
    EXPECT_TRUE(std::equal(code, code + placed.size(), lineCode)) << "place=" << place;
    for (int i = 1; i <= place; ++i) EXPECT_EQ(code[-i], 0xcc) << i << " bytes before the entry";
    for (int len : {0, 1, 7, 40, 63, 64, 65, 300})
      EXPECT_EQ(placed(buf.data(), len, 0x1234u), atLine(buf.data(), len, 0x1234u)) << len;
  }
}

TEST(Runtime, RefusesKernelsTheCpuCannotRun) {
  ASSERT_EQ(setenv("CSUMTUNE_DISABLE_FEATURES", "adx", 1), 0);
  char err[256] = "";
  EXPECT_EQ(csumtune_compile("carry=adcx,chains=2,unroll=4", err, sizeof err), nullptr);
  EXPECT_NE(std::string(err).find("needs ADX"), std::string::npos) << err;
  try {
    Jit::compile(std::string_view("carry=adcx,chains=2,unroll=4"));
    ADD_FAILURE() << "compiled an ADX kernel on a CPU without ADX";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), Error::Kind::MissingCpuFeature);
  }
  // Families that need nothing still compile.
  csumtune_kernel* k = csumtune_compile("carry=adc", err, sizeof err);
  EXPECT_NE(k, nullptr) << err;
  csumtune_kernel_free(k);
  unsetenv("CSUMTUNE_DISABLE_FEATURES");
}

TEST(Runtime, KernelsOutliveEachOtherInAnyOrder) {
  std::vector<Kernel> kernels;
  for (int unroll = 1; unroll <= 32; ++unroll) {
    kernels.push_back(Jit::compile(gen::Params{gen::Carry::Adc, 1, unroll, 0, gen::Hint::T0}));
  }
  const std::uint8_t data[3] = {1, 2, 3};
  kernels.erase(kernels.begin() + 5, kernels.begin() + 20);
  Kernel moved = std::move(kernels.back());
  kernels.clear();
  EXPECT_EQ(fold16(moved(data, 3, 0)), 0x0201 + 3);
}

}  // namespace
}  // namespace csumtune
