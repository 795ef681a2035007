// Whole tunes, end to end, on a replayed table (no timing): the search, the finalists, the
// winner's style and how a run ends; then results.json written by the writer and read back
// by every reader (Jit::load, best(), --resume, --replay, kmod --results).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "csumtune/cpu.hpp"
#include "csumtune/loader.hpp"
#include "csumtune/results/document.hpp"
#include "report/results_file.hpp"
#include "report/tune_report.hpp"
#include "search/space.hpp"
#include "source_file.hpp"
#include "tune/finalist_results.hpp"
#include "tune/guard_tally.hpp"
#include "tune/middle_path.hpp"
#include "tune/replay_measurer.hpp"
#include "tune/tune.hpp"

namespace csumtune::tuner {
namespace {

namespace fs = std::filesystem;

// A bowl over the space with its minimum at `best` (score 0.5); kernels of the `wrong`
// family are recorded as wrong. Only prefetch 0..256, to keep the table small.
std::vector<Evaluation> syntheticTable(const gen::Params& best, bool kernelSafe,
                                       std::optional<gen::Carry> wrong = std::nullopt) {
  std::vector<Evaluation> table;
  for (const gen::Params& p : SearchSpace(kernelSafe).distinctKernels()) {
    if (p.prefetch > 256) continue;
    Evaluation e;
    e.params = p;
    if (wrong && p.carry == *wrong) {
      e.status = EvalStatus::Wrong;
      e.message = "synthetic";
    } else {
      e.score = 0.5 + (p.carry == best.carry ? 0 : 0.2) + 0.01 * std::abs(p.chains - best.chains) +
                0.001 * std::abs(p.unroll - best.unroll) + 0.0001 * p.prefetch / 64;
      e.baselinePerByte = 0.05;
      e.scorePerByte = e.score * e.baselinePerByte;
      e.perCall = {e.scorePerByte * 40};
    }
    table.push_back(e);
  }
  return table;
}

TuneRun runFor(bool kernelSafe, std::size_t budget) {
  TuneRun run;
  run.created = "2026-11-30T00:00:00Z";
  run.host = "test";
  run.cpu = hostCpu();
  run.cpuKey = cpuKey(run.cpu);
  run.profile = *namedProfile("imix");
  run.kernelSafe = kernelSafe;
  run.search = {"exhaustive", 1, 0};
  run.budget = budget;
  run.baseline = "carry=adc,chains=2,unroll=10,prefetch=0,hint=t0";
  return run;
}

// A short kernel-safe tune (random search, budget 50, no frame stage) that `interrupted`
// can stop.
TuneRun tuneInterruptible(TuneMeasurer& measurer, const std::atomic<bool>& interrupted) {
  TuneRun run = runFor(true, 50);
  run.search.algorithm = "random";
  TuneSettings settings;
  settings.interrupted = &interrupted;
  settings.frameShapes = 0;
  tune(run, measurer, settings);
  return run;
}

TEST(Tune, FindsTheOptimumOfTheTableAndVerifiesIt) {
  const gen::Params best = gen::parseParams("carry=adc,chains=6,unroll=30");
  ReplayMeasurer replay(syntheticTable(best, true));
  TuneRun run = runFor(true, 1000000);
  TuneSettings settings;
  settings.frameShapes = 0;
  tune(run, replay, settings);
  ASSERT_EQ(run.end, TuneEnd::Complete) << run.failure;
  EXPECT_TRUE(run.complete());
  ASSERT_EQ(run.finalists.size(), 5u);
  EXPECT_EQ(run.finalists.front().params, best);
  EXPECT_EQ(run.finalists.front().params, replay.optimum()->params);
  EXPECT_DOUBLE_EQ(run.finalists.front().speedup.median, 2.0);
  EXPECT_EQ(run.style, SourceStyle::Kernel);
  EXPECT_EQ(run.uniqueThisRun, SearchSpace(true).distinctKernels().size());
}

// The frame stage measures every short-path variant of the best loop shapes (exact paths for
// the profile's lengths) on top of the budget, and a variant can win.
TEST(Tune, ThePolishStageMeasuresTheNeighboursOfTheBestLoopShapes) {
  // The search settled on chains=8,unroll=32 with prefetch (score 0.522); the table's best,
  // chains=6,unroll=30 without prefetch (0.5), is its neighbour on the lattice.
  const gen::Params best = gen::parseParams("carry=adc,chains=6,unroll=30");
  const gen::Params settled = gen::parseParams("carry=adc,chains=8,unroll=32,prefetch=192");
  const auto table = syntheticTable(best, true);
  ReplayMeasurer replay(table);
  TuneSettings settings;
  settings.frameShapes = 0;
  for (const Evaluation& e : table) {
    if (e.params == settled) settings.earlier.push_back(e);
  }
  ASSERT_EQ(settings.earlier.size(), 1u);
  TuneRun run = runFor(true, 1);
  tune(run, replay, settings);
  ASSERT_TRUE(run.complete());
  EXPECT_EQ(run.finalists.front().params, best);
  EXPECT_TRUE(std::any_of(run.phases.begin(), run.phases.end(), [](const std::string& p) {
    return p.rfind("polish: ", 0) == 0 && p.find("measured; done") != std::string::npos;
  }));

  settings.polishShapes = 0;
  ReplayMeasurer again(table);
  TuneRun unpolished = runFor(true, 1);
  tune(unpolished, again, settings);
  ASSERT_TRUE(unpolished.complete());
  EXPECT_EQ(unpolished.finalists.front().params, settled);
}

// The polish stage takes the best loop shape of every family too, not only the best three
// overall: a family whose search settled on a prefetch (here adcx, behind three adc shapes)
// gets its neighbour without one measured, and that neighbour can win.
TEST(Tune, ThePolishStageMeasuresTheNeighboursOfEachFamilysBestLoopShape) {
  const gen::Params fastest = gen::parseParams("carry=adcx,chains=6,unroll=30");
  const gen::Params settled = gen::parseParams("carry=adcx,chains=8,unroll=32,prefetch=192");
  std::vector<Evaluation> table =
      syntheticTable(gen::parseParams("carry=adc,chains=4,unroll=24"), true);
  TuneSettings settings;
  settings.frameShapes = 0;
  for (Evaluation& e : table) {
    if (e.params == fastest) e.score = 0.4;
    if (e.params == settled) e.score = 0.9;
    e.scorePerByte = e.score * e.baselinePerByte;
    for (const char* known : {"carry=adc,chains=4,unroll=24", "carry=adc,chains=4,unroll=16",
                              "carry=adc,chains=5,unroll=30"}) {
      if (e.params == gen::parseParams(known)) settings.earlier.push_back(e);
    }
    if (e.params == settled) settings.earlier.push_back(e);
  }
  ASSERT_EQ(settings.earlier.size(), 4u);
  ReplayMeasurer replay(table);
  TuneRun run = runFor(true, 1);
  tune(run, replay, settings);
  ASSERT_TRUE(run.complete());
  EXPECT_EQ(run.finalists.front().params, fastest)
      << "the best adcx shape's neighbour without prefetch was not measured";
}

// A loop shape is ranked with the default frame, which suits the families unequally: the best
// shape of a family close behind the best ones (here adcx, 10 % behind adc, with frame stage
// room for one shape only) gets the frame stage too, and its frame can win. A family far
// behind (add32) does not.
TEST(Tune, TheFrameStageTakesTheBestShapeOfEachFamilyCloseBehind) {
  const gen::Params first = gen::parseParams("carry=adc,chains=6,unroll=30");
  const gen::Params behind = gen::parseParams("carry=adcx,chains=6,unroll=30");
  std::vector<Evaluation> table = syntheticTable(first, true);
  for (Evaluation& e : table) {
    if (e.params == behind) e.score = 0.55;  // adc's best is 0.5, every other adcx 0.7 or more
  }
  gen::Params best = behind;
  best.exact = 40;
  best.sum = gen::SumEntry::Last;
  for (const gen::Params& loop :
       {first, behind, gen::parseParams("carry=add32,chains=6,unroll=30")}) {
    for (const gen::Params& v : gen::frameVariants(loop, {40, 576, 1500})) {
      if (v == loop) continue;
      Evaluation e = table.front();
      e.params = v;
      e.status = EvalStatus::Ok;
      e.score = v == best ? 0.4 : (v.carry == gen::Carry::Add32 ? 0.3 : 0.52);
      table.push_back(e);
    }
  }
  ReplayMeasurer replay(table);
  TuneRun run = runFor(true, SearchSpace(true).distinctKernels().size());
  TuneSettings settings;
  settings.frameShapes = 1;
  tune(run, replay, settings);
  ASSERT_EQ(run.end, TuneEnd::Complete) << run.failure;
  EXPECT_EQ(run.finalists.front().params, best) << run.finalists.front().params.toString();
  EXPECT_TRUE(std::none_of(run.evaluations.begin(), run.evaluations.end(), [](const Evaluation& e) {
    return e.params.carry == gen::Carry::Add32 && e.params.exact != 0;
  })) << "a family far behind got the frame stage";
}

TEST(Tune, TheFrameStageTriesShortPathsOfTheBestLoopShapes) {
  const gen::Params loop = gen::parseParams("carry=adc,chains=6,unroll=30");
  gen::Params best = loop;
  best.exact = 40;
  best.sum = gen::SumEntry::Last;
  std::vector<Evaluation> table = syntheticTable(loop, true);
  for (const gen::Params& v : gen::frameVariants(loop, {40, 576, 1500})) {
    if (v == loop) continue;
    Evaluation e = table.front();
    e.params = v;
    e.status = EvalStatus::Ok;
    e.score = v == best ? 0.45 : 0.55;
    table.push_back(e);
  }
  ReplayMeasurer replay(table);
  const std::size_t space = SearchSpace(true).distinctKernels().size();
  TuneRun run = runFor(true, space);
  TuneSettings settings;
  settings.frameShapes = 2;
  tune(run, replay, settings);
  ASSERT_EQ(run.end, TuneEnd::Complete) << run.failure;
  EXPECT_EQ(run.finalists.front().params, best) << run.finalists.front().params.toString();
  EXPECT_GT(run.uniqueThisRun, space) << "the frame stage comes on top of the budget";
  EXPECT_NE(run.phases.back().find("frames:"), std::string::npos) << run.phases.back();
}

// SIMD frames (issue 26): variants without a scalar short path are not offered (one that
// would measure best here is never measured), and the best SIMD frame gets its size classes,
// every middle path with every short bound below it.
TEST(Tune, SimdFramesKeepAShortPathAndTryTheSizeClasses) {
  const gen::Params loop = gen::parseParams("carry=avx2,chains=4,unroll=8");
  gen::Params best = loop;
  best.mid = 256;
  best = best.canonical();
  auto evaluation = [](const gen::Params& p, double score) {
    Evaluation e;
    e.params = p;
    e.status = EvalStatus::Ok;
    e.score = score;
    e.baselinePerByte = 0.05;
    e.scorePerByte = score * e.baselinePerByte;
    e.perCall = {e.scorePerByte * 40};
    return e;
  };
  std::vector<Evaluation> table{evaluation(loop, 0.5)};
  for (const gen::Params& v : gen::frameVariants(loop, {}, gen::FrameBounds::Both)) {
    if (v != loop) table.push_back(evaluation(v, v.hasShortPath() ? 0.55 : 0.3));
  }
  for (const gen::Params& v : gen::sizeClassVariants(loop))
    table.push_back(evaluation(v, v == best ? 0.4 : v.hasShortPath() ? 0.6 : 0.2));
  ReplayMeasurer replay(table);
  TuneRun run = runFor(false, 1);
  TuneSettings settings;
  settings.earlier = {table.front()};
  settings.polishShapes = 0;
  settings.frameShapes = 1;
  tune(run, replay, settings);
  ASSERT_EQ(run.end, TuneEnd::Complete) << run.failure;
  EXPECT_EQ(run.finalists.front().params, best) << run.finalists.front().params.toString();
  for (const Evaluation& e : run.evaluations) {
    if (gen::traitsOf(e.params.carry).isVector()) {
      EXPECT_TRUE(e.params.hasShortPath()) << e.params.toString() << " was offered";
    }
  }
  EXPECT_NE(run.phases.back().find("size classes: "), std::string::npos) << run.phases.back();
}

// The guard: the best candidate by the profile is slower than the reference at some length
// the profile does not weigh; it must not win while a guarded candidate is left.
TEST(Tune, TheGuardKeepsAKernelSlowerElsewhereFromWinning) {
  class SlowSomewhere : public ReplayMeasurer {
   public:
    using ReplayMeasurer::ReplayMeasurer;
    gen::Params slow;
    std::vector<GuardResult> guard(const std::vector<gen::Params>& candidates,
                                   const std::vector<int>& lengths) override {
      auto out = ReplayMeasurer::guard(candidates, lengths);
      for (auto& g : out) {
        g.worstRatio = g.params == slow ? 1.5 : 0.9;
        g.worstLength = lengths.front();
      }
      return out;
    }
  };
  const gen::Params best = gen::parseParams("carry=adc,chains=4,unroll=16");
  SlowSomewhere replay(syntheticTable(best, true));
  replay.slow = best;
  TuneRun run = runFor(true, 1000000);
  TuneSettings settings;
  settings.frameShapes = 0;
  tune(run, replay, settings);
  ASSERT_EQ(run.end, TuneEnd::Complete) << run.failure;
  EXPECT_NE(run.finalists.front().params, best) << "the unguarded optimum won";
  // The 24 best, then the best of each other carry family.
  ASSERT_EQ(run.guard.size(), guardCandidates(run.evaluations, settings.guardCandidates).size());
  ASSERT_GT(run.guard.size(), settings.guardCandidates);
  EXPECT_EQ(run.guard.front().params, best);
  EXPECT_FALSE(run.guard.front().eligible);
  EXPECT_TRUE(run.guard.back().eligible);
}

// A loss must show twice: the guard measures again the lengths where a candidate lost at no
// more than four, and rules it out only where the loss repeats. A candidate that lost at more
// is not measured again.
TEST(Tune, TheGuardMeasuresAFewLossesAgainAndCountsOnlyThoseThatRepeat) {
  class LosesOnce : public ReplayMeasurer {
   public:
    using ReplayMeasurer::ReplayMeasurer;
    gen::Params noise, slow, slowEverywhere;
    std::vector<std::vector<gen::Params>> asked;
    std::vector<std::vector<int>> askedLengths;
    std::vector<GuardResult> guard(const std::vector<gen::Params>& candidates,
                                   const std::vector<int>& lengths) override {
      const bool again = !asked.empty();
      asked.push_back(candidates);
      askedLengths.push_back(lengths);
      std::vector<GuardResult> out;
      for (const gen::Params& p : candidates) {
        GuardTally tally(p, CacheState::Hot);
        for (int length : lengths) {
          for (CacheState cache : {CacheState::Hot, CacheState::Cold}) {
            // noise: 1.20 cold at the first length, once; slow: 1.10 hot at the second,
            // every time; slowEverywhere: 1.10 cold at every length, every time.
            RatioEstimate r{0.95, 0.93, 0.97, 0.95};
            if (p == noise && !again && length == lengths.front() && cache == CacheState::Cold)
              r = {1.20, 1.15, 1.25, 0.95};
            if (p == slow && length == slowAt && cache == CacheState::Hot)
              r = {1.10, 1.09, 1.11, 0.95};
            if (p == slowEverywhere && cache == CacheState::Cold) r = {1.10, 1.08, 1.12, 0.95};
            tally.add(r, length, cache);
          }
        }
        out.push_back(tally.result());
      }
      return out;
    }
    int slowAt = 0;
  };
  const gen::Params best = gen::parseParams("carry=adc,chains=4,unroll=16");
  LosesOnce replay(syntheticTable(best, true));
  TuneRun run = runFor(true, 1000000);
  TuneSettings settings;
  settings.frameShapes = 0;
  ASSERT_GE(settings.guardLengths.size(), 5u);
  replay.slowAt = settings.guardLengths[1];
  const auto candidates = guardCandidates(syntheticTable(best, true), settings.guardCandidates);
  ASSERT_GE(candidates.size(), 4u);
  replay.noise = candidates[0].params;
  replay.slow = candidates[1].params;
  replay.slowEverywhere = candidates[2].params;
  tune(run, replay, settings);
  ASSERT_EQ(run.end, TuneEnd::Complete) << run.failure;
  const auto verdict = [&](const gen::Params& p) {
    const auto at = std::find_if(run.guard.begin(), run.guard.end(),
                                 [&](const GuardResult& g) { return g.params == p; });
    EXPECT_NE(at, run.guard.end()) << p.toString();
    return at == run.guard.end() ? GuardResult{} : *at;
  };
  const GuardResult noise = verdict(replay.noise);
  EXPECT_TRUE(noise.eligible) << "a loss measured once is not the code's";
  EXPECT_EQ(noise.lossesNotRepeated, 1);
  EXPECT_DOUBLE_EQ(noise.worstLow, 0.93);
  EXPECT_EQ(noise.surelySlower, 0);
  EXPECT_EQ(noise.points.size(), 2 * settings.guardLengths.size()) << "every length judged";
  const GuardResult slow = verdict(replay.slow);
  EXPECT_FALSE(slow.eligible) << "a loss that repeats counts";
  EXPECT_EQ(slow.lossesNotRepeated, 0);
  EXPECT_DOUBLE_EQ(slow.worstLow, 1.09);
  EXPECT_EQ(slow.surelySlower, 1);
  const GuardResult everywhere = verdict(replay.slowEverywhere);
  EXPECT_FALSE(everywhere.eligible);
  EXPECT_EQ(everywhere.lossesNotRepeated, 0);
  // The first call measured every candidate at every length; then each of the two with a few
  // losses alone, at the lengths where it lost.
  ASSERT_GE(replay.asked.size(), 3u);
  EXPECT_EQ(replay.askedLengths[0], settings.guardLengths);
  EXPECT_EQ(replay.asked[1], std::vector<gen::Params>{replay.noise});
  EXPECT_EQ(replay.askedLengths[1], std::vector<int>{settings.guardLengths.front()});
  EXPECT_EQ(replay.asked[2], std::vector<gen::Params>{replay.slow});
  EXPECT_EQ(replay.askedLengths[2], std::vector<int>{replay.slowAt});
  // results.json and report.md say what the second measurement changed.
  const auto json = toJson(run);
  EXPECT_EQ(json["guard"]["repeats_up_to"], settings.guardRepeatsUpTo);
  bool noiseRow = false;
  for (const auto& c : json["guard"]["candidates"]) {
    if (c["params"] != replay.noise.toString()) continue;
    noiseRow = true;
    EXPECT_EQ(c["losses_not_repeated"], 1);
    EXPECT_EQ(c["eligible"], true);
  }
  EXPECT_TRUE(noiseRow);
  for (const auto& r : json["guard"]["runoff"]) EXPECT_FALSE(r.contains("losses_not_repeated"));
  const std::string md = renderTuneReport(run, {});
  EXPECT_NE(md.find("| excess | not repeated | guarded |"), std::string::npos);
  EXPECT_NE(md.find(fmt::format("| `{}` | ", replay.noise.toString())), std::string::npos);
  for (const GuardResult& g : run.guard) {
    if (g.params != replay.slow && g.params != replay.slowEverywhere) {
      EXPECT_TRUE(g.eligible) << g.params.toString();
    }
  }
}

// No candidate passes the guard: the finalists are the ones that lose least (smallest worst
// ratio), so the profile's best, which loses most at a length it does not weigh, is not one.
TEST(Tune, WhenNoCandidatePassesTheGuardTheLeastLosingAreTheFinalists) {
  class SlowEverywhere : public ReplayMeasurer {
   public:
    using ReplayMeasurer::ReplayMeasurer;
    gen::Params worst;
    std::vector<GuardResult> guard(const std::vector<gen::Params>& candidates,
                                   const std::vector<int>& lengths) override {
      auto out = ReplayMeasurer::guard(candidates, lengths);
      // Every one loses somewhere; the later a candidate in the profile's order, the less.
      for (std::size_t i = 0; i < out.size(); ++i) {
        out[i].worstRatio = out[i].params == worst ? 1.9 : 1.5 - 0.01 * static_cast<double>(i);
        out[i].worstLength = lengths.front();
      }
      return out;
    }
  };
  const gen::Params best = gen::parseParams("carry=adc,chains=4,unroll=16");
  SlowEverywhere replay(syntheticTable(best, true));
  replay.worst = best;
  TuneRun run = runFor(true, 1000000);
  TuneSettings settings;
  settings.frameShapes = 0;
  tune(run, replay, settings);
  ASSERT_EQ(run.end, TuneEnd::Complete) << run.failure;
  ASSERT_EQ(run.guard.size(), guardCandidates(run.evaluations, settings.guardCandidates).size());
  ASSERT_GT(run.guard.size(), settings.guardCandidates);
  EXPECT_TRUE(std::none_of(run.guard.begin(), run.guard.end(),
                           [](const GuardResult& g) { return g.eligible; }));
  // The finalists are the last ones guarded (the least losing), the profile's best is not.
  ASSERT_EQ(run.finalists.size(), settings.finalists);
  for (const FinalistResult& f : run.finalists) {
    EXPECT_NE(f.params, best);
    const auto at = std::find_if(run.guard.begin(), run.guard.end(),
                                 [&](const GuardResult& g) { return g.params == f.params; });
    ASSERT_NE(at, run.guard.end());
    EXPECT_GE(at - run.guard.begin(),
              static_cast<std::ptrdiff_t>(run.guard.size() - settings.finalists))
        << f.params.toString() << " is not among the least losing";
  }
}

// Ctrl-C or SIGTERM while the finalists are measured: the run ends at the phase's end as
// interrupted (resumable), not complete.
TEST(Tune, AnInterruptDuringTheFinalistsEndsTheRun) {
  class InterruptedHere : public ReplayMeasurer {
   public:
    using ReplayMeasurer::ReplayMeasurer;
    std::atomic<bool>* flag = nullptr;
    std::vector<FinalistResult> remeasureFinalists(const std::vector<Evaluation>& f) override {
      flag->store(true);
      return ReplayMeasurer::remeasureFinalists(f);
    }
  };
  std::atomic<bool> interrupted{false};
  InterruptedHere replay(syntheticTable(gen::parseParams("carry=adc,chains=4,unroll=16"), true));
  replay.flag = &interrupted;
  const TuneRun run = tuneInterruptible(replay, interrupted);
  EXPECT_EQ(run.end, TuneEnd::Interrupted);
  EXPECT_TRUE(run.sweep.empty()) << "the sweep ran after the interrupt";
}

// An interrupt in the middle of a measuring phase (here the sweep) ends the run at once.
TEST(Tune, AnInterruptWithinAPhaseEndsTheRunThere) {
  class StopsInTheSweep : public ReplayMeasurer {
   public:
    using ReplayMeasurer::ReplayMeasurer;
    std::atomic<bool>* flag = nullptr;
    std::vector<SweepPoint> sweep(const gen::Params&) override {
      flag->store(true);
      throwIfInterrupted();  // what the host measurer's phases do between samples
      return {{8, CacheState::Hot, 1, 1, {}}};
    }
  };
  std::atomic<bool> interrupted{false};
  StopsInTheSweep replay(syntheticTable(gen::parseParams("carry=adc,chains=4,unroll=16"), true));
  replay.flag = &interrupted;
  const TuneRun run = tuneInterruptible(replay, interrupted);
  EXPECT_EQ(run.end, TuneEnd::Interrupted);
  EXPECT_TRUE(run.sweep.empty());
  EXPECT_FALSE(run.evaluations.empty()) << "the search's evaluations are kept for --resume";
}

// The stages after the search (polish, frames, finalists) start from a kernel's loop: avx2's
// keeps its vector sum, or a madd winner's frames would be measured on the halves loop.
TEST(Tune, ALoopKeepsItsVectorSum) {
  const gen::Params madd = gen::parseParams(
      "carry=avx2,chains=2,unroll=8,prefetch=512,tail=overlap,short=128,vsum=madd");
  EXPECT_EQ(loopOf(madd).vsum, gen::VectorSum::Madd);
  EXPECT_EQ(loopOf(madd).tail, gen::Tail{});
  EXPECT_EQ(loopOf(gen::parseParams("carry=avx2,chains=2,unroll=8")).vsum, gen::VectorSum::Halves);
}

TEST(Tune, ASimdWinnerComesOutInGasStyleWhateverWasAsked) {
  const gen::Params best = gen::parseParams("carry=avx2,chains=2,unroll=8,vsum=madd");
  ReplayMeasurer replay(syntheticTable(best, false));
  TuneRun run = runFor(false, 1000000);
  TuneSettings settings;
  settings.style = SourceStyle::Kernel;
  settings.finalists = 2;
  settings.frameShapes = 0;
  tune(run, replay, settings);
  ASSERT_EQ(run.end, TuneEnd::Complete) << run.failure;
  EXPECT_EQ(run.finalists.front().params, best);
  EXPECT_EQ(run.finalists.size(), 2u);
  EXPECT_EQ(run.style, SourceStyle::Gas);
}

TEST(Tune, EndsWithoutAWinnerWhenInterruptedOrNothingIsCorrect) {
  const gen::Params best = gen::parseParams("carry=adc,chains=4,unroll=16");
  std::atomic<bool> interrupted{true};
  ReplayMeasurer replay(syntheticTable(best, true));
  TuneRun stopped = runFor(true, 100);
  TuneSettings settings;
  settings.interrupted = &interrupted;
  tune(stopped, replay, settings);
  EXPECT_EQ(stopped.end, TuneEnd::Interrupted);
  EXPECT_TRUE(stopped.finalists.empty());

  // Only adc in a one-family table, all wrong: nothing may win.
  std::vector<Evaluation> allWrong;
  for (Evaluation e : syntheticTable(best, true, gen::Carry::Adc))
    if (e.params.carry == gen::Carry::Adc) allWrong.push_back(e);
  ReplayMeasurer wrongOnly(allWrong);
  TuneRun none = runFor(true, 50);
  none.search.algorithm = "random";
  tune(none, wrongOnly, {});
  EXPECT_EQ(none.end, TuneEnd::NoCorrectCandidate);
  EXPECT_TRUE(none.finalists.empty());
  EXPECT_FALSE(none.failure.empty());
}

class ResultsRoundTrip : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("csumtune-roundtrip-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    // best()'s user results directory: the test's own, empty (not ~/.local/share/csumtune).
    if (const char* xdg = std::getenv("XDG_DATA_HOME")) savedXdg_ = xdg;
    setenv("XDG_DATA_HOME", (dir_ / "xdg").c_str(), 1);
  }
  void TearDown() override {
    detail::setInstalledResultsForTesting(std::nullopt);
    unsetenv("CSUMTUNE_RESULTS");
    if (savedXdg_)
      setenv("XDG_DATA_HOME", savedXdg_->c_str(), 1);
    else
      unsetenv("XDG_DATA_HOME");
    fs::remove_all(dir_);
  }
  std::optional<std::string> savedXdg_;
  // The run's folder as `tune` writes it: results.json, and winner.S when the run finished.
  std::string write(const TuneRun& run, const std::string& relative) {
    const fs::path path = dir_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << toJson(run).dump(1);
    if (run.complete()) {
      std::ofstream(path.parent_path() / "winner.S")
          << renderSource({.params = run.finalists.front().params, .style = SourceStyle::Gas});
    }
    return path.string();
  }
  fs::path dir_;
};

TEST_F(ResultsRoundTrip, EveryReaderReadsWhatTheWriterWrote) {
  const gen::Params best = gen::parseParams("carry=adc,chains=3,unroll=9");
  ReplayMeasurer replay(syntheticTable(best, true));
  TuneRun run = runFor(true, 1000000);
  tune(run, replay, {});
  ASSERT_TRUE(run.complete());
  const std::string folder = results::runFolderName(run.profile.name, false, run.kernelSafe);
  const std::string path = write(run, run.cpuKey + "/" + folder + "/results.json");

  // The shared header, as every reader sees it.
  const auto header = results::readHeader(results::readDocument(path, "test"), path, "test");
  EXPECT_EQ(header.cpuKey, run.cpuKey);
  EXPECT_EQ(header.profile, "imix");
  EXPECT_EQ(results::profileSpec(header.sizes), run.profile.spec());
  EXPECT_EQ(header.cache, "hot");
  EXPECT_TRUE(header.kernelSafe);
  EXPECT_TRUE(header.complete);
  EXPECT_EQ(header.winnerParams, best.toString());

  // Jit::load and best() (runtime).
  EXPECT_EQ(Jit::load(path).kernel.params(), best);
  detail::setInstalledResultsForTesting("");
  setenv("CSUMTUNE_RESULTS", dir_.c_str(), 1);
  const LoadedKernel chosen = csumtune::best();
  EXPECT_EQ(chosen.kernel.params(), best) << chosen.origin;
  // kmod --results, --replay, --resume (tuner).
  EXPECT_EQ(readWinnerParams(path), best);
  EXPECT_EQ(readEvaluations(path).size(), run.evaluations.size());
  EXPECT_EQ(readEvaluationsForResume(path, run).size(), run.evaluations.size());
  TuneRun other = run;
  other.profile = *namedProfile("mtu");
  EXPECT_THROW(readEvaluationsForResume(path, other), Error);
  other = run;
  other.kernelSafe = false;
  EXPECT_THROW(readEvaluationsForResume(path, other), Error);
}

TEST_F(ResultsRoundTrip, BestPrefersARunOnAQuietMachineAndSaysWhenARunWasBusy) {
  const gen::Params quietWinner = gen::parseParams("carry=adc,chains=3,unroll=9");
  const gen::Params busyWinner = gen::parseParams("carry=adc,chains=4,unroll=16");
  auto tuned = [&](const gen::Params& best, bool busy) {
    ReplayMeasurer replay(syntheticTable(best, true));
    TuneRun run = runFor(true, 1000000);
    tune(run, replay, {});
    // What a contention monitor records (tune() on a replayed table has none).
    PhaseContention search;
    search.name = "search";
    search.measurements = 100;
    search.disturbed = busy ? 40 : 0;
    search.keptSeconds = 10;
    search.disturbedSeconds = busy ? 4 : 0;
    run.contention.phases = {search};
    run.contention.probes = {{"before search", {1000, 3000}, 0, 0, 1}};
    return run;
  };
  const TuneRun busy = tuned(busyWinner, true), quiet = tuned(quietWinner, false);
  const std::string folder = results::runFolderName("imix", false, true);
  // The busy run comes first by path in one directory: it still loses.
  const std::string busyPath = write(busy, "a/" + busy.cpuKey + "/a-" + folder + "/results.json");
  write(quiet, "a/" + quiet.cpuKey + "/" + folder + "/results.json");

  const auto header =
      results::readHeader(results::readDocument(busyPath, "test"), busyPath, "test");
  EXPECT_TRUE(header.disturbed);
  EXPECT_NE(header.contentionSummary.find("busy during 40 % of the search"), std::string::npos)
      << header.contentionSummary;
  const LoadedKernel loaded = Jit::load(busyPath);
  EXPECT_NE(loaded.origin.find("winner may differ in a quiet period"), std::string::npos)
      << loaded.origin;

  detail::setInstalledResultsForTesting("");
  setenv("CSUMTUNE_RESULTS", (dir_ / "a").string().c_str(), 1);
  const LoadedKernel chosen = csumtune::best();
  EXPECT_EQ(chosen.kernel.params(), quietWinner) << chosen.origin;
  EXPECT_EQ(chosen.origin.find("busy"), std::string::npos) << chosen.origin;
  fs::remove_all(dir_ / "a" / quiet.cpuKey / folder);
  // With only the busy run, best() takes it and says so.
  setenv("CSUMTUNE_RESULTS", (dir_ / "a").string().c_str(), 1);
  const LoadedKernel onlyBusy = csumtune::best();
  EXPECT_EQ(onlyBusy.kernel.params(), busyWinner);
  EXPECT_NE(onlyBusy.origin.find("busy during 40 %"), std::string::npos) << onlyBusy.origin;
}

TEST_F(ResultsRoundTrip, AnUnfinishedRunHasNoWinnerForAnyReader) {
  TuneRun run = runFor(true, 10);
  run.evaluations = syntheticTable(gen::Params{}, true);
  run.evaluations.resize(3);
  const std::string path = write(run, "unfinished/results.json");
  EXPECT_THROW(Jit::load(path), Error);
  EXPECT_THROW(readWinnerParams(path), Error);
  EXPECT_EQ(readEvaluationsForResume(path, run).size(), 3u);
}

// SIGINT after the finalists (or a winner that failed the full plan) once wrote a complete:
// false file with a full winner, and load() used it: an unfinished run's winner is null.
TEST_F(ResultsRoundTrip, ARunInterruptedAfterTheFinalistsWritesNoWinner) {
  const gen::Params best = gen::parseParams("carry=adc,chains=3,unroll=9");
  ReplayMeasurer replay(syntheticTable(best, true));
  TuneRun finished = runFor(true, 1000000);
  tune(finished, replay, {});
  ASSERT_TRUE(finished.complete());
  for (const TuneEnd end : {TuneEnd::Interrupted, TuneEnd::WinnerFailedFullPlan}) {
    TuneRun run = finished;  // the finalists measured, then the end
    run.end = end;
    if (end == TuneEnd::WinnerFailedFullPlan) run.failure = "the winner failed the full plan";
    ASSERT_FALSE(run.finalists.empty());
    const nlohmann::json document = toJson(run);
    EXPECT_FALSE(document.at("complete").get<bool>());
    EXPECT_TRUE(document.at("winner").is_null()) << document.at("winner").dump();
    // Even beside a winner.S of its would-be winner, no reader takes it.
    const std::string path = write(run, "unfinished/results.json");
    std::ofstream(dir_ / "unfinished" / "winner.S")
        << renderSource({.params = best, .style = SourceStyle::Gas});
    EXPECT_THROW(Jit::load(path), Error);
    try {
      readWinnerParams(path);
      ADD_FAILURE() << "kmod --results took an unfinished run's winner";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("complete: false"), std::string::npos) << e.what();
    }
    EXPECT_EQ(readEvaluationsForResume(path, run).size(), run.evaluations.size());
    EXPECT_NE(renderTuneReport(run, {}).find("**No winner**"), std::string::npos);
    EXPECT_EQ(renderTuneReport(run, {}).find("## Winner"), std::string::npos);
  }
}

// No candidate passes, and the one with the smallest worst ratio loses at every length while
// another loses more at one (noisy) length only: the finalists are ranked by the summed
// excess, so the one that loses little everywhere else comes first.
TEST(Tune, WhenNoneIsGuardedTheSummedExcessRanksTheLeastLosing) {
  class OneLoud : public ReplayMeasurer {
   public:
    using ReplayMeasurer::ReplayMeasurer;
    std::vector<GuardResult> guard(const std::vector<gen::Params>& candidates,
                                   const std::vector<int>& lengths) override {
      auto out = ReplayMeasurer::guard(candidates, lengths);
      const double n = static_cast<double>(lengths.size());
      for (std::size_t i = 0; i < out.size(); ++i) {
        // Candidate i: 1.05 slower everywhere (excess 0.05 n), but the last: 1.30 at one
        // length and even elsewhere (excess 0.30).
        const bool last = i + 1 == out.size();
        out[i].worstRatio = last ? 1.30 : 1.05;
        out[i].excess = last ? 0.30 : 0.05 * n;
        out[i].worstLength = lengths.front();
      }
      return out;
    }
  };
  const gen::Params best = gen::parseParams("carry=adc,chains=4,unroll=16");
  OneLoud replay(syntheticTable(best, true));
  TuneRun run = runFor(true, 1000000);
  TuneSettings settings;
  settings.frameShapes = 0;
  tune(run, replay, settings);
  ASSERT_EQ(run.end, TuneEnd::Complete) << run.failure;
  ASSERT_FALSE(run.guard.empty());
  const gen::Params quiet = run.guard.back().params;
  EXPECT_TRUE(std::any_of(run.finalists.begin(), run.finalists.end(), [&](const FinalistResult& f) {
    return f.params == quiet;
  })) << "the candidate that loses least in sum is not a finalist";
}

// An evaluation the guard's candidate lists are made from: the params and a search score.
Evaluation eval(const std::string& params, double score) {
  Evaluation e;
  e.params = gen::parseParams(params);
  e.score = score;
  return e;
}

// The guard sees every per-call form of the best loop shape, not only the profile's top
// candidates: here the top two are one form, and the best of two other forms of that loop
// ranks behind a kernel of another loop shape, whose own forms stay out.
TEST(Tune, TheGuardTakesTheBestOfEachPerCallFormOfTheBestLoopShape) {
  const char* loop = "carry=adc,chains=4,unroll=16,tail=overlap,short=128";
  const std::vector<Evaluation> all{
      eval("carry=adc,chains=4,unroll=16,tail=overlap,short=128,entry=lean", 0.50),
      eval("carry=adc,chains=4,unroll=16,tail=overlap,short=256,entry=lean", 0.51),
      eval("carry=adc,chains=2,unroll=8,tail=overlap,short=128,entry=forty", 0.52),
      eval("carry=adc,chains=4,unroll=16,tail=overlap,short=128,entry=forty", 0.60),
      eval("carry=adc,chains=4,unroll=16,tail=overlap,short=256,entry=forty", 0.61),
      eval("carry=adc,chains=4,unroll=16,tail=overlap,short=128,entry=forty,sum=last", 0.70),
      eval(loop, 0.80),
  };
  const auto picked = guardCandidates(all, 2);
  std::vector<std::string> names;
  for (const Evaluation& e : picked) names.push_back(e.params.toString());
  // The forms first; then all[4], the best forty entry with short=256 (a size class of its
  // own under that entry); all[2]'s loop shape stays out.
  const std::vector<std::string> expected{all[0].params.toString(), all[1].params.toString(),
                                          all[3].params.toString(), all[5].params.toString(),
                                          all[6].params.toString(), all[4].params.toString()};
  EXPECT_EQ(names, expected);
  // With room for all, nothing is listed twice.
  EXPECT_EQ(guardCandidates(all, all.size()).size(), all.size());
  EXPECT_TRUE(guardCandidates({}, 24).empty());
}

// The guard sees every size class (short and middle bounds) of the best loop shape too: a
// middle path changes nothing at the profile's lengths, so its kernels rank by noise behind
// the best frame; here the best of each class is taken, the second best of a class is not,
// and another loop shape's middle path stays out. Last comes the best of another carry family.
TEST(Tune, TheGuardTakesTheBestOfEachSizeClassOfTheBestLoopShape) {
  const char* frame = "carry=avx512,chains=4,unroll=16,tail=overlap,sum=last,entry=lean";
  const auto with = [&](const char* keys) { return std::string(frame) + "," + keys; };
  const std::vector<Evaluation> all{
      eval(frame, 0.40),
      eval(with("short=128"), 0.41),
      eval("carry=avx512,chains=2,unroll=8,tail=overlap,sum=last,entry=lean,mid=512", 0.42),
      eval(with("mid=512"), 0.43),
      eval(with("mid=512,exact=40"), 0.435),
      eval("carry=avx512,chains=4,unroll=16,tail=overlap,sum=last,entry=range,mid=512", 0.44),
      eval(with("mid=256,short=128"), 0.45),
      eval(with("mid=256,short=128,tailchains=1"), 0.46),
      eval("carry=avx512vnni,chains=4,unroll=24", 0.70),
      eval("carry=avx512vnni,chains=4,unroll=32", 0.71),
  };
  const auto picked = guardCandidates(all, 2);
  std::vector<std::string> names;
  for (const Evaluation& e : picked) names.push_back(e.params.toString());
  // all[5] enters by range: a per-call form of its own, so it comes first of the additions;
  // all[4] shares all[3]'s form and size class and ranks behind it, so it stays out.
  const std::vector<std::string> expected{all[0].params.toString(), all[1].params.toString(),
                                          all[5].params.toString(), all[7].params.toString(),
                                          all[3].params.toString(), all[6].params.toString(),
                                          all[8].params.toString()};
  EXPECT_EQ(names, expected) << "then the best of each other carry family, and only its best";
}

// And each way the best loop shape loads its last bytes (bounds, byteload): the profile has no
// length under 8, so its ranking of them is noise; the best of each is guarded.
TEST(Tune, TheGuardTakesTheBestOfEachByteLoadOfTheBestLoopShape) {
  const char* frame = "carry=adc,chains=4,unroll=16,tail=overlap,sum=last,entry=forty,short=128";
  const auto with = [&](const char* keys) { return std::string(frame) + "," + keys; };
  const std::vector<Evaluation> all{
      eval(frame, 0.50),
      eval(with("bounds=aligned"), 0.501),
      eval(with("bounds=aligned,tailchains=1"), 0.502),
      eval("carry=adc,chains=2,unroll=8,tail=overlap,bounds=aligned,byteload=pointer", 0.503),
      eval(with("bounds=aligned,byteload=pointer,tailchains=1"), 0.504),
      eval(with("bounds=aligned,byteload=pointer"), 0.505),
  };
  const auto picked = guardCandidates(all, 1);
  std::vector<std::string> names;
  for (const Evaluation& e : picked) names.push_back(e.params.toString());
  // all[2] is a per-call form of its own (one tail chain); all[1] and all[4] are the best
  // aligned forms; all[5] ranks behind all[4] and all[3] is another loop shape: both stay out.
  const std::vector<std::string> expected{all[0].params.toString(), all[2].params.toString(),
                                          all[1].params.toString(), all[4].params.toString()};
  EXPECT_EQ(names, expected);
}

// An exact path is a bet on one profile length, which ranks it first in its per-call form;
// the guard's other lengths pay its compare. So each form's best without an exact path is
// guarded too (last, after the byte loads), and a form whose best has none adds nothing.
TEST(Tune, TheGuardTakesTheBestOfEachPerCallFormWithoutAnExactPathToo) {
  const char* frame = "carry=adc,chains=4,unroll=16,tail=overlap,entry=forty,short=128";
  const auto with = [&](const char* keys) { return std::string(frame) + "," + keys; };
  const std::vector<Evaluation> all{
      eval(with("exact=20"), 0.50),
      eval(with("exact=64"), 0.501),
      eval(frame, 0.502),
      eval(with("sum=last"), 0.503),
      eval(with("sum=last,exact=20"), 0.504),
      eval("carry=adc,chains=2,unroll=8,tail=overlap,entry=forty,short=128", 0.505),
  };
  const auto picked = guardCandidates(all, 1);
  std::vector<std::string> names;
  for (const Evaluation& e : picked) names.push_back(e.params.toString());
  // all[0] is the best of the sum=first form, all[3] of the sum=last one (and the best of
  // its own form without an exact path); all[2] is sum=first's best without one. all[1],
  // all[4] and the other loop shape stay out.
  const std::vector<std::string> expected{all[0].params.toString(), all[3].params.toString(),
                                          all[2].params.toString()};
  EXPECT_EQ(names, expected);
}

// The profile cannot tell the first three finalists apart (their intervals overlap): they
// are measured again together at the guard lengths, and the one that loses least there wins,
// not the profile's first; the two it tells apart stay out. The guard's own excess counts as
// much as the runoff's: one noisy measurement does not decide alone. When none surely loses
// more than the others (every excess within the slack of the least), the one fastest per
// call wins, whatever its worst median.
// Finalists the profile tells apart keep its order, with no runoff. When none passed the guard,
// an interval up to 3 % below the first's counts as a tie.
TEST(Tune, FinalistsTheProfileCannotTellApartGoToARunoffAtTheGuardLengths) {
  enum class Case { Tied, GuardOutweighs, NoSureLoss, Apart, NoneGuarded };
  class Tied : public ReplayMeasurer {
   public:
    using ReplayMeasurer::ReplayMeasurer;
    Case scenario = Case::Tied;
    gen::Params best;
    std::vector<gen::Params> ranOff;
    double guardExcessOf(const gen::Params& p) const {
      return scenario == Case::GuardOutweighs && !(p == best) ? 3.0 : 0.0;
    }
    std::vector<GuardResult> guard(const std::vector<gen::Params>& candidates,
                                   const std::vector<int>& lengths) override {
      auto out = ReplayMeasurer::guard(candidates, lengths);
      for (GuardResult& g : out) {
        g.excess = guardExcessOf(g.params);
        if (scenario == Case::NoneGuarded) g.worstLow = 1.5;  // each loses somewhere
      }
      return out;
    }
    std::vector<FinalistResult> remeasureFinalists(const std::vector<Evaluation>& f) override {
      auto out = ReplayMeasurer::remeasureFinalists(f);
      for (std::size_t i = 0; i < out.size(); ++i) {
        // 2.00, 1.99, 1.98 overlap (+-0.05); 1.80 and 1.79 do not overlap the first.
        const double step = scenario == Case::Apart ? 0.2 : 0.01;
        double median = 2.0 - step * static_cast<double>(i) - (i >= 3 ? 0.17 : 0.0);
        double half = 0.05;
        if (scenario == Case::NoneGuarded) {
          // 2.00 +- 0.01; 1.95 and 1.94 lie apart but within 3 % below it; 1.80 and 1.79 not.
          median =
              2.0 - (i >= 1 ? 0.04 : 0.0) - 0.01 * static_cast<double>(i) - (i >= 3 ? 0.13 : 0.0);
          half = 0.01;
        }
        out[i].speedup = {median, median - half, median + half};
      }
      return out;
    }
    std::vector<GuardResult> guardTogether(const std::vector<gen::Params>& candidates,
                                           const std::vector<int>& lengths) override {
      ranOff = candidates;
      auto out = ReplayMeasurer::guardTogether(candidates, lengths);
      // Measured together, the last one loses least; its larger worst ratio does not count
      // before the excess.
      for (std::size_t i = 0; i < out.size(); ++i) {
        const bool last = i + 1 == out.size();
        out[i].excess = last ? 0.1 : 0.5;
        out[i].worstRatio = last ? 1.2 : 1.1;
        if (scenario == Case::NoSureLoss) {
          // The second is fastest per call; its worst median, noise, is the highest.
          out[i].excess = i == 1 ? 0.05 : 0.0;  // within the slack: a tie
          out[i].meanRatio = i == 1 ? 0.8 : 0.9;
          out[i].worstRatio = i == 1 ? 1.3 : 1.1;
        }
      }
      return out;
    }
  };
  const gen::Params best = gen::parseParams("carry=adc,chains=4,unroll=16");
  for (const Case scenario :
       {Case::Tied, Case::GuardOutweighs, Case::NoSureLoss, Case::Apart, Case::NoneGuarded}) {
    Tied replay(syntheticTable(best, true));
    replay.scenario = scenario;
    replay.best = best;
    TuneRun run = runFor(true, 1000000);
    TuneSettings settings;
    settings.frameShapes = 0;
    tune(run, replay, settings);
    ASSERT_EQ(run.end, TuneEnd::Complete) << run.failure;
    ASSERT_EQ(run.finalists.size(), settings.finalists);
    if (scenario == Case::Apart) {
      EXPECT_TRUE(replay.ranOff.empty()) << "finalists the profile tells apart went to a runoff";
      EXPECT_TRUE(run.runoff.empty());
      EXPECT_EQ(run.finalists.front().params, best) << "the profile's first lost its place";
      continue;
    }
    // (With none guarded, within 3 % below the first's interval counts as overlapping.)
    ASSERT_EQ(replay.ranOff.size(), 3u) << "only the three whose intervals overlap the first's";
    ASSERT_EQ(run.runoff.size(), 3u);
    EXPECT_EQ(replay.ranOff.front(), best);
    if (scenario == Case::GuardOutweighs) {
      EXPECT_EQ(run.finalists.front().params, best)
          << "the runoff alone decided against the guard's measurement";
      continue;
    }
    if (scenario == Case::NoSureLoss) {
      EXPECT_EQ(run.finalists.front().params, replay.ranOff[1])
          << "with no sure loss anywhere, the fastest per call did not win";
      continue;
    }
    EXPECT_EQ(run.finalists.front().params, replay.ranOff.back())
        << "the finalist that loses least at the guard lengths is not the winner";
    EXPECT_EQ(run.finalists[1].params, best) << "the others keep their order";
  }
}

// A SIMD winner's middle bound is decided per call, as the profile (imix: nothing between 41
// and 575 bytes) cannot: the winner with each middle bound is measured together at the guard
// lengths, and the one fastest there goes first unless it loses more there, fails the guard
// the winner passed, is faster by less than the margin, or is slower on the profile. The
// winner it replaces stays behind it, every figure is the stage's. A kernel-safe winner has no
// middle path, and a measurer without timing keeps the winner as it is.
TEST(Tune, ASimdWinnersMiddlePathIsDecidedPerCallAtTheGuardLengths) {
  class Middle : public ReplayMeasurer {
   public:
    using ReplayMeasurer::ReplayMeasurer;
    bool timed = true;
    int fastMid = 256;
    double fastMean = 0.8;     // the others' is about 0.9
    double fastExcess = 0.25;  // the others' is 0.2
    double fastWorst = 1.01;   // the others' too
    bool slowerOnTheProfile = false;
    std::vector<gen::Params> together;  // the middle stage's candidates
    std::vector<int> lengthsGiven;      // and the lengths it measured them at
    Evaluation measure(const gen::Params& p) override {
      Evaluation e = ReplayMeasurer::measure(p);
      if (e.status == EvalStatus::Refused && p.mid != 0) {  // the table has no middle paths
        gen::Params without = p;
        without.mid = 0;
        e = ReplayMeasurer::measure(without.canonical());
        e.params = p;
        e.score *= 1 + 0.01 * p.mid / 128;  // each its own figures
        e.scorePerByte = e.score * e.baselinePerByte;
      }
      return e;
    }
    std::vector<GuardResult> guardTogether(const std::vector<gen::Params>& candidates,
                                           const std::vector<int>& lengths) override {
      auto out = ReplayMeasurer::guardTogether(candidates, lengths);
      const bool middleOnly = std::all_of(candidates.begin(), candidates.end(), [&](auto p) {
        p.mid = candidates.front().mid;
        return p == candidates.front();
      });
      if (!middleOnly || !timed) return out;
      together = candidates;
      lengthsGiven = lengths;
      for (GuardResult& g : out) {
        const bool fast = g.params.mid == fastMid;
        g.meanRatio = fast ? fastMean : 0.9 + 0.001 * g.params.mid / 128;
        g.excess = fast ? fastExcess : 0.2;
        g.worstRatio = fast ? fastWorst : 1.01;
      }
      return out;
    }
    std::vector<FinalistResult> remeasureFinalists(const std::vector<Evaluation>& f) override {
      auto out = ReplayMeasurer::remeasureFinalists(f);
      for (FinalistResult& r : out) {
        // Overlapping intervals, each bound its own median; much slower for `slower...`.
        const double m =
            r.speedup.median *
            (r.params.mid == fastMid && slowerOnTheProfile ? 0.8 : 1 + 0.001 * r.params.mid / 128);
        r.speedup = {m, m - 0.05, m + 0.05, 0.95};
      }
      return out;
    }
  };
  const gen::Params best = gen::parseParams("carry=avx2,chains=2,unroll=8,vsum=madd");
  const auto table = syntheticTable(best, false);
  struct Case {
    const char* what;
    double fastMean, fastExcess, fastWorst;
    bool slowerOnTheProfile;
    bool chosen;
  };
  for (const Case c : {Case{"faster per call", 0.8, 0.25, 1.01, false, true},
                       Case{"loses more", 0.8, 0.5, 1.01, false, false},
                       Case{"fails the guard the winner passed", 0.8, 0.2, 1.05, false, false},
                       Case{"faster by less than the margin", 0.896, 0.2, 1.01, false, false},
                       Case{"slower on the profile", 0.8, 0.0, 1.01, true, false}}) {
    SCOPED_TRACE(c.what);
    Middle replay(table);
    replay.fastMean = c.fastMean;
    replay.fastExcess = c.fastExcess;
    replay.fastWorst = c.fastWorst;
    replay.slowerOnTheProfile = c.slowerOnTheProfile;
    TuneRun run = runFor(false, 1000000);
    TuneSettings settings;
    settings.frameShapes = 0;
    tune(run, replay, settings);
    ASSERT_EQ(run.end, TuneEnd::Complete) << run.failure;
    ASSERT_GE(replay.together.size(), 3u) << "the winner and at least two middle bounds";
    const gen::Params was = replay.together.front();
    EXPECT_EQ(was.carry, gen::Carry::Avx2);
    std::vector<int> mids;
    for (const gen::Params& p : replay.together) mids.push_back(p.mid);
    EXPECT_NE(std::find(mids.begin(), mids.end(), 256), mids.end());
    EXPECT_EQ(std::set<int>(mids.begin(), mids.end()).size(), mids.size()) << "measured twice";
    ASSERT_EQ(run.middle.size(), replay.together.size());
    // Only where the bounds can differ: from the short bound up, not at the exact length.
    EXPECT_EQ(replay.lengthsGiven, lengthsWhereMiddleBoundsDiffer(was, settings.guardLengths));
    EXPECT_EQ(run.middleLengths, replay.lengthsGiven);
    ASSERT_FALSE(replay.lengthsGiven.empty());
    if (was.hasShortPath()) {
      EXPECT_GE(replay.lengthsGiven.front(), was.shortBelow);
    }
    EXPECT_LT(replay.lengthsGiven.size(), settings.guardLengths.size());
    const gen::Params& winner = run.finalists.front().params;
    EXPECT_EQ(winner.mid, c.chosen ? 256 : was.mid);
    gen::Params unmoved = winner;
    unmoved.mid = was.mid;
    EXPECT_EQ(unmoved.canonical(), was) << "more than the middle bound changed";
    // Every figure printed for the winner is the middle stage's measurement of it, and its
    // search score its own evaluation's.
    const auto own = std::find_if(run.middle.begin(), run.middle.end(),
                                  [&](const auto& m) { return m.atLengths.params == winner; });
    ASSERT_NE(own, run.middle.end());
    EXPECT_DOUBLE_EQ(run.finalists.front().speedup.median, own->profile.median);
    EXPECT_DOUBLE_EQ(run.finalists.front().searchScore, replay.measure(winner).score);
    if (c.chosen) {
      ASSERT_GE(run.finalists.size(), 2u);
      EXPECT_EQ(run.finalists[1].params, was) << "the replaced winner is not right behind it";
      EXPECT_EQ(std::count_if(run.finalists.begin(), run.finalists.end(),
                              [&](const FinalistResult& f) { return f.params == winner; }),
                1);
      const std::string md = renderTuneReport(run, {});
      EXPECT_NE(md.find("### Middle path"), std::string::npos);
      EXPECT_NE(md.find("`" + winner.toString() + "` (chosen)"), std::string::npos) << md;
      const auto json = toJson(run);
      ASSERT_EQ(json["guard"]["middle"].size(), run.middle.size());
      EXPECT_EQ(json["guard"]["middle"][0]["mid"].get<int>(), was.mid);
      EXPECT_GT(json["guard"]["middle"][0]["mean_time_ratio"].get<double>(), 0);
    }
  }
  // No middle stage for a kernel-safe winner.
  {
    Middle replay(syntheticTable(gen::parseParams("carry=adc,chains=4,unroll=16"), true));
    TuneRun run = runFor(true, 1000000);
    TuneSettings settings;
    settings.frameShapes = 0;
    tune(run, replay, settings);
    ASSERT_EQ(run.end, TuneEnd::Complete) << run.failure;
    EXPECT_TRUE(replay.together.empty());
    EXPECT_TRUE(run.middle.empty());
  }
  // Without timing the stage cannot compare the bounds per call: the winner stays.
  {
    Middle replay(table);
    replay.timed = false;
    TuneRun run = runFor(false, 1000000);
    TuneSettings settings;
    settings.frameShapes = 0;
    tune(run, replay, settings);
    ASSERT_EQ(run.end, TuneEnd::Complete) << run.failure;
    EXPECT_TRUE(run.middle.empty());
    EXPECT_EQ(run.finalists.front().params.mid, 0);
  }
}

// The winner is measured at every placement, with its jump targets packed and aligned,
// together; the layout that loses least becomes its `place` and `targets` unless it is slower
// on the profile (measured beside the winner as it was), a tie keeps its own, and a measurer
// without timing leaves it where it was.
TEST(Tune, TheWinnerGoesWhereItLosesLeastAtTheGuardLengths) {
  struct Layout {
    int place;
    gen::Targets targets;
    bool operator==(const Layout&) const = default;
  };
  class Placed : public ReplayMeasurer {
   public:
    using ReplayMeasurer::ReplayMeasurer;
    std::optional<Layout> best;  // none: all tie
    bool slowerOnTheProfile = false;
    std::vector<gen::Params> measured;
    std::vector<GuardResult> guardPlacements(const std::vector<gen::Params>& placed,
                                             const std::vector<int>& lengths) override {
      measured = placed;
      auto out = ReplayMeasurer::guard(placed, lengths);
      for (GuardResult& g : out) {
        g.excess = !best || (Layout{g.params.place, g.params.targets} == *best) ? 0.0 : 0.4;
        g.worstRatio = 1.05;
      }
      return out;
    }
    std::vector<FinalistResult> remeasureFinalists(const std::vector<Evaluation>& f) override {
      auto out = ReplayMeasurer::remeasureFinalists(f);
      for (FinalistResult& r : out) {
        if (r.params.place != 0 || r.params.targets != gen::Targets::Packed) {
          const double m = r.speedup.median * (slowerOnTheProfile ? 0.9 : 1.01);
          r.speedup = {m, m, m, 1.0};
        }
      }
      return out;
    }
  };
  const gen::Params best = gen::parseParams("carry=adc,chains=4,unroll=16");
  constexpr auto kPacked = gen::Targets::Packed;
  constexpr auto kAligned = gen::Targets::Aligned;
  struct Case {
    std::optional<Layout> best;
    bool slowerOnTheProfile;
    Layout expected;
  };
  for (const Case& c :
       {Case{Layout{32, kPacked}, false, {32, kPacked}},
        Case{Layout{32, kPacked}, true, {0, kPacked}},
        Case{Layout{16, kAligned}, false, {16, kAligned}},
        Case{Layout{0, kAligned}, true, {0, kPacked}}, Case{std::nullopt, false, {0, kPacked}}}) {
    Placed replay(syntheticTable(best, true));
    replay.best = c.best;
    replay.slowerOnTheProfile = c.slowerOnTheProfile;
    TuneRun run = runFor(true, 1000000);
    TuneSettings settings;
    settings.frameShapes = 0;
    tune(run, replay, settings);
    ASSERT_EQ(run.end, TuneEnd::Complete) << run.failure;
    ASSERT_EQ(replay.measured.size(), 8u) << "the winner at 0, 16, 32 and 48, packed and aligned";
    std::vector<Layout> layouts;
    for (const gen::Params& p : replay.measured) {
      layouts.push_back({p.place, p.targets});
      gen::Params unplaced = p;
      unplaced.place = 0;
      unplaced.targets = kPacked;
      EXPECT_EQ(unplaced, replay.measured.front()) << "not the same kernel: " << p.toString();
    }
    EXPECT_EQ(layouts, (std::vector<Layout>{{0, kPacked},
                                            {16, kPacked},
                                            {32, kPacked},
                                            {48, kPacked},
                                            {0, kAligned},
                                            {16, kAligned},
                                            {32, kAligned},
                                            {48, kAligned}}));
    ASSERT_EQ(run.placement.size(), 8u);
    const gen::Params& winner = run.finalists.front().params;
    EXPECT_EQ((Layout{winner.place, winner.targets}), c.expected);
    EXPECT_EQ(run.placementProfile.has_value(), c.best.has_value())
        << "a layout other than the winner's own is checked on the profile";
    if (!(c.expected == Layout{0, kPacked})) {
      // The winner's figures are its layout's own measurement.
      EXPECT_DOUBLE_EQ(run.finalists.front().speedup.median, run.placementProfile->second.median);
    }
  }
  // At shared addresses the rounds place the code: only its targets are the kernel's.
  class Shared : public Placed {
   public:
    using Placed::Placed;
    bool sharesAddresses() const override { return true; }
  };
  Shared shared(syntheticTable(best, true));
  shared.best = Layout{0, kAligned};
  TuneRun sharedRun = runFor(true, 1000000);
  TuneSettings sharedSettings;
  sharedSettings.frameShapes = 0;
  tune(sharedRun, shared, sharedSettings);
  ASSERT_EQ(sharedRun.end, TuneEnd::Complete) << sharedRun.failure;
  ASSERT_EQ(shared.measured.size(), 2u);
  EXPECT_EQ(shared.measured[1].targets, kAligned);
  EXPECT_EQ(shared.measured[1].place, 0);
  EXPECT_EQ(sharedRun.finalists.front().params.targets, kAligned);

  ReplayMeasurer plain(syntheticTable(best, true));
  TuneRun run = runFor(true, 1000000);
  TuneSettings settings;
  settings.frameShapes = 0;
  tune(run, plain, settings);
  ASSERT_EQ(run.end, TuneEnd::Complete) << run.failure;
  EXPECT_TRUE(run.placement.empty());
  EXPECT_EQ(run.finalists.front().params.place, 0);
}

// With the file measured at each of its placements, the sweep's verdicts say both: slower than
// the file as the compiler placed it, and slower than it wherever it sits (its slowest
// placement); the report, the summary line and results.json carry the second.
TEST(Tune, TheSweepSaysWhereTheWinnerLosesToTheFileWhereverItSits) {
  TuneRun run = runFor(true, 10);
  run.baseline = "linux-6.12.118 (source)";
  run.end = TuneEnd::Complete;
  run.finalists.push_back(FinalistResult{});
  run.sweep = {
      // Slower than the file here, not than its slowest placement.
      {16, CacheState::Hot, 1.1, 1.0, {1.0, 1.2, 1.0, 1.0}},
      // Slower than every placement.
      {24, CacheState::Hot, 1.1, 1.0, {1.0, 1.0, 1.05, 1.0}},
      {16, CacheState::Cold, 0.9, 1.0, {1.0, 1.0, 1.0, 1.0}},
  };
  const SweepSummary s = summarizeSweep(run);
  EXPECT_EQ(s.hot.lengths, (std::vector<int>{16, 24}));
  ASSERT_TRUE(s.hot.placed);
  EXPECT_EQ(s.hot.slowerThanEveryPlacement, std::vector<int>{24});
  EXPECT_EQ(s.hot.worstPlacedLength, 24);
  EXPECT_NEAR(s.hot.worstPlacedRatio, 1.1 / 1.05, 1e-9);
  EXPECT_TRUE(s.cold.slowerThanEveryPlacement.empty());
  const std::string line = sweepSummaryLine(run);
  EXPECT_NE(line.find("than the file at every one of its placements: 1 hot (worst 1.048 at 24 B), "
                      "0 cold"),
            std::string::npos)
      << line;
  const std::string md = renderTuneReport(run, {});
  EXPECT_NE(md.find("**wherever it sits** (than its slowest placement) hot at 1 length: 24; cold "
                    "at 0 lengths."),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 24 | **1.100 slower** |  | **1.048 slower** |  |"), std::string::npos) << md;
  const auto json = toJson(run);
  ASSERT_EQ(json["sweep"][1]["baseline_placed_per_byte"].size(), 4u);
  EXPECT_NEAR(json["sweep"][1]["time_ratio_to_slowest_placement"].get<double>(), 1.1 / 1.05, 1e-9);
  // Without the placements: no such verdict anywhere.
  for (SweepPoint& p : run.sweep) p.placedPerByte.clear();
  EXPECT_EQ(sweepSummaryLine(run).find("placements"), std::string::npos);
  EXPECT_EQ(renderTuneReport(run, {}).find("wherever it sits"), std::string::npos);
  EXPECT_FALSE(toJson(run)["sweep"][1].contains("baseline_placed_per_byte"));
}

// A median above 1 is not yet a loss: the sweep counts apart the lengths where the paired
// per-round ratio's 95 % interval is above 1, marks them in the table and says so in the
// summary line and results.json.
TEST(Tune, TheSweepCountsApartTheLengthsWhereTheWinnerIsSurelySlower) {
  TuneRun run = runFor(true, 10);
  run.end = TuneEnd::Complete;
  run.finalists.push_back(FinalistResult{});
  run.sweep = {
      {16, CacheState::Hot, 1.02, 1.0, {}, {1.02, 0.98, 1.06, 0.95}},  // within the noise
      {24, CacheState::Hot, 0.9, 1.0, {}, {0.9, 0.88, 0.92, 0.95}},
      {16, CacheState::Cold, 1.1, 1.0, {}, {1.1, 1.05, 1.15, 0.95}},  // surely slower
      {24, CacheState::Cold, 1.03, 1.0, {}, {1.03, 1.01, 1.05, 0.95}},
  };
  const SweepSummary s = summarizeSweep(run);
  EXPECT_EQ(s.hot.lengths, std::vector<int>{16});
  EXPECT_TRUE(s.hot.significantlySlower.empty());
  EXPECT_EQ(s.cold.lengths, (std::vector<int>{16, 24}));
  EXPECT_EQ(s.cold.significantlySlower, (std::vector<int>{16, 24}));
  const std::string line = sweepSummaryLine(run);
  EXPECT_NE(line.find("with the paired 95 % interval above 1: 0 hot, 2 cold (16, 24)"),
            std::string::npos)
      << line;
  const std::string md = renderTuneReport(run, {});
  EXPECT_NE(md.find("surely slower: hot at 0 lengths; cold at 2 lengths: 16, 24."),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 16 | **1.020 slower** | **1.100 slower** † |"), std::string::npos) << md;
  const auto json = toJson(run);
  EXPECT_NEAR(json["sweep"][2]["time_ratio_paired"]["ci_low"].get<double>(), 1.05, 1e-9);
  // A sweep recorded without paired figures says nothing of them.
  for (SweepPoint& p : run.sweep) p.paired = {};
  EXPECT_EQ(sweepSummaryLine(run).find("interval"), std::string::npos);
  EXPECT_EQ(renderTuneReport(run, {}).find("surely slower"), std::string::npos);
  EXPECT_FALSE(toJson(run)["sweep"][0].contains("time_ratio_paired"));
}

}  // namespace
}  // namespace csumtune::tuner
