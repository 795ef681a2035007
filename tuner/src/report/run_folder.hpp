// A tune's folder, written as one: results.json and report.md always, winner.S and the plots
// when the run has a winner, so a folder never mixes two runs' files.
#pragma once

#include <string>
#include <vector>

#include "tune/tune_run.hpp"

namespace csumtune::tuner {

// Writes the folder (FileError when it cannot); returns notes for the user (a plot left out
// and why).
std::vector<std::string> writeRunFolder(const TuneRun& run, const std::string& folder);

}  // namespace csumtune::tuner
