// report.md for a tuning run, plus its SVG plots (sweep.svg by gnuplot when it is installed).
#pragma once

#include <string>
#include <vector>

#include "tune/tune_run.hpp"

namespace csumtune::tuner {

// The markdown; `plots` lists the SVG files (relative names) that exist beside it.
std::string renderTuneReport(const TuneRun& run, const std::vector<std::string>& plots);

// Where the winner's sweep is slower than the baseline, for one cache state.
struct SlowerLengths {
  std::vector<int> lengths;  // ascending
  std::size_t measured = 0;  // lengths swept in this cache state
  double worstRatio = 0;     // the highest time ratio winner / baseline (any length)
  int worstLength = 0;
  // Where the paired ratio's 95 % interval is above 1 (SweepPoint::significantlySlower).
  std::vector<int> significantlySlower;  // ascending
  // Against the file at each of its placements (when the sweep measured them): the lengths
  // where the winner is slower than the file at its slowest placement, i.e. wherever it sits.
  bool placed = false;
  std::vector<int> slowerThanEveryPlacement;  // ascending
  double worstPlacedRatio = 0;
  int worstPlacedLength = 0;
};
struct SweepSummary {
  SlowerLengths hot, cold;
  bool paired = false;  // the sweep recorded paired intervals (runs before it did not)
};
SweepSummary summarizeSweep(const TuneRun& run);

// One line for the terminal: "slower than B at 3 of 267 lengths hot (worst 1.040 at 16 B), 0
// of 267 cold"; empty without a sweep.
std::string sweepSummaryLine(const TuneRun& run);

// An SVG drawn for the report: its file name and content.
struct Plot {
  std::string name;
  std::string svg;
};

// Draws sweep.svg (winner / reference time at every swept length, hot and cold) with gnuplot,
// and space.svg (score against unroll for every correct evaluation, one colour per carry
// family; pareto_svg.hpp) itself. Without gnuplot (or when it fails) there is no sweep.svg
// and `why` says so.
std::vector<Plot> drawPlots(const TuneRun& run, std::string* why);

}  // namespace csumtune::tuner
