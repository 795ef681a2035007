// Tuning as a library call: search the space with a strategy, re-measure the finalists,
// check the winner with the full plan, sweep it across lengths. The CLI only parses options,
// sets up the measurer and prints; tests run whole tunes on a replayed table.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "tune/tune_measurer.hpp"
#include "tune/tune_run.hpp"

namespace csumtune::tuner {

struct TuneSettings {
  std::size_t finalists = 5;
  // The polish stage: every loop shape near the best `polishShapes` ones (chains ±2, unroll
  // ±4, with and without prefetch), measured after the search and on top of its budget.
  std::size_t polishShapes = 3;
  // The frame stage: every short-path variant (tail, sum entry, entry test, short bound,
  // exact paths for the profile's lengths) of this many of the best loop shapes, measured
  // after the search and on top of its budget (0 = none).
  std::size_t frameShapes = 3;
  // The frame stage's short paths: bounds=strict only, or bounds=aligned ones as well.
  bool strictBounds = false;
  // The guard: the best `guardCandidates` kernels (and the best of each per-call form of the
  // best loop shape, guardCandidates()) are measured against the baseline at
  // `guardLengths` (lengths the profile may not weigh); the finalists are taken from those
  // no more than `guardTolerance` slower at any of them first. 0 candidates = no guard.
  // 136, 160 and 168 split the gap 129..176, where a wide vector loop takes its first tails
  // and entry=forty's 80-byte block its second pass: a winner chosen without them lost there,
  // hot (docs/tuning.md).
  std::size_t guardCandidates = 24;
  std::vector<int> guardLengths{1,   2,   3,   7,   8,   9,   15,  16,  20,  24,  31,  32,
                                33,  40,  48,  56,  63,  64,  65,  72,  80,  96,  100, 112,
                                127, 128, 129, 136, 160, 168, 176, 192, 255, 256, 384, 511};
  double guardTolerance = 0.02;
  // A candidate that lost beyond the tolerance at no more than this many guard points (a
  // length hot or cold) has them measured again, and the second measurement decides there; one
  // that lost at more loses for real. 0 = never measure again.
  std::size_t guardRepeatsUpTo = 4;
  // When the finalists' final measurement reverses the search's order of two of them by more
  // than this (beyond its confidence interval), the finalists are widened and measured again.
  double rankingTolerance = 0.02;
  // The middle-path stage (tune/middle_path.hpp): another middle bound replaces a SIMD
  // winner's only when its excess at the guard lengths is at most `middleExcessSlack` above
  // the winner's, measured together (a middle path trades a little at one length for more
  // at many: one sure loss of 10 % is that much), and its mean time ratio there at least
  // `middleMargin` smaller (a smaller difference is noise).
  double middleExcessSlack = 0.1;
  // The runoff: finalists whose excess at the guard lengths is within this of the least are
  // tied on it, and the one fastest per call among them wins (one kernel's excess moves by
  // about this much between two measurements).
  double runoffExcessSlack = 0.1;
  double middleMargin = 0.01;
  // The trade-off: the fastest kernel within each of these code sizes (bytes) is measured
  // together with the winner (limits the winner fits are skipped; empty = none).
  std::vector<std::size_t> sizeLimits{256, 384, 512, 768};
  SourceStyle style = SourceStyle::Kernel;  // wanted winner.S style; a SIMD winner is always gas
  const std::atomic<bool>* interrupted = nullptr;
  std::vector<Evaluation> earlier;                 // --resume: known without measuring
  std::function<void(const Evaluator&)> progress;  // after each unique evaluation
  // At the start of each phase (search, polish, frames, guard, finalists, sizes, sweep), with
  // the number of steps the progress callback counts in it (0: it does not call it).
  std::function<void(const std::string& phase, std::size_t steps)> phaseStarted;
};

// Fills `run` (whose identity, profile, space and search fields the caller has set) with
// the search, the finalists and the winner. run.end says how it ended; nothing is written.
void tune(TuneRun& run, TuneMeasurer& measurer, const TuneSettings& settings);

}  // namespace csumtune::tuner
