#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "csumtune/gen/params.hpp"

namespace csumtune::gen {
namespace {

TEST(Params, DefaultsAndCanonicalOrder) {
  EXPECT_EQ(parseParams("").toString(), "carry=adc,chains=4,unroll=16,prefetch=0,hint=t0");
  EXPECT_EQ(parseParams("hint=nta,prefetch=512,unroll=8,chains=2,carry=adcx").toString(),
            "carry=adcx,chains=2,unroll=8,prefetch=512,hint=nta");
  EXPECT_EQ(parseParams(" carry = cmov , chains=8 ,unroll=16").toString(),
            "carry=cmov,chains=8,unroll=16,prefetch=0,hint=t0");
}

// byteload says where bounds=aligned's load of the last bytes takes its address: it prints after
// bounds, round-trips, and means nothing (canonical `computed`) without bounds=aligned.
TEST(Params, TheByteLoadKeyBelongsToAlignedBounds) {
  const Params pointer =
      parseParams("carry=adc,chains=4,unroll=16,bounds=aligned,byteload=pointer");
  EXPECT_EQ(pointer.byteLoad, ByteLoad::Pointer);
  EXPECT_EQ(pointer.toString(),
            "carry=adc,chains=4,unroll=16,prefetch=0,hint=t0,bounds=aligned,byteload=pointer");
  EXPECT_EQ(parseParams(pointer.toString()), pointer);
  EXPECT_EQ(pointer.canonical(), pointer);
  const Params strict = parseParams("carry=adc,chains=4,unroll=16,byteload=pointer");
  EXPECT_EQ(strict.canonical().byteLoad, ByteLoad::Computed);
  EXPECT_EQ(strict.canonical().toString(), "carry=adc,chains=4,unroll=16,prefetch=0,hint=t0");
  EXPECT_THROW(parseParams("byteload=aligned"), ParamsError);
  const Params straight =
      parseParams("carry=adc,chains=4,unroll=16,bounds=aligned,byteload=straight");
  EXPECT_EQ(straight.byteLoad, ByteLoad::Straight);
  EXPECT_EQ(parseParams(straight.toString()), straight);
  EXPECT_EQ(parseParams("carry=adc,chains=4,unroll=16,byteload=straight").canonical().byteLoad,
            ByteLoad::Computed);
}

// block80 is entry=forty's: elsewhere, with two tail chains on the ladder (its block is two
// chains already) or with one accumulator, canonical() resets it; frameVariants() gives every
// forty frame whose block is one chain both forms.
// vsum: avx2's vector sum. The default (halves) is the code every avx2 string named before
// the key, so it is never printed; madd is printed, belongs to avx2 alone, and is the form the
// space searches.
TEST(Params, TheVectorSumKeyIsAvx2sAndTheSpaceSearchesMadd) {
  const Params halves = parseParams("carry=avx2,chains=2,unroll=22");
  EXPECT_EQ(halves.vsum, VectorSum::Halves);
  EXPECT_EQ(halves.toString(), "carry=avx2,chains=2,unroll=22,prefetch=0,hint=t0");
  EXPECT_EQ(parseParams("carry=avx2,chains=2,unroll=22,vsum=halves"), halves);
  const Params madd = parseParams("vsum=madd,carry=avx2,chains=2,unroll=22,mid=256,place=16");
  EXPECT_EQ(madd.vsum, VectorSum::Madd);
  EXPECT_EQ(madd.toString(),
            "carry=avx2,chains=2,unroll=22,prefetch=0,hint=t0,mid=256,vsum=madd,place=16");
  EXPECT_EQ(parseParams(madd.toString()), madd);
  EXPECT_EQ(madd.canonical().vsum, VectorSum::Madd);
  for (const char* other : {"carry=adc,vsum=madd", "carry=avx512,vsum=madd",
                            "carry=avx512vnni,vsum=madd", "carry=cmov,vsum=madd"}) {
    try {
      parseParams(other);
      ADD_FAILURE() << other << " was accepted";
    } catch (const ParamsError& e) {
      EXPECT_NE(std::string(e.what()).find("vsum=madd is for carry=avx2"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW(parseParams("carry=avx2,vsum=pairs"), ParamsError);
  // The stand-in the size limit measures for a too-big kernel keeps its vector sum.
  EXPECT_EQ(compactFrame(madd).vsum, VectorSum::Madd);
  std::size_t avx2 = 0;
  for (const Params& p : enumerateSpace()) {
    EXPECT_EQ(p.vsum, p.carry == Carry::Avx2 ? VectorSum::Madd : VectorSum::Halves) << p.toString();
    avx2 += p.carry == Carry::Avx2;
  }
  EXPECT_GT(avx2, 0u);
}

TEST(Params, TheBlock80KeyBelongsToFortyFramesWithOneChain) {
  const std::string forty = "carry=adc,chains=6,unroll=30,tail=overlap,entry=forty,short=128";
  const Params pair = parseParams(forty + ",tailchains=short,block80=pair");
  EXPECT_EQ(pair.block80, Block80::Pair);
  EXPECT_EQ(pair.toString(),
            "carry=adc,chains=6,unroll=30,prefetch=0,hint=t0,tail=overlap,entry=forty,"
            "short=128,tailchains=short,block80=pair");
  EXPECT_EQ(parseParams(pair.toString()), pair);
  EXPECT_EQ(pair.canonical(), pair);
  EXPECT_EQ(parseParams(forty + ",tailchains=1,block80=pair").canonical().block80, Block80::Pair);
  EXPECT_EQ(parseParams(forty + ",words=loop,block80=pair").canonical().block80, Block80::Pair);
  for (const char* elsewhere :
       {"carry=adc,chains=6,unroll=30,tail=overlap,entry=inline,short=128,tailchains=1,block80="
        "pair",
        "carry=adc,chains=6,unroll=30,tail=overlap,entry=forty,short=128,block80=pair",
        "carry=adc,chains=1,unroll=30,tail=overlap,entry=forty,short=128,tailchains=1,block80=pair",
        "carry=adc,chains=2,unroll=4,tail=overlap,entry=forty,short=128,tailchains=1,block80="
        "pair"}) {
    EXPECT_EQ(parseParams(elsewhere).canonical().block80, Block80::Chain) << elsewhere;
  }
  EXPECT_THROW(parseParams("block80=two"), ParamsError);
  const auto variants = frameVariants(parseParams("carry=adc,chains=6,unroll=30"), {40});
  std::size_t pairs = 0;
  for (const Params& p : variants) {
    if (p.block80 != Block80::Pair) continue;
    ++pairs;
    Params chain = p;
    chain.block80 = Block80::Chain;
    EXPECT_NE(std::find(variants.begin(), variants.end(), chain), variants.end())
        << p.toString() << " without its one-chain twin";
  }
  EXPECT_GT(pairs, 0u);
}

// block80=loop repeats entry=forty's 80-byte block from 160 bytes up to the short bound: it is
// for short=256 and 512 only (512 for nothing else), it makes a short path whatever the main
// loop's block (the short path no longer needs the loop to be wider), canonical() keeps it
// with one accumulator and two tail chains (its block repeats there too) and resets it
// elsewhere, and frameVariants() offers it with both bounds, for small blocks too.
TEST(Params, TheLoopingBlock80IsFortysAtTheWideBounds) {
  const Params loop = parseParams(
      "carry=adc,chains=2,unroll=16,tail=overlap,entry=forty,short=256,tailchains=1,"
      "block80=loop");
  EXPECT_EQ(loop.blockBytes(), 128);
  EXPECT_TRUE(loop.hasShortPath());
  EXPECT_EQ(loop.canonical(), loop);
  EXPECT_EQ(parseParams(loop.toString()), loop);
  Params pair = loop;
  pair.block80 = Block80::Pair;
  EXPECT_FALSE(pair.hasShortPath()) << "a 128-byte block under a bound of 256: no short path";
  EXPECT_THROW(parseParams("carry=adc,chains=6,unroll=30,tail=overlap,entry=forty,short=128,"
                           "block80=loop"),
               ParamsError);
  // 512 is the looping block's bound alone.
  EXPECT_TRUE(parseParams("carry=adc,chains=6,unroll=30,tail=overlap,entry=forty,short=512,"
                          "block80=loop")
                  .hasShortPath());
  EXPECT_THROW(parseParams("carry=adc,chains=6,unroll=30,tail=overlap,entry=forty,short=512,"
                           "block80=pair"),
               ParamsError);
  EXPECT_THROW(parseParams("carry=adc,chains=6,unroll=30,short=512"), ParamsError);
  for (const char* kept :
       {"carry=adc,chains=1,unroll=30,tail=overlap,entry=forty,short=256,block80=loop",
        "carry=adc,chains=6,unroll=30,tail=overlap,entry=forty,short=256,block80=loop",
        "carry=avx2,chains=2,unroll=4,tail=overlap,entry=forty,short=256,words=loop,"
        "block80=loop"}) {
    EXPECT_EQ(parseParams(kept).canonical().block80, Block80::Loop) << kept;
  }
  EXPECT_EQ(parseParams("carry=adc,chains=6,unroll=30,tail=overlap,entry=inline,short=256,"
                        "block80=loop")
                .canonical()
                .block80,
            Block80::Chain);
  for (const char* shape : {"carry=adc,chains=6,unroll=30", "carry=adc,chains=2,unroll=16"}) {
    const auto variants = frameVariants(parseParams(shape), {40});
    const auto loops = std::count_if(variants.begin(), variants.end(),
                                     [](const Params& p) { return p.block80 == Block80::Loop; });
    EXPECT_GT(loops, 0) << shape;
    std::set<int> loopBounds;
    for (const Params& p : variants) {
      if (p.block80 != Block80::Loop) continue;
      loopBounds.insert(p.shortBelow);
      EXPECT_EQ(p, p.canonical()) << p.toString();
    }
    EXPECT_EQ(loopBounds, (std::set<int>{256, 512})) << shape;
  }
}

TEST(Params, EveryPointOfTheSpaceRoundTrips) {
  const auto space = enumerateSpace();
  std::set<std::string> seen;
  for (const Params& p : space) {
    const std::string text = p.toString();
    EXPECT_EQ(parseParams(text), p) << text;
    EXPECT_TRUE(seen.insert(text).second) << "listed twice: " << text;
  }
  // 4 GPR and 3 SIMD families; unroll a multiple of chains (85 shapes a family); adcx even
  // chains (33); 64 prefetch distances x 4 hints + prefetch=0 x 4 hints.
  EXPECT_EQ(space.size(), (85u * 6 + 33u) * 260u);
  EXPECT_EQ(enumerateSpace({false, true}).size(), (85u * 6 + 33u) * 257u);
  EXPECT_EQ(enumerateSpace({true, false}).size(), (85u * 3 + 33u) * 260u)
      << "the GPR families are kernel-safe, the SIMD ones are not";
}

struct BadCase {
  const char* text;
  const char* messagePart;
};

class ParamsRejects : public ::testing::TestWithParam<BadCase> {};

TEST_P(ParamsRejects, WithAMessageNamingTheRule) {
  try {
    parseParams(GetParam().text);
    FAIL() << "accepted " << GetParam().text;
  } catch (const ParamsError& e) {
    EXPECT_NE(std::string(e.what()).find(GetParam().messagePart), std::string::npos)
        << "message was: " << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Rules, ParamsRejects,
    ::testing::Values(BadCase{"carry=adcx,chains=3,unroll=6", "adcx needs an even chain count"},
                      BadCase{"chains=0,unroll=4", "chains must be in 1..8"},
                      BadCase{"chains=9,unroll=18", "chains must be in 1..8"},
                      BadCase{"chains=1,unroll=33", "unroll must be in 1..32"},
                      BadCase{"chains=1,unroll=0", "unroll must be in 1..32"},
                      BadCase{"chains=3,unroll=8", "unroll must be a multiple of chains"},
                      BadCase{"prefetch=100", "prefetch must be 0..4096 in steps of 64"},
                      BadCase{"prefetch=4160", "prefetch must be 0..4096 in steps of 64"},
                      BadCase{"prefetch=-64", "prefetch must be 0..4096 in steps of 64"},
                      BadCase{"carry=sbb", "carry=sbb is unknown"},
                      BadCase{"carry=sse2,chains=2,unroll=4", "carry=sse2 is unknown"},
                      BadCase{"hint=t3", "hint=t3 is unknown"},
                      BadCase{"chains=two", "chains=two is not an integer"},
                      BadCase{"chains=4x", "chains=4x is not an integer"},
                      BadCase{"chains=99999999999", "not an integer"},
                      BadCase{"speed=max", "unknown key 'speed'"},
                      BadCase{"chains=2,chains=4", "key 'chains' given twice"},
                      BadCase{"chains", "'chains' is not key=value"},
                      BadCase{"chains=2,,unroll=4", "empty item"},
                      BadCase{"tailchains=3", "tailchains must be 1, 2 or short"},
                      BadCase{"tailchains=long", "tailchains must be 1, 2 or short (got long)"},
                      BadCase{"tailchains=SHORT", "tailchains must be 1, 2 or short"}));

INSTANTIATE_TEST_SUITE_P(
    ShortPathEntry, ParamsRejects,
    ::testing::Values(BadCase{"tail=ladder,entry=range", "entry=range is for tail=overlap"},
                      BadCase{"chains=6,unroll=30,entry=forty", "entry=forty is for tail=overlap"},
                      BadCase{"chains=6,unroll=30,tail=overlap,entry=forty,short=64",
                              "entry=forty is for short=128 or 256"},
                      BadCase{"chains=6,unroll=30,tail=overlap,entry=forty,short=128,exact=40",
                              "leave exact=40 out"},
                      BadCase{"entry=early", "entry=early is unknown"}));

INSTANTIATE_TEST_SUITE_P(MiddlePath, ParamsRejects,
                         ::testing::Values(BadCase{"carry=avx2,chains=2,unroll=8,mid=64",
                                                   "mid must be 0 (none) or one of"},
                                           BadCase{"carry=adc,mid=128",
                                                   "mid is for summing kernels"},
                                           BadCase{"carry=avx2,chains=2,unroll=8,mid=128,kind=copy",
                                                   "mid is for summing kernels"}));

INSTANTIATE_TEST_SUITE_P(
    Placement, ParamsRejects,
    ::testing::Values(BadCase{"place=8", "place must be 0 or one of 16, 32, 48"},
                      BadCase{"place=64", "(the entry's offset in a 64-byte line; got 64)"},
                      BadCase{"place=-16", "place must be 0 or one of"},
                      BadCase{"place=front", "place=front is not an integer"}));

TEST(Params, RequiredFeatures) {
  EXPECT_TRUE(requiredFeatures(parseParams("carry=adc")).empty());
  EXPECT_EQ(requiredFeatures(parseParams("carry=adcx,chains=2,unroll=4")),
            std::vector<CpuFeature>{CpuFeature::Adx});
}

TEST(Params, SimdFamilies) {
  EXPECT_EQ(requiredFeatures(parseParams("carry=avx2")), std::vector<CpuFeature>{CpuFeature::Avx2});
  EXPECT_EQ(requiredFeatures(parseParams("carry=avx512vnni")),
            (std::vector<CpuFeature>{CpuFeature::Avx512F, CpuFeature::Avx512Vnni}));
  EXPECT_FALSE(traitsOf(Carry::Avx512).kernelSafe());
  EXPECT_EQ(parseParams("carry=avx512,chains=4,unroll=8").blockBytes(), 512);
  EXPECT_EQ(parseParams("carry=avx2,chains=1,unroll=32").blockBytes(), 1024);
}

// mid=N: the SIMD families' middle path, printed last and only when set; a bound at or below
// the short path's makes none (canonical 0); AVX-512 needs AVX512BW for its byte mask.
TEST(Params, MiddlePath) {
  const Params p = parseParams("carry=avx512,chains=2,unroll=8,mid=256");
  EXPECT_EQ(p.toString(), "carry=avx512,chains=2,unroll=8,prefetch=0,hint=t0,mid=256");
  EXPECT_TRUE(p.hasMidPath());
  EXPECT_EQ(requiredFeatures(p),
            (std::vector<CpuFeature>{CpuFeature::Avx512F, CpuFeature::Avx512Bw}));
  EXPECT_EQ(requiredFeatures(parseParams("carry=avx2,chains=2,unroll=8,mid=128")),
            std::vector<CpuFeature>{CpuFeature::Avx2});
  EXPECT_EQ(parseParams("carry=avx2,chains=2,unroll=8,short=128,mid=128").canonical().mid, 0);
  // avx512 with one vector a block has no short path: a middle path from the first byte.
  EXPECT_EQ(parseParams("carry=avx512,chains=1,unroll=1,mid=128").canonical().mid, 128);
  const auto variants = sizeClassVariants(parseParams("carry=avx2,chains=4,unroll=32"));
  // short 0/64 below 128, 0/64/128 below 256, 0/64/128/256 below 512.
  EXPECT_EQ(variants.size(), 9u);
  for (const Params& v : variants) {
    EXPECT_TRUE(v.hasMidPath()) << v.toString();
    EXPECT_EQ(v, v.canonical()) << v.toString();
  }
  EXPECT_TRUE(sizeClassVariants(parseParams("carry=adc")).empty());
}

// tailchains=short prints as a word and reads back; a kernel with one accumulator (or the word
// loop) has one tail chain whatever is asked, so it is canonically the default there too.
TEST(Params, ShortTailChain) {
  const Params p = parseParams("chains=6,unroll=30,tail=overlap,tailchains=short");
  EXPECT_EQ(p.tailChains, Params::kShortTailChain);
  EXPECT_EQ(p.toString(),
            "carry=adc,chains=6,unroll=30,prefetch=0,hint=t0,tail=overlap,tailchains=short");
  EXPECT_EQ(parseParams(p.toString()), p);
  EXPECT_EQ(p.wordTailChains(false), 1);
  EXPECT_EQ(p.wordTailChains(true), 2);
  EXPECT_EQ(parseParams("chains=1,unroll=8,tailchains=short").canonical().tailChains, 2);
  EXPECT_EQ(parseParams("chains=4,unroll=8,tailchains=short,words=loop").canonical().tailChains, 2);
  // Without a short path only the tails after the loop read it: 2's code.
  EXPECT_EQ(parseParams("chains=4,unroll=16,short=0,tailchains=short").canonical().tailChains, 2);
  EXPECT_EQ(
      parseParams("carry=avx512,chains=2,unroll=2,short=0,tailchains=short").canonical().tailChains,
      2);
  EXPECT_EQ(parseParams("chains=4,unroll=32,short=128,tailchains=short").canonical().tailChains,
            Params::kShortTailChain);
}

// place says where the code sits, not what it runs: printed last and only when it is not 0
// (so every string printed before it existed reads the same), kept by canonical().
TEST(Params, Placement) {
  const Params p = parseParams("chains=6,unroll=30,tail=overlap,place=48");
  EXPECT_EQ(p.place, 48);
  EXPECT_EQ(p.toString(), "carry=adc,chains=6,unroll=30,prefetch=0,hint=t0,tail=overlap,place=48");
  EXPECT_EQ(parseParams(p.toString()), p);
  EXPECT_EQ(p.canonical().place, 48);
  EXPECT_EQ(parseParams("place=0").toString(), Params{}.toString());
  for (int place : ParamLimits::kPlacements)
    EXPECT_EQ(parseParams("place=" + std::to_string(place)).place, place);
}

// targets, like place, says where code sits: printed after place and only when aligned, kept by
// canonical(), and a name it does not know is refused with the names it does.
TEST(Params, JumpTargets) {
  const Params p = parseParams("chains=6,unroll=30,tail=overlap,targets=aligned,place=16");
  EXPECT_EQ(p.targets, Targets::Aligned);
  EXPECT_EQ(
      p.toString(),
      "carry=adc,chains=6,unroll=30,prefetch=0,hint=t0,tail=overlap,place=16,targets=aligned");
  EXPECT_EQ(parseParams(p.toString()), p);
  EXPECT_EQ(p.canonical().targets, Targets::Aligned);
  EXPECT_EQ(parseParams("targets=packed").toString(), Params{}.toString());
  try {
    parseParams("targets=16");
    ADD_FAILURE() << "targets=16 was accepted";
  } catch (const ParamsError& e) {
    EXPECT_NE(std::string(e.what()).find("packed, aligned"), std::string::npos) << e.what();
  }
}

TEST(Params, BlockBytes) {
  EXPECT_EQ(parseParams("carry=adc,chains=8,unroll=32").blockBytes(), 256);
  EXPECT_EQ(parseParams("carry=add32,chains=1,unroll=1").blockBytes(), 8);
}

}  // namespace
}  // namespace csumtune::gen
