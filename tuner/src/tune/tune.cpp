#include "tune/tune.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "csumtune/gen/kernel_program.hpp"
#include "search/code_size_tradeoff.hpp"
#include "search/space.hpp"
#include "tune/finalist_results.hpp"
#include "tune/guard_tally.hpp"
#include "tune/middle_path.hpp"

namespace csumtune::tuner {
namespace {

// The best `shapes` distinct loop shapes measured so far, best first.
std::vector<gen::Params> bestLoops(const Evaluator& evaluator, std::size_t shapes) {
  std::vector<gen::Params> loops;
  for (const Evaluation& e :
       topEvaluations(evaluator.evaluations(), evaluator.evaluations().size())) {
    if (loops.size() == shapes) break;
    const gen::Params loop = loopOf(e.params);
    if (std::find(loops.begin(), loops.end(), loop) == loops.end()) loops.push_back(loop);
  }
  return loops;
}

// A stage after the search proper: measures `candidates` on top of the budget. Returns how
// many were new and how the stage ended.
std::pair<std::size_t, std::string> measureStage(Evaluator& evaluator,
                                                 const std::vector<gen::Params>& candidates) {
  const std::size_t before = evaluator.uniqueThisRun();
  evaluator.extendBudget(candidates.size());
  evaluator.beginPhase(0, 0);
  std::string how = "done";
  try {
    for (const gen::Params& c : candidates) evaluator(c);
  } catch (const SearchStopped& stop) {
    how = stop.what();
  }
  return {evaluator.uniqueThisRun() - before, how};
}

// Every valid loop shape near `loop`: chains within 2, unroll within 4, the same prefetch
// and none; for a copying loop of a general-purpose family, with either store form.
std::vector<gen::Params> loopNeighbours(const gen::Params& loop) {
  std::vector<gen::Params> out;
  const bool stores = loop.kind == gen::Kind::Copy && gen::traitsOf(loop.carry).kernelSafe();
  for (int chains = loop.chains - 2; chains <= loop.chains + 2; ++chains) {
    for (int unroll = loop.unroll - 4; unroll <= loop.unroll + 4; ++unroll) {
      for (int prefetch : {loop.prefetch, 0}) {
        for (gen::Store store : {gen::Store::Plain, gen::Store::Nt}) {
          if (store != loop.store && !stores) continue;
          gen::Params p = gen::loopKeysOf(loop);
          p.chains = chains;
          p.unroll = unroll;
          p.prefetch = prefetch;
          p.store = store;
          p = p.canonical();
          if (gen::validationError(p).empty() && std::find(out.begin(), out.end(), p) == out.end())
            out.push_back(p);
        }
      }
    }
  }
  return out;
}

// The polish stage: the search's continuous coordinates are rounded to a lattice on which
// unroll must be a multiple of chains, and a noisy search can settle in one basin and never
// visit a better neighbour (seeds have ended on the widest loop with a prefetch while a
// slightly narrower loop without one was faster). The neighbours of the best `shapes` loop
// shapes are measured.
// Tells the measurer (phases it measures differently) and whoever shows progress.
void startPhase(TuneMeasurer* measurer, const TuneSettings& settings, const std::string& name,
                std::size_t steps) {
  if (measurer) measurer->beginPhase(name);
  if (settings.phaseStarted) settings.phaseStarted(name, steps);
}

// The best loop shape of each carry family measured whose best score is at most `within`
// times the best of all, best first.
std::vector<gen::Params> bestLoopOfEachFamily(const Evaluator& evaluator,
                                              double within = std::numeric_limits<double>::max()) {
  std::vector<gen::Params> loops;
  const auto ranked = topEvaluations(evaluator.evaluations(), evaluator.evaluations().size());
  for (const Evaluation& e : ranked) {
    if (e.score > within * ranked.front().score) break;
    const bool seen = std::any_of(loops.begin(), loops.end(),
                                  [&](const gen::Params& p) { return p.carry == e.params.carry; });
    if (!seen) loops.push_back(loopOf(e.params));
  }
  return loops;
}

std::string polishLoops(Evaluator& evaluator, std::size_t shapes, const TuneSettings& settings) {
  if (shapes == 0) return "polish: not done";
  // The best shapes, and the best of each family too: a family searched in a noisy moment can
  // settle on a prefetch its neighbour without one beats, and then never reaches the frame
  // stage, however fast that neighbour is.
  auto loops = bestLoops(evaluator, shapes);
  const std::size_t best = loops.size();
  for (const gen::Params& loop : bestLoopOfEachFamily(evaluator)) {
    if (std::find(loops.begin(), loops.end(), loop) == loops.end()) loops.push_back(loop);
  }
  std::vector<gen::Params> neighbours;
  for (const gen::Params& loop : loops) {
    for (const gen::Params& n : loopNeighbours(loop)) {
      if (std::find(neighbours.begin(), neighbours.end(), n) == neighbours.end())
        neighbours.push_back(n);
    }
  }
  startPhase(nullptr, settings, "polish", neighbours.size());
  const auto [measured, how] = measureStage(evaluator, neighbours);
  return fmt::format(
      "polish: {} neighbouring loop shapes of the best {} and of the best of each other carry "
      "family ({}) (chains ±2, unroll ±4, prefetch as found and none), {} measured; {}",
      neighbours.size(), best, loops.size() - best, measured, how);
}

// How far behind the best loop shape (score ratio) a family's best may be and still get the
// frame stage.
constexpr double kFrameFamilyReach = 1.25;

// A SIMD kernel without a scalar short path where its loop could have one: its short buffers
// run the vector set-up and reduction (the default winner that lost 1.5-1.8x to Linux at
// 8-31 bytes was one). The frame stage does not offer them (docs/tuning.md).
bool lacksPossibleShortPath(const gen::Params& p) {
  if (!gen::traitsOf(p.carry).isVector() || p.hasShortPath()) return false;
  gen::Params shortest = p;
  shortest.shortBelow = gen::ParamLimits::kShortBounds[0];
  return shortest.hasShortPath();
}

// The frame stage: the search ranked loop shapes with the default short path; here the best
// `shapes` of them get every short-path variant, with exact paths for the profile's lengths.
// Then the size classes: the best `shapes` SIMD frames measured so far, and the best of each
// per-call form of the best loop shape, get every middle path (mid=N) with every short bound
// below it — the two crossovers, tried together.
std::string searchFrames(const TuneRun& run, Evaluator& evaluator, std::size_t shapes,
                         const TuneSettings& settings) {
  if (shapes == 0) return "frames: not searched";
  // The best shapes, and the best of each family close behind them: a loop shape is ranked
  // with the default frame, which suits the families unequally, so a family a little behind
  // may be the one whose frames win (docs/tuning.md).
  auto loops = bestLoops(evaluator, shapes);
  const std::size_t best = loops.size();
  for (const gen::Params& loop : bestLoopOfEachFamily(evaluator, kFrameFamilyReach)) {
    if (std::find(loops.begin(), loops.end(), loop) == loops.end()) loops.push_back(loop);
  }
  std::vector<int> lengths;
  for (const auto& entry : run.profile.entries) lengths.push_back(entry.size);
  std::vector<gen::Params> variants;
  for (const gen::Params& loop : loops) {
    for (const gen::Params& v : gen::frameVariants(
             loop, lengths,
             settings.strictBounds ? gen::FrameBounds::StrictOnly : gen::FrameBounds::Both))
      // byteload=pointer is byteload=straight with a taken jump on the aligned path: the
      // profile's buffers are aligned, so it can only tie or lose, and the stage's time goes
      // to the other loop shapes instead.
      if (!lacksPossibleShortPath(v) && v.byteLoad != gen::ByteLoad::Pointer) variants.push_back(v);
  }
  startPhase(nullptr, settings, "frames", variants.size());
  const auto [measured, how] = measureStage(evaluator, variants);
  std::string text = fmt::format(
      "frames: {} short-path variants of the best {} loop shapes and of the best "
      "of each other family within {:.0f} % of them ({}), {} measured; {}",
      variants.size(), best, 100 * (kFrameFamilyReach - 1), loops.size() - best, measured, how);
  if (how != "done") return text;
  std::vector<gen::Params> classes;
  std::size_t frames = 0;
  // The best `shapes` SIMD frames, and of the best loop shape the best frame of each per-call
  // form (entry test, sum entry, tail chains): the profile cannot rank those, and which one
  // a middle path suits best shows only at the lengths the guard measures.
  std::vector<gen::Params> forms;
  const auto ranked = topEvaluations(evaluator.evaluations(), evaluator.evaluations().size());
  for (const Evaluation& e : ranked) {
    if (!gen::traitsOf(e.params.carry).isVector() || e.params.mid != 0) continue;
    const bool newForm = loopOf(e.params) == loopOf(ranked.front().params) &&
                         std::none_of(forms.begin(), forms.end(), [&](const gen::Params& f) {
                           return f.entry == e.params.entry && f.sum == e.params.sum &&
                                  f.tailChains == e.params.tailChains;
                         });
    if (newForm) forms.push_back(e.params);
    if (frames >= shapes && !newForm) continue;
    ++frames;
    for (const gen::Params& v : gen::sizeClassVariants(e.params)) {
      if (settings.strictBounds && v.bounds != gen::Bounds::Strict) continue;
      if (!lacksPossibleShortPath(v) &&
          std::find(classes.begin(), classes.end(), v) == classes.end())
        classes.push_back(v);
    }
  }
  if (classes.empty()) return text;
  startPhase(nullptr, settings, "size classes", classes.size());
  const auto [classesMeasured, classesHow] = measureStage(evaluator, classes);
  return text + fmt::format(
                    "; size classes: {} middle-path variants (mid, short) of {} SIMD frames "
                    "(the best, and the best of each per-call form of the best loop shape), {} "
                    "measured; {}",
                    classes.size(), frames, classesMeasured, classesHow);
}

// Measures again, once, the points (a length, hot or cold) where a candidate lost beyond
// `limit`, for each candidate that lost at no more than `upTo` of them; the second
// measurement decides there. A disturbance that lasts a moment (an interrupt storm, a
// neighbour's burst) can lift one interval above the tolerance at a length or two and rule
// out a kernel for it; a loss in the code shows in both measurements. Candidates that lost at
// more points lose for real, and are not measured again.
void repeatFewLosses(TuneMeasurer& measurer, std::vector<GuardResult>& results, double limit,
                     std::size_t upTo) {
  for (GuardResult& first : results) {
    std::vector<int> lengths;  // one per lost point: its count is the points'
    for (const GuardPoint& p : first.points)
      if (p.paired.low > limit) lengths.push_back(p.length);
    if (lengths.empty() || lengths.size() > upTo) continue;
    std::sort(lengths.begin(), lengths.end());
    lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
    const auto again = measurer.guard({first.params}, lengths);
    if (const GuardResult* second = findGuardResult(again, first.params))
      first = GuardTally::repeatLosses(first, *second, limit);
  }
}

// The guard's verdict on `candidates`, each marked eligible when it is not slower than the
// baseline at any guard length beyond the tolerance (where a few lost, in their second
// measurement).
std::vector<GuardResult> guardedResults(TuneMeasurer& measurer,
                                        const std::vector<gen::Params>& candidates,
                                        const TuneSettings& settings) {
  auto results = measurer.guard(candidates, settings.guardLengths);
  const double limit = 1 + settings.guardTolerance;
  repeatFewLosses(measurer, results, limit, settings.guardRepeatsUpTo);
  for (GuardResult& g : results) g.eligible = g.loss() <= limit;
  return results;
}

// The finalists, taken first from the best candidates that are not slower than the
// baseline at any guard length (beyond the tolerance), then from the others, those that lose
// least first: when none passes, the finalists are the ones closest to passing (the smallest
// excess over the baseline summed over the guard lengths, then the smallest worst ratio), not
// the profile's best, which may lose badly at a length it does not weigh. The sum, not the
// worst ratio alone: over the guard's lengths, hot and cold, the worst one is mostly the noisiest.
std::vector<Evaluation> guardedFinalists(TuneRun& run, TuneMeasurer& measurer,
                                         const TuneSettings& settings) {
  const auto best = guardCandidates(run.evaluations, settings.guardCandidates);
  std::vector<gen::Params> params;
  for (const Evaluation& e : best) params.push_back(e.params);
  run.guardLengths = settings.guardLengths;
  run.guardTolerance = settings.guardTolerance;
  run.guardRepeatsUpTo = settings.guardRepeatsUpTo;
  run.guard = guardedResults(measurer, params, settings);
  std::vector<Evaluation> eligible;
  std::vector<std::pair<std::pair<double, double>, Evaluation>> others;
  for (std::size_t i = 0; i < best.size(); ++i) {
    if (run.guard[i].eligible) {
      eligible.push_back(best[i]);
    } else {
      others.emplace_back(std::pair{run.guard[i].excess, run.guard[i].worstRatio}, best[i]);
    }
  }
  std::stable_sort(others.begin(), others.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [loss, e] : others) eligible.push_back(std::move(e));
  if (eligible.size() > settings.finalists) eligible.resize(settings.finalists);
  return eligible;
}

// Whether the guard passed `params` (a kernel it did not measure counts as passed).
bool guarded(const TuneRun& run, const gen::Params& params) {
  const GuardResult* g = findGuardResult(run.guard, params);
  return !g || g->eligible;
}

// Measures the finalists (best first), the ones the guard found slower somewhere last: they
// win only when no guarded one is left.
std::vector<FinalistResult> measureFinalists(const TuneRun& run, TuneMeasurer& measurer,
                                             const std::vector<Evaluation>& top) {
  auto finalists = measurer.remeasureFinalists(top);
  std::stable_partition(finalists.begin(), finalists.end(),
                        [&](const FinalistResult& f) { return guarded(run, f.params); });
  return finalists;
}

// Where the final measurement reverses the search's ranking beyond its confidence interval
// and the tolerance: a pair the search put in one order that is measured, significantly, the
// other way round. A ranking made under contention looks like this.
std::optional<std::string> rankingReversed(const std::vector<FinalistResult>& finalists,
                                           double tolerance) {
  for (const FinalistResult& a : finalists) {
    for (const FinalistResult& b : finalists) {
      if (!(a.searchScore < b.searchScore)) continue;  // the search put a before b
      if (a.speedup.low <= 0 || b.speedup.low <= 0) continue;
      // time(a) / time(b) = speedup(b) / speedup(a); its lower bound from the intervals.
      const double low = b.speedup.low / a.speedup.high;
      if (low > 1 + tolerance) {
        return fmt::format("the search ranked {} before {}; measured again it is {:.1f} % slower",
                           a.params.toString(), b.params.toString(),
                           100 * (b.speedup.median / a.speedup.median - 1));
      }
    }
  }
  return std::nullopt;
}

// The profile cannot tell every finalist apart: a frame that loses nowhere and one that loses
// 20 % cold at 48 B can be within each other's confidence interval on a profile of three
// lengths. The finalists whose interval overlaps the first one's (of its class: passed by
// the guard or not) are measured again together at the guard's lengths, hot and cold, in
// one interleaved run — the guard measured each beside the baseline alone, at its own time,
// and so cannot rank them against each other — and the one that loses least goes first: the
// smallest excess, the mean of the guard's and the runoff's (two measurements, so that one
// noisy one decides less; an excess within `runoffExcessSlack` of the least is a tie), then
// the fastest per call (the smallest geometric mean of the time ratios: the finalists' sure
// losses are often all nil or alike), then the smallest excess and worst ratio.
// Overlapping intervals are a
// generous test of a tie: the runoff may give up a few percent of the profile for fewer
// per-call losses. When no finalist passed the guard, a profile up to kUnguardedRunoffReach
// slower counts as a tie too.
void runoff(TuneRun& run, TuneMeasurer& measurer, const TuneSettings& settings) {
  if (run.guard.empty() || run.finalists.size() < 2) return;
  const FinalistResult& first = run.finalists.front();
  const bool firstGuarded = guarded(run, first.params);
  std::vector<gen::Params> tied;
  // When none passed the guard, each finalist loses somewhere, and where it loses weighs more
  // than a point of the profile: those within kUnguardedRunoffReach of the first's interval
  // go to the runoff too.
  const double reach = firstGuarded ? 1.0 : 1.0 - kUnguardedRunoffReach;
  for (const FinalistResult& f : run.finalists) {
    const bool overlaps =
        f.speedup.high >= first.speedup.low * reach && f.speedup.low <= first.speedup.high;
    if (guarded(run, f.params) == firstGuarded && overlaps) tied.push_back(f.params);
  }
  if (tied.size() < 2) return;
  startPhase(&measurer, settings, "runoff", 0);
  run.runoff = measurer.guardTogether(tied, settings.guardLengths);
  run.runoffExcessSlack = settings.runoffExcessSlack;
  run.runoffUnguardedReach = firstGuarded ? 0 : kUnguardedRunoffReach;
  // An interrupted measurement may come back short: nothing to rank then.
  if (run.runoff.size() != tied.size()) return;
  const auto meanExcess = [&](const GuardResult& g) {
    const GuardResult* earlier = findGuardResult(run.guard, g.params);
    return earlier ? (earlier->excess + g.excess) / 2 : g.excess;
  };
  double leastExcess = meanExcess(run.runoff.front());
  for (const GuardResult& g : run.runoff) leastExcess = std::min(leastExcess, meanExcess(g));
  // An excess within the slack of the least is a tie: the same kernel's sure excess moves by
  // about that much between two measurements.
  const auto nearLeast = [&](const GuardResult& g) {
    return meanExcess(g) <= leastExcess + settings.runoffExcessSlack;
  };
  const auto least = std::min_element(
      run.runoff.begin(), run.runoff.end(), [&](const GuardResult& a, const GuardResult& b) {
        return std::tuple{!nearLeast(a), a.meanRatio, meanExcess(a), a.worstRatio} <
               std::tuple{!nearLeast(b), b.meanRatio, meanExcess(b), b.worstRatio};
      });
  const auto chosen =
      std::find_if(run.finalists.begin(), run.finalists.end(),
                   [&](const FinalistResult& f) { return f.params == least->params; });
  std::rotate(run.finalists.begin(), chosen, chosen + 1);
}

// `replacement` (the winner at another placement) takes the winner's place and search score.
void replaceWinner(std::vector<FinalistResult>& finalists, const FinalistResult& replacement) {
  const double searchScore = finalists.front().searchScore;
  finalists.front() = replacement;
  finalists.front().searchScore = searchScore;
}

// Where the winner's code sits decides a cycle of a short call either way (how its branches
// and their targets fall into the lines the front end fetches), and so whether it loses to
// the reference at a short length by one cycle in ten; so does where its jump targets fall in
// the 16-byte windows the front end fetches from. The same kernel at each placement, with its
// jump targets packed and aligned, is measured together at the guard's lengths, hot and cold;
// the one that loses least (the smallest excess, then the smallest mean and worst ratios; the
// winner's own layout on a tie) is then measured on the profile together with the winner as
// it was, and replaces it only if it is not slower there: every figure printed for the winner
// is then its own layout's. At shared addresses every round puts each kernel at the address it
// draws (16-byte aligned), so only the targets are the kernel's to choose.
void place(TuneRun& run, TuneMeasurer& measurer, const TuneSettings& settings) {
  if (run.finalists.empty()) return;
  const gen::Params winner = run.finalists.front().params;
  const std::vector<int> offsets =
      measurer.sharesAddresses() ? std::vector<int>{winner.place} : gen::allPlacements();
  // Aligned targets whose every fill is empty are the packed kernel's bytes: not a layout.
  gen::Params packed = winner, aligned = winner;
  packed.targets = gen::Targets::Packed;
  aligned.targets = gen::Targets::Aligned;
  const bool targetsDiffer =
      gen::KernelProgram(packed).bytes() != gen::KernelProgram(aligned).bytes();
  std::vector<gen::Params> placed{winner};
  for (gen::Targets targets : {gen::Targets::Packed, gen::Targets::Aligned}) {
    if (targets != winner.targets && !targetsDiffer) continue;
    for (int offset : offsets) {
      gen::Params p = winner;
      p.place = offset;
      p.targets = targets;
      if (!(p == winner)) placed.push_back(p);
    }
  }
  if (placed.size() < 2) return;
  startPhase(&measurer, settings, "placement", 0);
  run.placement = measurer.guardPlacements(placed, settings.guardLengths);
  if (run.placement.size() != placed.size()) {
    run.placement.clear();
    return;
  }
  const GuardResult& least = leastLosing(run.placement);
  if (least.params == winner) return;
  // Measured again on the profile, all the finalists and the moved winner together, so that
  // every figure printed for them comes from one measurement.
  std::vector<Evaluation> again;
  for (const FinalistResult& f : run.finalists)
    again.push_back(evaluationOf(run.evaluations, f.params));
  Evaluation moved = evaluationOf(run.evaluations, winner);
  moved.params = least.params;
  again.push_back(moved);
  const auto measured = measurer.remeasureFinalists(again);
  const FinalistResult* was = resultOf(measured, winner);
  const FinalistResult* now = resultOf(measured, least.params);
  if (!was || !now) return;
  auto finalists = remeasuredInOrder(run.finalists, measured);
  if (!finalists) return;
  run.placementProfile = {was->speedup, now->speedup};
  if (!(now->speedup.median < was->speedup.median)) replaceWinner(*finalists, *now);
  run.finalists = std::move(*finalists);
}

// The finalists, widened: those already measured, the best of every carry family, and the
// next best overall, up to twice as many.
std::vector<Evaluation> widenedFinalists(const TuneRun& run, std::size_t count) {
  const auto ranked = topEvaluations(run.evaluations, run.evaluations.size());
  std::vector<Evaluation> wider;
  auto has = [&](const gen::Params& p) {
    return std::any_of(wider.begin(), wider.end(),
                       [&](const Evaluation& e) { return e.params == p; });
  };
  for (const FinalistResult& f : run.finalists) {
    const auto it = std::find_if(ranked.begin(), ranked.end(),
                                 [&](const Evaluation& e) { return e.params == f.params; });
    if (it != ranked.end() && !has(it->params)) wider.push_back(*it);
  }
  for (const gen::CarryTraits* traits : gen::allCarryTraits()) {
    const auto it = std::find_if(ranked.begin(), ranked.end(), [&](const Evaluation& e) {
      return e.params.carry == traits->carry;
    });
    if (it != ranked.end() && !has(it->params)) wider.push_back(*it);
  }
  for (const Evaluation& e : ranked) {
    if (wider.size() >= 2 * count) break;
    if (!has(e.params)) wider.push_back(e);
  }
  return wider;
}

// Of the widened finalists, those that pass the guard or lose no more at its lengths than the
// finalists chosen before did (an excess at most the largest of theirs): widening is for a
// ranking made under contention, and must not let in a kernel that the guard's choice of
// finalists (the ones closest to passing) had kept out, only for the profile to rank it first.
std::vector<Evaluation> asCloseToPassing(const TuneRun& run, std::vector<Evaluation> wider) {
  double largest = 0;
  for (const FinalistResult& f : run.finalists) {
    if (const GuardResult* g = findGuardResult(run.guard, f.params))
      largest = std::max(largest, g->eligible ? 0.0 : g->excess);
  }
  std::erase_if(wider, [&](const Evaluation& e) {
    const GuardResult* g = findGuardResult(run.guard, e.params);
    return g && !g->eligible && g->excess > largest;
  });
  return wider;
}

// The trade-off, measured: the fastest kernel of the Pareto front within each size limit the
// winner does not fit, and the winner, all in one interleaved measurement.
std::vector<SizeLimitResult> measureSizeLimits(const TuneRun& run, TuneMeasurer& measurer,
                                               std::vector<std::size_t> limits) {
  const FinalistResult& winner = run.finalists.front();
  const auto front = paretoFront(run.evaluations);
  std::vector<SizeLimitResult> rows{{0, winner.params, winner.bytes, {}, 1}};
  std::sort(limits.begin(), limits.end());
  for (std::size_t limit : limits) {
    if (winner.bytes == 0 || limit >= winner.bytes) break;
    if (const auto best = bestWithin(front, limit))
      rows.push_back({limit, best->params, best->bytes, {}, 0});
  }
  if (rows.size() == 1) return {};
  std::vector<Evaluation> measured;
  for (const SizeLimitResult& row : rows) {
    if (std::none_of(measured.begin(), measured.end(),
                     [&](const Evaluation& e) { return e.params == row.params; })) {
      measured.push_back(evaluationOf(run.evaluations, row.params));
    }
  }
  const auto results = measurer.remeasureFinalists(measured);
  auto speedupOf = [&](const gen::Params& p) {
    const auto it = std::find_if(results.begin(), results.end(),
                                 [&](const FinalistResult& f) { return f.params == p; });
    return it != results.end() ? it->speedup : RatioEstimate{};
  };
  const double winnerSpeedup = speedupOf(winner.params).median;
  for (SizeLimitResult& row : rows) {
    row.speedup = speedupOf(row.params);
    row.relative = winnerSpeedup > 0 ? row.speedup.median / winnerSpeedup : 0;
  }
  return rows;
}

void tuneInterruptibly(TuneRun& run, TuneMeasurer& measurer, const TuneSettings& settings);

}  // namespace

void tune(TuneRun& run, TuneMeasurer& measurer, const TuneSettings& settings) {
  measurer.setInterruptFlag(settings.interrupted);
  try {
    tuneInterruptibly(run, measurer, settings);
  } catch (const PhaseInterrupted&) {
    // An interrupt in the middle of a measuring phase: what was measured before it is kept.
    run.finalists.clear();
    run.sweep.clear();
    run.end = TuneEnd::Interrupted;
    run.noiseRetries = measurer.noiseRetries();
    run.contention = measurer.contention();
  }
}

namespace {

void tuneInterruptibly(TuneRun& run, TuneMeasurer& measurer, const TuneSettings& settings) {
  const SearchSpace space(run.kernelSafe, run.kind);
  const SmallestKernel smallest = smallestKernel(run.kernelSafe, run.kind);
  run.smallestParams = smallest.params;
  run.smallestBytes = smallest.bytes;
  Evaluator evaluator(measurer, {run.budget, run.timeLimitSeconds, settings.interrupted},
                      settings.progress);
  evaluator.preload(settings.earlier);
  startPhase(&measurer, settings, "search", run.budget);
  const SearchOutcome outcome = runSearch(space, evaluator, run.search);
  run.phases = outcome.phases;
  if (!(settings.interrupted && settings.interrupted->load()))
    run.phases.push_back(polishLoops(evaluator, settings.polishShapes, settings));
  if (!(settings.interrupted && settings.interrupted->load()))
    run.phases.push_back(searchFrames(run, evaluator, settings.frameShapes, settings));
  run.searchSeconds = evaluator.elapsedSeconds();
  run.evaluations = evaluator.evaluations();
  run.uniqueThisRun = evaluator.uniqueThisRun();
  run.revisits = evaluator.revisits();
  run.stoppedBecause = outcome.stoppedBecause;
  auto finish = [&](TuneEnd end, std::string failure = {}) {
    run.end = end;
    run.failure = std::move(failure);
    run.noiseRetries = measurer.noiseRetries();
    run.contention = measurer.contention();
    run.elapsedSeconds = evaluator.elapsedSeconds();
  };

  if (settings.interrupted && settings.interrupted->load()) return finish(TuneEnd::Interrupted);
  auto top = topEvaluations(run.evaluations, settings.finalists);
  if (top.empty() && run.evaluations.empty()) {
    return finish(TuneEnd::NothingMeasured,
                  fmt::format("no candidate was measured: the time limit ({} s) ran out first{}",
                              run.timeLimitSeconds,
                              run.waitQuietSeconds > 0
                                  ? " while waiting for the machine to go quiet (--wait-quiet); "
                                    "give --time more than --wait-quiet, or tune when it is quiet"
                                  : ""));
  }
  // Nothing wrong, only nothing small enough (every correct kernel over the size limit): not
  // a failed check.
  const auto count = [&](EvalStatus status) {
    return std::count_if(run.evaluations.begin(), run.evaluations.end(),
                         [&](const Evaluation& e) { return e.status == status; });
  };
  if (top.empty() && count(EvalStatus::Wrong) == 0 && count(EvalStatus::TooBig) > 0) {
    return finish(TuneEnd::NothingMeasured,
                  fmt::format("no candidate could win: of {} evaluated, {} were over the size "
                              "limit ({} bytes) and {} were refused, none was wrong; allow more "
                              "bytes or a larger budget",
                              run.evaluations.size(), count(EvalStatus::TooBig),
                              run.measure.maxBytes, count(EvalStatus::Refused)));
  }
  if (top.empty()) return finish(TuneEnd::NoCorrectCandidate, "no correct candidate was found");
  if (settings.guardCandidates > 0) {
    startPhase(&measurer, settings, "guard", 0);
    top = guardedFinalists(run, measurer, settings);
    if (settings.interrupted && settings.interrupted->load()) return finish(TuneEnd::Interrupted);
  }
  startPhase(&measurer, settings, "finalists", 0);
  run.finalists = measureFinalists(run, measurer, top);
  if (settings.interrupted && settings.interrupted->load()) return finish(TuneEnd::Interrupted);
  // Don't settle for a ranking made under contention: when the final measurement reverses
  // it, the finalists are widened (the best of each family too) and measured again together.
  if (auto reversal = rankingReversed(run.finalists, settings.rankingTolerance)) {
    auto wider = widenedFinalists(run, settings.finalists);
    std::vector<gen::Params> unguarded;
    for (const Evaluation& e : wider) {
      if (settings.guardCandidates > 0 &&
          std::none_of(run.guard.begin(), run.guard.end(),
                       [&](const GuardResult& g) { return g.params == e.params; }))
        unguarded.push_back(e.params);
    }
    if (!unguarded.empty()) {
      for (GuardResult& g : guardedResults(measurer, unguarded, settings))
        run.guard.push_back(std::move(g));
    }
    if (settings.guardCandidates > 0) wider = asCloseToPassing(run, std::move(wider));
    run.finalists = measureFinalists(run, measurer, wider);
    run.widened = fmt::format(
        "{}: the finalists were widened to {} (the best of each carry family too) and measured "
        "again together",
        *reversal, wider.size());
    if (settings.interrupted && settings.interrupted->load()) return finish(TuneEnd::Interrupted);
  }
  if (settings.guardCandidates > 0) {
    runoff(run, measurer, settings);
    if (settings.interrupted && settings.interrupted->load()) return finish(TuneEnd::Interrupted);
    chooseMiddlePath(run, measurer,
                     {settings.guardLengths, settings.guardTolerance, settings.middleExcessSlack,
                      settings.middleMargin},
                     [&] { startPhase(&measurer, settings, "middle", 0); });
    if (settings.interrupted && settings.interrupted->load()) return finish(TuneEnd::Interrupted);
    place(run, measurer, settings);
    if (settings.interrupted && settings.interrupted->load()) return finish(TuneEnd::Interrupted);
  }
  if (!settings.sizeLimits.empty()) {
    startPhase(&measurer, settings, "sizes", 0);
    run.sizeLimits = measureSizeLimits(run, measurer, settings.sizeLimits);
    if (settings.interrupted && settings.interrupted->load()) return finish(TuneEnd::Interrupted);
  }
  const gen::Params& winner = run.finalists.front().params;
  // The one place the winner's style is decided: a SIMD kernel cannot go into the kernel.
  run.style = settings.style == SourceStyle::Gas || !gen::traitsOf(winner.carry).kernelSafe()
                  ? SourceStyle::Gas
                  : SourceStyle::Kernel;
  // Every candidate passed the quick plan before it was timed; the winner passes the full one.
  if (auto failure = measurer.failsFullPlan(winner)) {
    return finish(TuneEnd::WinnerFailedFullPlan,
                  "the winner failed the full correctness plan: " + *failure);
  }
  if (settings.interrupted && settings.interrupted->load()) return finish(TuneEnd::Interrupted);
  startPhase(&measurer, settings, "sweep", 0);
  run.sweep = measurer.sweep(winner);
  if (settings.interrupted && settings.interrupted->load()) return finish(TuneEnd::Interrupted);
  finish(TuneEnd::Complete);
}

}  // namespace

}  // namespace csumtune::tuner
