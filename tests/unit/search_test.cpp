// The search machinery on a synthetic objective: no timing, fully deterministic.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <set>

#include "search/evaluator.hpp"
#include "search/profile.hpp"
#include "search/space.hpp"
#include "search/strategy.hpp"
#include "tune/replay_measurer.hpp"

namespace csumtune::tuner {
namespace {

// A smooth bowl with its minimum at adc, chains 4, unroll 32, prefetch 512, hint t0; every
// other family is 10-40 % worse; cmov with 5 chains is "wrong" (must never win).
class SyntheticMeasurer : public CandidateMeasurer {
 public:
  Evaluation measure(const gen::Params& p) override {
    ++calls;
    Evaluation e;
    e.params = p;
    if (p.carry == gen::Carry::Cmov && p.chains == 5) {
      e.status = EvalStatus::Wrong;
      e.message = "synthetic bug";
      return e;
    }
    // Every family but adc is worse, by a factor growing with its place in the registry.
    const double family = p.carry == gen::Carry::Adc ? 1.0 : 1.1 + 0.05 * static_cast<int>(p.carry);
    const double d = std::pow((p.chains - 4) / 4.0, 2) + std::pow((p.unroll - 32) / 16.0, 2) +
                     std::pow((p.prefetch - 512) / 2048.0, 2) +
                     (p.prefetch ? 0.01 * int(p.hint) : 0);
    e.score = family * (0.5 + 0.1 * d);
    // The real wrong kernel would score great: make sure status, not score, decides.
    e.scorePerByte = e.score * 0.05;
    return e;
  }
  int calls = 0;
};

constexpr double kOptimum = 0.5;

TEST(SearchSpace, ProjectionLandsOnValidParamsAndRoundTrips) {
  const SearchSpace space(true);
  for (const gen::Params& p : space.distinctKernels()) {
    ASSERT_EQ(space.project(p.carry, SearchSpace::pointOf(p)), p) << p.toString();
  }
  for (double c = 0; c <= 9; c += 0.37) {
    for (double u = 0; u <= 33; u += 1.3) {
      for (gen::Carry carry : space.families()) {
        const gen::Params p = space.project(carry, {c, u, 70.2, -1});
        ASSERT_TRUE(gen::validationError(p).empty())
            << p.toString() << ": " << gen::validationError(p);
      }
    }
  }
  EXPECT_EQ(space.project(gen::Carry::Adcx, {3, 9, 0, 2}).chains % 2, 0);
  EXPECT_EQ(space.project(gen::Carry::Adc, {3, 9, 0, 2}).hint, gen::Hint::T0)
      << "prefetch=0: hint canonical";
  EXPECT_EQ(codeKey(gen::parseParams("prefetch=0,hint=nta")),
            codeKey(gen::parseParams("prefetch=0,hint=t1")));
}

// The search's points land on the space's forms: avx2 as vsum=madd, as enumerateSpace has it.
TEST(SearchSpace, TheSearchProjectsAvx2ToItsMaddForm) {
  const SearchSpace space(false);
  std::size_t avx2 = 0;
  for (const gen::Params& p : space.distinctKernels()) {
    if (p.carry != gen::Carry::Avx2) continue;
    ++avx2;
    EXPECT_EQ(p.vsum, gen::VectorSum::Madd) << p.toString();
    ASSERT_EQ(space.project(p.carry, SearchSpace::pointOf(p)), p) << p.toString();
  }
  EXPECT_GT(avx2, 0u);
  EXPECT_EQ(space.project(gen::Carry::Avx2, {2, 22, 0, 0}).vsum, gen::VectorSum::Madd);
  EXPECT_EQ(space.project(gen::Carry::Avx512, {2, 22, 0, 0}).vsum, gen::VectorSum::Halves);
}

TEST(Evaluator, MemoizesAndCountsOnlyUniqueEvaluations) {
  SyntheticMeasurer m;
  Evaluator ev(m, {5, 0, nullptr});
  const auto p = gen::parseParams("carry=adc,chains=2,unroll=8");
  const double first = ev(p);
  EXPECT_EQ(ev(p), first);
  EXPECT_EQ(ev(gen::parseParams("carry=adc,chains=2,unroll=8,prefetch=0,hint=nta")), first)
      << "same code, same evaluation";
  EXPECT_EQ(m.calls, 1);
  EXPECT_EQ(ev.uniqueThisRun(), 1u);
  EXPECT_EQ(ev.revisits(), 2u);
  for (int u = 1; u <= 4; ++u) ev(gen::Params{gen::Carry::Adc, 1, u, 0, gen::Hint::T0});
  EXPECT_EQ(ev.uniqueThisRun(), 5u);
  try {
    ev(gen::Params{gen::Carry::Adc, 1, 9, 0, gen::Hint::T0});
    FAIL() << "evaluated past the budget";
  } catch (const SearchStopped& s) {
    EXPECT_EQ(s.why, SearchStopped::Why::Budget);
  }
  EXPECT_EQ(ev(p), first) << "known points are still answered after the budget";
}

TEST(Evaluator, WrongKernelsNeverWin) {
  SyntheticMeasurer m;
  Evaluator ev(m, {100, 0, nullptr});
  ev(gen::parseParams("carry=cmov,chains=5,unroll=10"));
  EXPECT_EQ(ev.best(), nullptr);
  ev(gen::parseParams("carry=add32,chains=1,unroll=1"));
  ASSERT_NE(ev.best(), nullptr);
  EXPECT_EQ(ev.best()->params.carry, gen::Carry::Add32);
  EXPECT_EQ(ev.evaluations().front().status, EvalStatus::Wrong);
}

TEST(Evaluator, StopsOnInterruptAndTime) {
  SyntheticMeasurer m;
  std::atomic<bool> interrupted{true};
  Evaluator stopped(m, {100, 0, &interrupted});
  EXPECT_THROW(stopped(gen::Params{}), SearchStopped);
  Evaluator timed(m, {100, 1e-9, nullptr});
  try {
    timed(gen::Params{});
    timed(gen::Params{gen::Carry::Adc, 1, 1, 0, gen::Hint::T0});
    FAIL() << "no time limit";
  } catch (const SearchStopped& s) {
    EXPECT_EQ(s.why, SearchStopped::Why::Time);
  }
}

TEST(Evaluator, PhaseStallAndBudget) {
  SyntheticMeasurer m;
  Evaluator ev(m, {1000, 0, nullptr});
  ev.beginPhase(3, 0);
  for (int u = 1; u <= 3; ++u) ev(gen::Params{gen::Carry::Add32, 1, u, 0, gen::Hint::T0});
  try {
    ev(gen::Params{gen::Carry::Add32, 1, 4, 0, gen::Hint::T0});
    FAIL();
  } catch (const SearchStopped& s) {
    EXPECT_TRUE(s.endsPhaseOnly());
  }
  ev.beginPhase(0, 2);
  ev(gen::Params{gen::Carry::Adc, 4, 32, 512, gen::Hint::T0});  // the optimum
  ev(gen::Params{gen::Carry::Adc, 1, 1, 0, gen::Hint::T0});
  ev(gen::Params{gen::Carry::Adc, 1, 2, 0, gen::Hint::T0});
  EXPECT_THROW(ev(gen::Params{gen::Carry::Adc, 1, 3, 0, gen::Hint::T0}), SearchStopped);
}

class EveryAlgorithm : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryAlgorithm, FindsTheSyntheticOptimumWithinBudget) {
  SyntheticMeasurer m;
  const SearchSpace space(true);
  const std::size_t budget = GetParam() == "random" ? 3000 : 400;
  Evaluator ev(m, {budget, 0, nullptr});
  const auto outcome = runSearch(space, ev, {GetParam(), 7, 0});
  ASSERT_NE(ev.best(), nullptr);
  EXPECT_LE(ev.uniqueThisRun(), budget);
  EXPECT_EQ(static_cast<std::size_t>(m.calls), ev.uniqueThisRun());
  // A sanity bound: the real comparison of algorithms is `tune --replay` on measured ground
  // truth (README, results/).
  EXPECT_LT(ev.best()->score, kOptimum * 1.05)
      << GetParam() << " found " << ev.best()->params.toString() << " (" << outcome.stoppedBecause
      << ")";
  EXPECT_EQ(ev.best()->params.carry, gen::Carry::Adc);
}

TEST_P(EveryAlgorithm, SameSeedSameVisitOrder) {
  auto visits = [&](std::uint64_t seed) {
    SyntheticMeasurer m;
    Evaluator ev(m, {150, 0, nullptr});
    runSearch(SearchSpace(true), ev, {GetParam(), seed, 0});
    std::vector<std::string> order;
    for (const auto& e : ev.evaluations()) order.push_back(e.params.toString());
    return order;
  };
  EXPECT_EQ(visits(11), visits(11));
  // (MLSL-LDS draws from a low-discrepancy sequence; DIRECT and Subplex are deterministic.)
  if (GetParam() == "crs2" || GetParam() == "random") {
    EXPECT_NE(visits(11), visits(12)) << "the seed should matter for " << GetParam();
  }
}

// Every registered strategy but the exhaustive one (tested on its own below).
std::vector<std::string> searchingStrategies() {
  std::vector<std::string> names;
  for (const auto& s : searchStrategies()) {
    if (s.name != "exhaustive") names.emplace_back(s.name);
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryAlgorithm, ::testing::ValuesIn(searchingStrategies()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

TEST(Registry, DefaultIsFirstAndNamesAreUnique) {
  EXPECT_EQ(&defaultStrategy(), &searchStrategies().front());
  std::set<std::string_view> names;
  for (const auto& s : searchStrategies()) {
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    EXPECT_EQ(findStrategy(s.name), &s);
    EXPECT_FALSE(s.help.empty()) << s.name;
  }
  EXPECT_EQ(findStrategy("nope"), nullptr);
  SyntheticMeasurer m;
  Evaluator ev(m, {10, 0, nullptr});
  EXPECT_THROW(runSearch(SearchSpace(true), ev, {"nope", 1, 0}), std::invalid_argument);
}

TEST(SearchSpace, BoundsComeFromParamLimits) {
  using L = gen::ParamLimits;
  const Point upper = SearchSpace::upperBounds(), lower = SearchSpace::lowerBounds();
  const SearchSpace space(false);
  // The corners of the box project onto the extreme values Params allows.
  const gen::Params high = space.project(gen::Carry::Adc, upper);
  EXPECT_EQ(high.chains, L::kMaxChains);
  EXPECT_EQ(high.unroll, L::kMaxUnroll);
  EXPECT_EQ(high.prefetch, L::kMaxPrefetch);
  EXPECT_EQ(static_cast<int>(high.hint), gen::kHintCount - 1);
  const gen::Params low = space.project(gen::Carry::Adc, lower);
  EXPECT_EQ(low.chains, L::kMinChains);
  EXPECT_EQ(low.unroll, L::kMinUnroll);
  EXPECT_EQ(low.prefetch, 0);
  // Every registered family is searched; kernel-safe ones only with --kernel-safe.
  EXPECT_EQ(space.families().size(), gen::allCarryTraits().size());
  const SearchSpace kernelSafe(true);
  for (gen::Carry carry : kernelSafe.families()) EXPECT_TRUE(gen::traitsOf(carry).kernelSafe());
}

TEST(Exhaustive, VisitsEveryDistinctKernelOnce) {
  SyntheticMeasurer m;
  const SearchSpace space(true);
  Evaluator ev(m, {1000000, 0, nullptr});
  const auto outcome = runSearch(space, ev, {"exhaustive", 1, 0});
  EXPECT_EQ(ev.uniqueThisRun(), space.distinctKernels().size());
  EXPECT_EQ(ev.revisits(), 0u);
  EXPECT_DOUBLE_EQ(ev.best()->score, kOptimum);
  EXPECT_EQ(outcome.stoppedBecause, "space exhausted");
}

TEST(Replay, AnswersFromTheTableAndRanks) {
  SyntheticMeasurer m;
  std::vector<Evaluation> table;
  for (const auto& p : SearchSpace(true).distinctKernels()) {
    if (p.prefetch <= 128) table.push_back(m.measure(p));
  }
  ReplayMeasurer replay(table);
  ASSERT_NE(replay.optimum(), nullptr);
  EXPECT_EQ(replay.rankOf(replay.optimum()->score), 1u);
  EXPECT_EQ(replay.measure(gen::parseParams("prefetch=4096")).status, EvalStatus::Refused);
  EXPECT_DOUBLE_EQ(replay.measure(replay.optimum()->params).score, replay.optimum()->score);
}

// tune --kind copy searches copying kernels only: every point of the space, projected from
// anywhere in the box, is a valid copying kernel of a family that can copy.
TEST(SearchSpace, CopyingSpaceHoldsOnlyValidCopyingKernels) {
  for (bool kernelSafe : {true, false}) {
    const SearchSpace space(kernelSafe, gen::Kind::Copy);
    EXPECT_EQ(std::count(space.families().begin(), space.families().end(), gen::Carry::Avx512Vnni),
              0);
    const auto all = space.distinctKernels();
    EXPECT_GT(all.size(), 100u);
    for (const gen::Params& p : all) {
      EXPECT_EQ(p.kind, gen::Kind::Copy) << p.toString();
      EXPECT_TRUE(gen::validationError(p).empty()) << p.toString();
    }
    const Point low = SearchSpace::lowerBounds(), high = SearchSpace::upperBounds();
    for (gen::Carry carry : space.families()) {
      for (double t : {0.0, 0.3, 0.7, 1.0}) {
        Point x;
        for (std::size_t i = 0; i < kDimensions; ++i) x[i] = low[i] + t * (high[i] - low[i]);
        const gen::Params p = space.project(carry, x);
        EXPECT_EQ(p.kind, gen::Kind::Copy);
        EXPECT_TRUE(gen::validationError(p).empty()) << p.toString();
      }
    }
  }
  // The summing space is what it was.
  for (const gen::Params& p : SearchSpace(true).distinctKernels())
    EXPECT_EQ(p.kind, gen::Kind::Sum);
}

TEST(Profile, ScoreIsTimePerByteOfTheMix) {
  const Profile imix = *namedProfile("imix");
  EXPECT_EQ(imix.spec(), "40:7,576:4,1500:1");
  // 7 x 10 + 4 x 30 + 1 x 60 ticks over 7 x 40 + 4 x 576 + 1500 bytes.
  EXPECT_DOUBLE_EQ(imix.score({10, 30, 60}), (70.0 + 120 + 60) / (280 + 2304 + 1500));
  EXPECT_FALSE(namedProfile("nope").has_value());
  for (const auto& name : profileNames()) EXPECT_TRUE(namedProfile(name).has_value()) << name;
  EXPECT_EQ(customProfile({{40, 1}, {9000, 2}}).spec(), "40:1,9000:2");
}

}  // namespace
}  // namespace csumtune::tuner
