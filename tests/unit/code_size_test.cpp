// Code size as a second objective, without timing anything: the Pareto front, the best kernel
// within a limit, the smallest kernel of the space, --max-bytes on a replayed tune, and the
// size limits measured with the winner.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "csumtune/cpu.hpp"
#include "csumtune/gen/kernel_program.hpp"
#include "report/results_file.hpp"
#include "search/code_size_tradeoff.hpp"
#include "search/space.hpp"
#include "tune/replay_measurer.hpp"
#include "tune/tune.hpp"

namespace csumtune::tuner {
namespace {

Evaluation point(const char* params, std::size_t bytes, double score) {
  Evaluation e;
  e.params = gen::parseParams(params);
  e.bytes = bytes;
  e.score = score;
  e.baselinePerByte = 0.05;
  e.scorePerByte = score * 0.05;
  return e;
}

TEST(CodeSize, TheParetoFrontKeepsWhatNothingSmallerBeats) {
  std::vector<Evaluation> all{point("carry=adc,chains=1,unroll=1", 120, 1.5),
                              point("carry=adc,chains=2,unroll=2", 150, 1.6),
                              point("carry=adc,chains=2,unroll=4", 200, 1.2),
                              point("carry=adc,chains=4,unroll=8", 260, 1.2),
                              point("carry=adc,chains=4,unroll=16", 500, 0.7),
                              point("carry=adc,chains=4,unroll=12", 500, 0.8),
                              point("carry=adc,chains=6,unroll=30", 740, 0.66)};
  Evaluation wrong = point("carry=adc,chains=3,unroll=3", 100, 0.1);
  wrong.status = EvalStatus::Wrong;
  all.push_back(wrong);
  const auto front = paretoFront(all);
  std::vector<std::size_t> bytes;
  for (const auto& p : front) bytes.push_back(p.bytes);
  EXPECT_EQ(bytes, (std::vector<std::size_t>{120, 200, 500, 740}));
  EXPECT_EQ(front[2].params, gen::parseParams("carry=adc,chains=4,unroll=16"));  // the faster 500
  EXPECT_EQ(bestWithin(front, 499)->bytes, 200u);
  EXPECT_EQ(bestWithin(front, 500)->bytes, 500u);
  EXPECT_FALSE(bestWithin(front, 119).has_value());
}

TEST(CodeSize, NoKernelOfTheSpaceIsSmallerThanTheSmallest) {
  for (bool kernelSafe : {true, false}) {
    const SmallestKernel smallest = smallestKernel(kernelSafe);
    EXPECT_EQ(smallest.bytes, gen::KernelProgram(smallest.params).bytes().size());
    EXPECT_TRUE(!kernelSafe || gen::traitsOf(smallest.params.carry).kernelSafe());
    // Every loop shape with the default short path...
    for (const gen::Params& p : SearchSpace(kernelSafe).distinctKernels()) {
      if (p.prefetch > 64) continue;  // a prefetch is one instruction whatever its distance
      ASSERT_GE(gen::KernelProgram(p).bytes().size(), smallest.bytes) << p.toString();
    }
    // ...and every short-path variant of the small loops of every family.
    for (const gen::CarryTraits* traits : gen::allCarryTraits()) {
      if (kernelSafe && !traits->kernelSafe()) continue;
      for (int chains = 1; chains <= 4; ++chains) {
        const gen::Params loop{traits->carry, chains, chains, 0, gen::Hint::T0};
        if (!gen::validationError(loop).empty()) continue;
        for (const gen::Params& v : gen::frameVariants(loop, {40})) {
          ASSERT_GE(gen::KernelProgram(v).bytes().size(), smallest.bytes) << v.toString();
        }
      }
    }
  }
}

// A bowl over the kernel-safe loop shapes (no prefetch) whose best kernel is big: the code
// size is the kernel's real size.
std::vector<Evaluation> sizedBowl() {
  std::vector<Evaluation> table;
  for (const gen::Params& p : SearchSpace(true).distinctKernels()) {
    if (p.prefetch != 0 || p.carry != gen::Carry::Adc) continue;
    Evaluation e = point(p.toString().c_str(), gen::KernelProgram(p).bytes().size(), 0);
    e.score = 0.5 + 0.01 * std::abs(p.chains - 6) + 0.002 * std::abs(p.unroll - 30);
    e.scorePerByte = e.score * e.baselinePerByte;
    table.push_back(e);
  }
  return table;
}

TuneRun sizedRun() {
  TuneRun run;
  run.cpu = hostCpu();
  run.cpuKey = cpuKey(run.cpu);
  run.profile = *namedProfile("kernel");
  run.kernelSafe = true;
  run.search = {"exhaustive", 1, 0};
  run.budget = 1000000;
  return run;
}

TuneSettings noStages() {
  TuneSettings s;
  s.frameShapes = 0;
  s.polishShapes = 0;
  return s;
}

TEST(CodeSize, MaxBytesKeepsBiggerKernelsFromWinningButVerifiesThem) {
  const auto table = sizedBowl();
  ReplayMeasurer replay(table, 300);
  TuneRun run = sizedRun();
  run.measure.maxBytes = 300;
  TuneSettings settings = noStages();
  settings.sizeLimits.clear();
  tune(run, replay, settings);
  ASSERT_TRUE(run.complete());
  EXPECT_LE(run.finalists.front().bytes, 300u);
  std::size_t tooBig = 0;
  for (const Evaluation& e : run.evaluations) {
    if (e.status == EvalStatus::TooBig) {
      ++tooBig;
      EXPECT_GT(e.bytes, 300u);
      EXPECT_NE(e.message.find("over --max-bytes 300"), std::string::npos) << e.message;
      EXPECT_TRUE(std::isinf(e.score));
    } else {
      EXPECT_LE(e.bytes, 300u);
    }
  }
  EXPECT_GT(tooBig, 0u);
  // Without the limit the big optimum wins.
  ReplayMeasurer unlimited(table);
  TuneRun free = sizedRun();
  tune(free, unlimited, settings);
  EXPECT_EQ(free.finalists.front().params, gen::parseParams("carry=adc,chains=6,unroll=30"));
  EXPECT_GT(free.finalists.front().bytes, 300u);
  // The status and the sizes survive results.json.
  const auto json = toJson(run);
  EXPECT_EQ(json.at("search").at("too_big").get<std::size_t>(), tooBig);
  EXPECT_EQ(json.at("search").at("max_bytes").get<std::size_t>(), 300u);
  EXPECT_EQ(json.at("winner").at("bytes").get<std::size_t>(), run.finalists.front().bytes);
}

// The bowl again, each loop shape also in its compact frame (the word loop, no short path),
// a little slower than in its default frame and much smaller.
std::vector<Evaluation> sizedBowlWithCompactFrames() {
  std::vector<Evaluation> table = sizedBowl();
  const std::size_t loops = table.size();
  for (std::size_t i = 0; i < loops; ++i) {
    const gen::Params compact = gen::compactFrame(table[i].params);
    Evaluation e = point(compact.toString().c_str(), gen::KernelProgram(compact).bytes().size(), 0);
    e.score = table[i].score + 0.03;
    e.scorePerByte = e.score * e.baselinePerByte;
    table.push_back(e);
  }
  return table;
}

TEST(CodeSize, ALoopTooBigInItsDefaultFrameIsRankedByItsCompactFrame) {
  const gen::Params best = gen::parseParams("carry=adc,chains=6,unroll=30");
  const gen::Params compact = gen::compactFrame(best);
  EXPECT_EQ(compact.toString(),
            "carry=adc,chains=6,unroll=30,prefetch=0,hint=t0,short=0,words=loop");
  const std::size_t compactBytes = gen::KernelProgram(compact).bytes().size();
  const std::size_t defaultBytes = gen::KernelProgram(best).bytes().size();
  ASSERT_LT(compactBytes, defaultBytes);
  const std::size_t limit = compactBytes;  // the best loop fits only in its compact frame
  const auto table = sizedBowlWithCompactFrames();
  ReplayMeasurer replay(table, limit);
  TuneRun run = sizedRun();
  run.measure.maxBytes = limit;
  TuneSettings settings = noStages();
  settings.sizeLimits.clear();
  tune(run, replay, settings);
  ASSERT_TRUE(run.complete());
  // The search learnt the big loops fit compactly: the best loop's compact frame wins, and
  // its default frame is on record as too big.
  EXPECT_EQ(run.finalists.front().params, compact);
  EXPECT_LE(run.finalists.front().bytes, limit);
  const auto recorded = [&](const gen::Params& p) {
    return std::find_if(run.evaluations.begin(), run.evaluations.end(),
                        [&](const Evaluation& e) { return e.params == p; });
  };
  ASSERT_NE(recorded(best), run.evaluations.end());
  EXPECT_EQ(recorded(best)->status, EvalStatus::TooBig);
  EXPECT_EQ(recorded(compact)->status, EvalStatus::Ok);
  for (const Evaluation& e : run.evaluations) {
    if (e.status == EvalStatus::Ok) {
      EXPECT_LE(e.bytes, limit) << e.params.toString();
    }
  }
}

TEST(CodeSize, TheWinnerUnderEachLimitIsMeasuredWithTheWinner) {
  ReplayMeasurer replay(sizedBowl());
  TuneRun run = sizedRun();
  tune(run, replay, noStages());
  ASSERT_TRUE(run.complete());
  ASSERT_GE(run.sizeLimits.size(), 3u);
  EXPECT_EQ(run.sizeLimits.front().limit, 0u);  // the winner first
  EXPECT_EQ(run.sizeLimits.front().params, run.finalists.front().params);
  EXPECT_DOUBLE_EQ(run.sizeLimits.front().relative, 1.0);
  std::size_t previous = 0;
  for (std::size_t i = 1; i < run.sizeLimits.size(); ++i) {
    const SizeLimitResult& l = run.sizeLimits[i];
    EXPECT_GT(l.limit, previous);
    previous = l.limit;
    EXPECT_LE(l.bytes, l.limit);
    EXPECT_LT(l.limit, run.finalists.front().bytes);  // only limits the winner does not fit
    EXPECT_GT(l.relative, 0);
    EXPECT_LE(l.relative, 1.0);
    // The fastest evaluation within the limit (a replayed speedup is 1 / its score).
    ASSERT_GT(l.speedup.median, 0);
    for (const Evaluation& e : run.evaluations) {
      if (e.status == EvalStatus::Ok && e.bytes <= l.limit) {
        EXPECT_GE(e.score, 1 / l.speedup.median - 1e-12) << e.params.toString();
      }
    }
  }
  EXPECT_GT(run.smallestBytes, 0u);
  const auto json = toJson(run);
  EXPECT_EQ(json.at("code_size").at("limits").size(), run.sizeLimits.size());
  EXPECT_GE(json.at("code_size").at("pareto").size(), 5u);
}

}  // namespace
}  // namespace csumtune::tuner
