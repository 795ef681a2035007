// report.md for a tuning run, plus SVG plots drawn by gnuplot when it is installed.
#pragma once

#include <string>
#include <vector>

#include "tune/tune_run.hpp"

namespace csumtune::tuner {

// The markdown; `plots` lists the SVG files (relative names) that exist beside it.
std::string renderTuneReport(const TuneRun& run, const std::vector<std::string>& plots);

// An SVG drawn for the report: its file name and content.
struct Plot {
  std::string name;
  std::string svg;
};

// Draws sweep.svg (winner / reference time at every swept length, hot and cold) and
// space.svg (score against unroll for every evaluation, one series per carry family) with
// gnuplot. Empty when gnuplot is missing or fails (`why` says which).
std::vector<Plot> drawPlots(const TuneRun& run, std::string* why);

}  // namespace csumtune::tuner
