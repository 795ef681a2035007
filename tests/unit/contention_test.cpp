// The contention detector and --wait-quiet's waiting, on a synthetic clock with injected busy
// periods (nothing is timed): what counts as disturbed, how long the monitor waits, when it
// gives up, the watched measurement loop, whole tunes that report contention, the finalists
// widened when their final measurement reverses the search, and the gate that keeps only
// quiet rounds of a long measurement.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <vector>

#include "csumtune/cpu.hpp"
#include "measure/contention.hpp"
#include "measure/harness.hpp"
#include "search/space.hpp"
#include "tune/replay_measurer.hpp"
#include "tune/tune.hpp"
#include "tune/watched_measurement.hpp"

namespace csumtune::tuner {
namespace {

// A machine on a synthetic clock. Busy periods are [from, to) in seconds; during one, the
// tuner waits on the run queue for `waitShare` of the time (another task time-sliced with
// it), the hypervisor steals `stealShare`, the probe runs `slowdown` times slower, and its
// loads `siblingSlowdown` times slower again (a core sibling sharing the load ports; the add
// chain does not notice it).
struct BusyPeriod {
  double from, to;
  double waitShare = 0, stealShare = 0, slowdown = 1;
  double siblingSlowdown = 1;
};

class SyntheticMachine : public ContentionSource {
 public:
  explicit SyntheticMachine(std::vector<BusyPeriod> busy) : busy_(std::move(busy)) {}

  SchedReading read() override {
    return {now_, integral(&BusyPeriod::waitShare), integral(&BusyPeriod::stealShare)};
  }
  ProbeFigures probe() override {
    const double slow = slowdownAt(now_);
    const double sibling = siblingSlowdownAt(now_);
    spend(0.002);
    ++probes_;
    return {1000 * slow, 3000 * slow, 500 * slow * sibling};
  }
  void sleep(double seconds) override { spend(seconds); }

  // Time passes (a measurement, a probe, a sleep).
  void spend(double seconds) { now_ += seconds; }
  double now() const { return now_; }
  int probes() const { return probes_; }
  bool busyAt(double t) const {
    return std::any_of(busy_.begin(), busy_.end(),
                       [&](const BusyPeriod& b) { return t >= b.from && t < b.to; });
  }
  double slowdownAt(double t) const { return worstAt(t, &BusyPeriod::slowdown); }
  double siblingSlowdownAt(double t) const { return worstAt(t, &BusyPeriod::siblingSlowdown); }

 private:
  double worstAt(double t, double BusyPeriod::*factor) const {
    double slow = 1;
    for (const BusyPeriod& b : busy_) {
      if (t >= b.from && t < b.to) slow = std::max(slow, b.*factor);
    }
    return slow;
  }
  // The cumulative share-weighted time up to now.
  double integral(double BusyPeriod::*share) const {
    double total = 0;
    for (const BusyPeriod& b : busy_) {
      const double overlap = std::max(0.0, std::min(now_, b.to) - b.from);
      total += overlap * b.*share;
    }
    return total;
  }
  std::vector<BusyPeriod> busy_;
  double now_ = 0;
  int probes_ = 0;
};

ContentionSettings waitingUpTo(double seconds) {
  ContentionSettings s;
  s.waitLimitSeconds = seconds;
  return s;
}

// One measurement of `seconds` inside a window.
bool measureFor(ContentionMonitor& monitor, SyntheticMachine& machine, double seconds,
                bool baselineSlow = false) {
  const Window w = monitor.open();
  machine.spend(seconds);
  return monitor.close(w, baselineSlow).disturbed;
}

TEST(Contention, RunQueueWaitStealAndASlowReferenceAreDisturbances) {
  SyntheticMachine machine({{1, 2, 0.5, 0, 1}, {3, 4, 0, 0.3, 1}});
  ContentionMonitor monitor(machine, {});
  monitor.beginPhase("search");
  EXPECT_FALSE(measureFor(monitor, machine, 0.5));  // quiet
  machine.spend(0.6);                               // now 1.1: time-sliced
  EXPECT_TRUE(measureFor(monitor, machine, 0.5));   // waited half of it
  machine.spend(1.0);                               // now 2.6: quiet again
  EXPECT_FALSE(measureFor(monitor, machine, 0.2));
  EXPECT_TRUE(measureFor(monitor, machine, 0.2, true));  // the noise guard's verdict counts
  machine.spend(0.2);                                    // now 3.2: stolen
  EXPECT_TRUE(measureFor(monitor, machine, 0.5));
  // A little wait (a daemon's few milliseconds) is not contention.
  SyntheticMachine daemon({{0.1, 0.102, 1, 0, 1}});
  ContentionMonitor quiet(daemon, {});
  quiet.beginPhase("search");
  EXPECT_FALSE(measureFor(quiet, daemon, 1.0));

  const ContentionReport report = monitor.finish();
  const PhaseContention* search = report.phase("search");
  ASSERT_NE(search, nullptr);
  EXPECT_EQ(search->measurements, 5u);
  EXPECT_EQ(search->disturbed, 3u);
  EXPECT_GT(search->waitShare, 0.1);
  EXPECT_GT(search->stealShare, 0.05);
  EXPECT_TRUE(report.disturbed());
  // 1.2 s of the 1.9 s measured were disturbed.
  EXPECT_NE(report.summary().find("busy during 63 % of the search"), std::string::npos)
      << report.summary();
}

TEST(Contention, AQuietRunSaysSoAndAMeasurementTakenAgainDoesNotCount) {
  SyntheticMachine machine({});
  ContentionMonitor monitor(machine, {});
  monitor.beginPhase("search");
  for (int i = 0; i < 20; ++i) EXPECT_FALSE(measureFor(monitor, machine, 0.05));
  const Window w = monitor.open();
  machine.spend(0.05);
  const ClosedWindow slow = monitor.close(w, true);
  EXPECT_TRUE(slow.disturbed);
  monitor.measuredAgain(slow);
  EXPECT_FALSE(measureFor(monitor, machine, 0.05));
  monitor.beginPhase("finalists");
  EXPECT_FALSE(measureFor(monitor, machine, 1));
  const ContentionReport report = monitor.finish();
  EXPECT_EQ(report.phase("search")->measurements, 21u);
  EXPECT_EQ(report.phase("search")->disturbed, 0u);
  EXPECT_EQ(report.phase("search")->measuredAgain, 1u);
  EXPECT_FALSE(report.disturbed());
  EXPECT_EQ(report.probes.size(), 3u);  // before each phase and at the end
  EXPECT_EQ(report.summary().rfind("the machine was quiet", 0), 0u) << report.summary();
}

TEST(Contention, ASlowProbeMarksTheRunAgainstItsQuietestProbe) {
  // Busy (a sibling thread slowing the core) before the search, quiet later: the probes
  // compare with the quickest one of the run, whenever it came.
  SyntheticMachine machine({{0, 1, 0, 0, 1.25}});
  ContentionMonitor monitor(machine, {});
  monitor.beginPhase("search");
  machine.spend(2);
  monitor.beginPhase("finalists");
  const ContentionReport report = monitor.finish();
  EXPECT_NEAR(report.probes.front().slowdown, 1.25, 1e-9);
  EXPECT_NEAR(report.probes.back().slowdown, 1.0, 1e-9);
  EXPECT_TRUE(report.disturbed());
  EXPECT_NE(report.summary().find("probe ran up to 25 % slower"), std::string::npos)
      << report.summary();
}

TEST(Contention, ASiblingBusyForTheWholeRunShowsOnlyAgainstARememberedQuietRun) {
  // The loads run 20 % slower from the first probe to the last: the run's quickest probe is
  // as slow as the others, so only an earlier quiet run's loads ÷ chain (500 / 1000) tells.
  const std::vector<BusyPeriod> sibling = {{0, 1000, 0, 0, 1, 1.2}};
  SyntheticMachine alone(sibling);
  ContentionMonitor unaware(alone, {});
  unaware.beginPhase("search");
  EXPECT_FALSE(measureFor(unaware, alone, 1));
  const ContentionReport blind = unaware.finish();
  EXPECT_FALSE(blind.disturbed()) << blind.summary();
  EXPECT_NEAR(blind.quietestLoadsPerChain, 0.6, 1e-9);  // what this run would remember
  EXPECT_EQ(blind.referenceLoadsPerChain, 0);

  SyntheticMachine machine(sibling);
  ContentionSettings remembered;
  remembered.quietLoadsPerChain = 0.5;
  remembered.quietReferenceFile = "/cache/q.txt";
  ContentionMonitor monitor(machine, remembered);
  monitor.beginPhase("search");
  EXPECT_FALSE(measureFor(monitor, machine, 1));  // no run-queue wait, no steal
  const ContentionReport report = monitor.finish();
  EXPECT_NEAR(report.probes.back().slowdown, 1.0, 1e-9);  // the chain and baseline: unmoved
  EXPECT_NEAR(report.probes.back().loadSlowdown, 1.2, 1e-9);
  EXPECT_NEAR(report.loadSlowdownAgainstReference(), 1.2, 1e-9);
  // Said, not counted: the loop's speed alone does not make a run busy.
  EXPECT_FALSE(report.disturbed());
  EXPECT_NE(report.summary().find("the probe's loads ran 20 % slower than on this CPU's quickest "
                                  "earlier run (perhaps a busy core sibling; remembered in "
                                  "/cache/q.txt; not counted as busy)"),
            std::string::npos)
      << report.summary();
  // A busy run leaves nothing quicker to remember than what it was judged by.
  EXPECT_NEAR(report.quietestLoadsPerChain, 0.6, 1e-9);

  // Within the sibling tolerance the loop's own jitter is not contention.
  SyntheticMachine jitter({{0, 1000, 0, 0, 1, 1.08}});
  ContentionMonitor lenient(jitter, remembered);
  lenient.beginPhase("search");
  EXPECT_EQ(lenient.finish().summary().find("loads ran"), std::string::npos);

  // A clock 25 % slower all along (throttling, another frequency) moves the chain with the
  // loads: their ratio stays the quiet one.
  SyntheticMachine slowClock({{0, 1000, 0, 0, 1.25}});
  ContentionMonitor clock(slowClock, remembered);
  clock.beginPhase("search");
  EXPECT_FALSE(clock.finish().disturbed());
}

TEST(Contention, ASiblingOnTheCoreForPartOfEachMomentShowsInTheMedianLoads) {
  // Busy two thirds of every 6 ms: a third of the probes find a quiet gap, so the quickest
  // of a window would read quiet; its median does not.
  std::vector<BusyPeriod> flicker;
  for (int k = 0; k < 500; ++k) flicker.push_back({0.006 * k, 0.006 * k + 0.004, 0, 0, 1, 1.3});
  SyntheticMachine machine(flicker);
  ContentionSettings remembered;
  remembered.quietLoadsPerChain = 0.5;
  ContentionMonitor monitor(machine, remembered);
  monitor.beginPhase("search");
  const ContentionReport report = monitor.finish();
  EXPECT_NEAR(report.probes.front().loadSlowdown, 1.3, 1e-9);
}

TEST(Contention, WaitQuietDoesNotWaitOnTheLoadsAlone) {
  SyntheticMachine machine({{0, 4, 0, 0, 1, 1.3}});
  ContentionSettings settings = waitingUpTo(60);
  settings.quietLoadsPerChain = 0.5;
  ContentionMonitor monitor(machine, settings);
  monitor.beginPhase("search");
  EXPECT_LT(machine.now(), 0.5);
  machine.spend(5);
  const ContentionReport report = monitor.finish();
  EXPECT_EQ(report.waitedSeconds, 0);
  EXPECT_NEAR(report.quietestLoadsPerChain, 0.5, 1e-9);  // the probe at the end, quiet
}

TEST(Contention, OnlyQuietProbesWithTheChainAtItsQuickestAreRemembered) {
  // Time-sliced before the search (its probe waited on the run queue), a sibling that slowed
  // the chain more than the loads before the finalists: neither leaves its ratio.
  SyntheticMachine machine({{0, 1, 0.5, 0, 1, 0.8}, {3, 4, 0, 0, 1.3, 0.77}});
  ContentionMonitor monitor(machine, {});
  monitor.beginPhase("search");  // t = 0: time-sliced, loads ÷ chain 0.4
  machine.spend(3);
  monitor.beginPhase("finalists");  // t = 3: the chain 30 % slow, loads ÷ chain 0.385
  machine.spend(2);
  const ContentionReport report = monitor.finish();  // t = 5: quiet, 0.5
  ASSERT_EQ(report.probes.size(), 3u);
  EXPECT_NEAR(report.quietestLoadsPerChain, 0.5, 1e-9);
}

TEST(Contention, WaitsUntilTheBusyStretchEnds) {
  SyntheticMachine machine({{0, 7, 0.5, 0, 1}});
  ContentionMonitor monitor(machine, waitingUpTo(60));
  monitor.beginPhase("search");  // busy: waits at once
  EXPECT_GE(machine.now(), 7.0);
  EXPECT_LT(machine.now(), 7.0 + 0.5);  // within a pause and a probe of the end
  EXPECT_FALSE(measureFor(monitor, machine, 0.1));
  const ContentionReport report = monitor.finish();
  EXPECT_NEAR(report.waitedSeconds, 7.0, 0.5);
  EXPECT_FALSE(report.gaveUp);
  EXPECT_NEAR(report.phase("search")->waitedSeconds, report.waitedSeconds, 1e-9);
  EXPECT_NE(report.summary().find("waited 7 s for quiet"), std::string::npos) << report.summary();
}

TEST(Contention, GivesUpAtTheLimitAndSaysSo) {
  SyntheticMachine machine({{0, 100, 0, 0.5, 1}});
  ContentionMonitor monitor(machine, waitingUpTo(5));
  monitor.beginPhase("search");
  EXPECT_FALSE(monitor.waitUntilQuiet());  // the limit is spent: no more waiting
  const double then = machine.now();
  EXPECT_GE(then, 5.0);
  EXPECT_LT(then, 5.5);
  EXPECT_TRUE(measureFor(monitor, machine, 0.1));
  EXPECT_FALSE(monitor.waitUntilQuiet());
  EXPECT_NEAR(machine.now(), then + 0.1, 1e-9);
  const ContentionReport report = monitor.finish();
  EXPECT_TRUE(report.gaveUp);
  EXPECT_NE(report.summary().find("the 5 s limit ran out while busy"), std::string::npos)
      << report.summary();
}

TEST(Contention, WithoutWaitQuietNothingWaits) {
  SyntheticMachine machine({{0, 100, 0.5, 0, 1}});
  ContentionMonitor monitor(machine, {});
  monitor.beginPhase("search");
  const double then = machine.now();
  EXPECT_FALSE(monitor.waitUntilQuiet());
  EXPECT_EQ(machine.now(), then);
  const Window w = monitor.open();
  machine.spend(0.1);
  EXPECT_TRUE(monitor.keepRound(w));  // a busy round is kept: nobody waits
}

TEST(Contention, AnInterruptStopsTheWaiting) {
  SyntheticMachine machine({{0, 1000, 0.5, 0, 1}});
  ContentionMonitor monitor(machine, waitingUpTo(600));
  std::atomic<bool> interrupted{true};
  monitor.setInterruptFlag(&interrupted);
  EXPECT_FALSE(monitor.waitUntilQuiet());
  EXPECT_LT(machine.now(), 1.0);
}

TEST(Contention, ABusyRoundIsMeasuredAgainAfterTheWait) {
  SyntheticMachine machine({{1, 3, 0.5, 0, 1}});
  ContentionMonitor monitor(machine, waitingUpTo(60));
  monitor.beginPhase("finalists");
  Window w = monitor.open();
  machine.spend(0.5);
  EXPECT_TRUE(monitor.keepRound(w));  // 0.0-0.5: quiet
  w = monitor.open();
  machine.spend(1.0);
  EXPECT_FALSE(monitor.keepRound(w));  // 0.5-1.5: busy; waits until 3
  EXPECT_GE(machine.now(), 3.0);
  w = monitor.open();
  machine.spend(0.5);
  EXPECT_TRUE(monitor.keepRound(w));
  const ContentionReport report = monitor.finish();
  EXPECT_EQ(report.phase("finalists")->roundsDiscarded, 1u);
}

// The watched measurement loop (HostMeasurer's, for every candidate) on the synthetic clock.
ContentionReport measureMany(SyntheticMachine& machine, double waitLimit, int count,
                             int* attempts) {
  ContentionMonitor monitor(machine, waitingUpTo(waitLimit));
  NoiseGuard guard(0.04, 4);
  monitor.beginPhase("search");
  *attempts = 0;
  for (int i = 0; i < count; ++i) {
    *attempts += measureWatched(guard, &monitor, [&] {
      machine.spend(0.1);
      return 1.0;  // the reference measures as usual: only the scheduler tells
    });
  }
  return monitor.finish();
}

TEST(Contention, WatchedMeasurementsAreCountedOrMeasuredAgainInQuiet) {
  // A load time-sliced with the tuner from 1 s to 3 s.
  int attempts = 0;
  SyntheticMachine reported({{1, 3, 0.5, 0, 1}});
  const ContentionReport busy = measureMany(reported, 0, 50, &attempts);
  EXPECT_EQ(attempts, 50);
  EXPECT_NEAR(busy.phase("search")->disturbedShare(), 0.4, 0.03);  // 20 of 50 in 1..3 s
  EXPECT_TRUE(busy.disturbed());
  EXPECT_NE(busy.summary().find("winner may differ in a quiet period"), std::string::npos);

  SyntheticMachine waited({{1, 3, 0.5, 0, 1}});
  const ContentionReport quiet = measureMany(waited, 60, 50, &attempts);
  EXPECT_EQ(quiet.phase("search")->measurements, 50u);
  EXPECT_EQ(quiet.phase("search")->disturbed, 0u);  // every kept one was quiet
  EXPECT_EQ(attempts, 51);                          // the one that met the load, again
  EXPECT_NEAR(quiet.waitedSeconds, 2.0, 0.4);
  EXPECT_FALSE(quiet.disturbed());
}

// A bowl over the space with its minimum (0.5) at `best`.
Evaluation bowlEvaluation(const gen::Params& p, const gen::Params& best) {
  Evaluation e;
  e.params = p;
  e.score = 0.5 + (p.carry == best.carry ? 0 : 0.2) + 0.01 * std::abs(p.chains - best.chains) +
            0.001 * std::abs(p.unroll - best.unroll) + 0.00001 * p.prefetch / 64;
  e.baselinePerByte = 0.05;
  e.scorePerByte = e.score * e.baselinePerByte;
  return e;
}

std::vector<Evaluation> bowl(const gen::Params& best) {
  std::vector<Evaluation> table;
  for (const gen::Params& p : SearchSpace(true).distinctKernels()) {
    if (p.prefetch == 0) table.push_back(bowlEvaluation(p, best));
  }
  return table;
}

// A bowl measured on the synthetic machine: each measurement takes 0.1 s and looks 30 %
// better than it is when it meets a busy period; the phases are reported to the monitor, as
// HostMeasurer does.
class BusyReplay : public ReplayMeasurer {
 public:
  BusyReplay(const gen::Params& best, SyntheticMachine& machine, ContentionMonitor& monitor)
      : ReplayMeasurer({}), best_(best), machine_(machine), monitor_(monitor) {}
  Evaluation measure(const gen::Params& params) override {
    Evaluation e;
    measureWatched(guard_, &monitor_, [&] {
      const bool busy = machine_.busyAt(machine_.now());
      machine_.spend(0.1);
      e = bowlEvaluation(params, best_);
      // Contention misleads: a kernel measured while the load runs looks 30 % better.
      if (busy) {
        e.score *= 0.7;
        e.scorePerByte *= 0.7;
      }
      return 1.0;
    });
    return e;
  }
  void beginPhase(const std::string& name) override { monitor_.beginPhase(name); }
  ContentionReport contention() override { return monitor_.finish(); }

 private:
  gen::Params best_;
  SyntheticMachine& machine_;
  ContentionMonitor& monitor_;
  NoiseGuard guard_{0.04, 4};
};

TuneRun shortRun() {
  TuneRun run;
  run.cpu = hostCpu();
  run.cpuKey = cpuKey(run.cpu);
  run.profile = *namedProfile("kernel");
  run.kernelSafe = true;
  run.search = {"random", 1, 0};
  run.budget = 60;
  return run;
}

TEST(Contention, AWholeTuneReportsEachPhase) {
  const gen::Params best = gen::parseParams("carry=adc,chains=4,unroll=24");
  SyntheticMachine machine({{0.5, 2.5, 0.5, 0, 1}});
  ContentionMonitor monitor(machine, {});
  BusyReplay measurer(best, machine, monitor);
  TuneRun run = shortRun();
  TuneSettings settings;
  settings.frameShapes = 0;
  settings.polishShapes = 0;
  tune(run, measurer, settings);
  ASSERT_TRUE(run.complete()) << run.failure << " " << run.stoppedBecause << " "
                              << static_cast<int>(run.end) << " " << run.evaluations.size();
  std::vector<std::string> names;
  for (const auto& p : run.contention.phases) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"search", "guard", "finalists", "placement", "sizes",
                                             "sweep"}));
  EXPECT_EQ(run.contention.phase("search")->measurements, run.uniqueThisRun);
  EXPECT_NEAR(run.contention.phase("search")->disturbedShare(), 20.0 / 60, 0.05);
  EXPECT_TRUE(run.contention.disturbed());
  EXPECT_NE(run.contention.summary().find("busy during 35 % of the search"), std::string::npos)
      << run.contention.summary();
  // The contention misled this run: on a quiet machine the same tune picks another winner.
  SyntheticMachine quietMachine({});
  ContentionMonitor quietMonitor(quietMachine, {});
  BusyReplay quiet(best, quietMachine, quietMonitor);
  TuneRun quietRun = shortRun();
  tune(quietRun, quiet, settings);
  ASSERT_TRUE(quietRun.complete());
  EXPECT_NE(run.finalists.front().params, quietRun.finalists.front().params);
  EXPECT_FALSE(quietRun.contention.disturbed());
}

TEST(Contention, WithWaitQuietAWholeTuneKeepsOnlyQuietMeasurements) {
  const gen::Params best = gen::parseParams("carry=adc,chains=4,unroll=24");
  SyntheticMachine machine({{2, 4, 0.5, 0, 1}});
  ContentionMonitor monitor(machine, waitingUpTo(60));
  BusyReplay measurer(best, machine, monitor);
  TuneRun run = shortRun();
  TuneSettings settings;
  settings.frameShapes = 0;
  settings.polishShapes = 0;
  tune(run, measurer, settings);
  ASSERT_TRUE(run.complete());
  // The winner of the same tune on a quiet machine.
  SyntheticMachine quietMachine({});
  ContentionMonitor quietMonitor(quietMachine, {});
  BusyReplay quiet(best, quietMachine, quietMonitor);
  TuneRun quietRun = shortRun();
  tune(quietRun, quiet, settings);
  ASSERT_TRUE(quietRun.complete());
  EXPECT_EQ(run.finalists.front().params, quietRun.finalists.front().params);
  EXPECT_EQ(run.contention.phase("search")->disturbed, 0u);
  EXPECT_NEAR(run.contention.waitedSeconds, 2.0, 0.4);
  EXPECT_FALSE(run.contention.disturbed());
}

// Final measurements that reverse the search's order of its two best: the second-best
// measures 10 % faster than the best, with tight intervals.
class ReversingReplay : public ReplayMeasurer {
 public:
  using ReplayMeasurer::ReplayMeasurer;
  std::vector<FinalistResult> remeasureFinalists(
      const std::vector<Evaluation>& finalists) override {
    ++measured;
    std::vector<FinalistResult> out = ReplayMeasurer::remeasureFinalists(finalists);
    for (FinalistResult& f : out) {
      if (f.params == favourite) {
        f.scorePerByte /= 1.2;
        f.speedup = {f.speedup.median * 1.2, f.speedup.median * 1.19, f.speedup.median * 1.21,
                     0.95};
      }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.scorePerByte < b.scorePerByte; });
    return out;
  }
  gen::Params favourite;
  int measured = 0;
};

TEST(Contention, AReversedRankingWidensTheFinalists) {
  const gen::Params best = gen::parseParams("carry=adc,chains=4,unroll=24");
  ReversingReplay measurer(bowl(best));
  TuneRun run = shortRun();
  run.search.algorithm = "exhaustive";
  run.budget = 100000;
  TuneSettings settings;
  settings.frameShapes = 0;
  settings.polishShapes = 0;
  settings.finalists = 3;
  tune(run, measurer, settings);
  ASSERT_TRUE(run.complete());
  EXPECT_TRUE(run.widened.empty()) << "a ranking the final measurement confirms is kept";
  EXPECT_EQ(measurer.measured, 1);

  // The search's third best measures faster than its best.
  ReversingReplay reversing(bowl(best));
  const auto ranked = topEvaluations(bowl(best), 3);
  reversing.favourite = ranked[2].params;
  TuneRun again = shortRun();
  again.search.algorithm = "exhaustive";
  again.budget = 100000;
  tune(again, reversing, settings);
  ASSERT_TRUE(again.complete());
  EXPECT_EQ(reversing.measured, 2);
  EXPECT_NE(again.widened.find("the search ranked"), std::string::npos) << again.widened;
  EXPECT_EQ(again.finalists.size(), 6u);  // twice as many, the best of each family among them
  for (const gen::CarryTraits* traits : gen::allCarryTraits()) {
    if (!traits->kernelSafe()) continue;
    EXPECT_TRUE(
        std::any_of(again.finalists.begin(), again.finalists.end(),
                    [&](const FinalistResult& f) { return f.params.carry == traits->carry; }))
        << traits->name;
  }
  EXPECT_EQ(again.finalists.front().params, reversing.favourite);
}

// Widening is for a ranking made under contention; it must not let in a kernel the guard kept
// out of the finalists (one that loses far more per call than they do), however fast the
// profile then measures it: when no candidate passes the guard, the widened finalists are
// those as close to passing as the first ones were.
TEST(Contention, WideningLetsInNoKernelThatLosesMoreAtTheGuardLengths) {
  class LosingReplay : public ReversingReplay {
   public:
    using ReversingReplay::ReversingReplay;
    gen::Params loser;  // the profile's fastest, the guard's worst
    std::vector<GuardResult> guard(const std::vector<gen::Params>& candidates,
                                   const std::vector<int>& lengths) override {
      auto out = ReplayMeasurer::guard(candidates, lengths);
      for (GuardResult& g : out) {
        g.worstRatio = 1.1;  // none passes
        g.excess = g.params == loser ? 5.0 : 0.2;
      }
      return out;
    }
    std::vector<FinalistResult> remeasureFinalists(
        const std::vector<Evaluation>& finalists) override {
      auto out = ReversingReplay::remeasureFinalists(finalists);
      for (FinalistResult& f : out) {
        if (f.params == loser) f.scorePerByte /= 1.5;
      }
      std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return a.scorePerByte < b.scorePerByte;
      });
      return out;
    }
  };
  const gen::Params best = gen::parseParams("carry=adc,chains=4,unroll=24");
  const auto ranked = topEvaluations(bowl(best), bowl(best).size());
  LosingReplay replay(bowl(best));
  replay.favourite = ranked[2].params;  // reverses the finalists' order: they are widened
  // The best of another family, which widening takes.
  replay.loser = std::find_if(ranked.begin(), ranked.end(), [&](const Evaluation& e) {
                   return e.params.carry != best.carry;
                 })->params;
  TuneRun run = shortRun();
  run.search.algorithm = "exhaustive";
  run.budget = 100000;
  TuneSettings settings;
  settings.frameShapes = 0;
  settings.polishShapes = 0;
  settings.finalists = 3;
  tune(run, replay, settings);
  ASSERT_TRUE(run.complete());
  ASSERT_FALSE(run.widened.empty());
  EXPECT_GT(run.finalists.size(), 3u);
  for (const FinalistResult& f : run.finalists)
    EXPECT_NE(f.params, replay.loser) << "widening let in what the guard kept out";
  EXPECT_EQ(run.finalists.front().params, replay.favourite);
}

// A gate that rejects chosen rounds once.
class RejectingGate : public RoundGate {
 public:
  explicit RejectingGate(std::vector<int> reject) : reject_(std::move(reject)) {}
  void roundStarts() override { ++started; }
  bool keepRound() override {
    const bool keep = std::find(reject_.begin(), reject_.end(), started - 1) == reject_.end();
    return keep;
  }
  int started = 0;

 private:
  std::vector<int> reject_;
};

std::uint32_t plainSum(const void* buf, int len, std::uint32_t sum) {
  const auto* p = static_cast<const std::uint8_t*>(buf);
  for (int i = 0; i < len; ++i) sum += p[i];
  return sum;
}

TEST(Contention, AMeasurementKeepsOnlyTheRoundsItsGateKeeps) {
  auto timer = makeTimer(true);
  WorkloadConfig config;
  config.setSizeBytes = 1 << 20;
  Workload workload(config, 256);
  RejectingGate gate({1, 3});
  MeasureConfig measure;
  measure.sizes = {16, 64};
  measure.repeat = 5;
  measure.targetBatchTicks = 2000;
  measure.warmupBatches = 1;
  measure.gate = &gate;
  const auto samples =
      measureInterleaved({{"a", "", TimedKind::Jit, plainSum}, {"b", "", TimedKind::Jit, plainSum}},
                         measure, *timer, workload);
  EXPECT_EQ(gate.started, 7);  // 5 rounds kept, 2 measured again
  for (const auto& k : samples) {
    for (const auto& s : k.sizes) EXPECT_EQ(s.perCall.size(), 5u);
  }
}

}  // namespace
}  // namespace csumtune::tuner
