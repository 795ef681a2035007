// report.md for a tuning run, plus SVG plots drawn by gnuplot when it is installed.
#pragma once

#include <string>
#include <vector>

#include "tune/tune_run.hpp"

namespace csumtune::tuner {

// The markdown; `plots` lists the SVG files (relative names) that exist beside it.
std::string renderTuneReport(const TuneRun& run, const std::vector<std::string>& plots);

// Draws sweep.svg (time per byte against length, winner and baseline) and space.svg (score
// against unroll for every evaluation, one series per carry family) into `dir` with gnuplot.
// Returns the files written; empty when gnuplot is missing or fails (`why` says which).
std::vector<std::string> drawPlots(const TuneRun& run, const std::string& dir, std::string* why);

}  // namespace csumtune::tuner
