// results.json as the tuner writes and reads it: the shared fields (CPU, workload, space,
// winner) through the one owner of the schema (csumtune/results/document.hpp, also used by
// Jit::load and best()), plus what only the tuner needs: every evaluation with its status
// and figures, the search and measuring settings, the finalists, the sweep.
//
// Readers throw csumtune::Error (BadResults) with "cannot <purpose>: <path> <why>".
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "source_file.hpp"
#include "tune/tune_run.hpp"

namespace csumtune::tuner {

nlohmann::json toJson(const TuneRun& run);

// The evaluations recorded in a results file (any CPU, any workload): what `tune --replay`
// searches again without measuring.
std::vector<Evaluation> readEvaluations(const std::string& path);

// The winner's params of a results file (any CPU): what `csumtune kmod --results` builds.
gen::Params readWinnerParams(const std::string& path);

// winner.S's header lines "tuned on" and "figures", from a run or from its results.json.
std::string tunedOnText(const std::string& brand, const std::string& vendor, const std::string& key,
                        const std::string& created);
std::string figuresText(const std::string& profile, const std::string& cache, double scorePerByte,
                        const std::string& unit, const std::string& verdict);

// What `emit --results FILE` prints: the winner of a finished run (readWinnerParams) as the run
// wrote its winner.S: its style (recorded in winner.source; a run without the record: gas for
// a SIMD family, else kernel), the default symbol, and the CPU and figures it was tuned with.
SourceRequest readWinnerSource(const std::string& path);

// The evaluations of an earlier run in `path`, after checking that it is a results file for
// the same CPU, profile, cache state and space as `current`.
std::vector<Evaluation> readEvaluationsForResume(const std::string& path, const TuneRun& current);

// One-line verdict on the winner: "1.83x faster than linux-v6.8 (95% CI 1.80-1.85)" or
// "not significantly faster than linux-v6.8 (0.99x, 95% CI 0.97-1.01)".
std::string verdict(const FinalistResult& winner, const std::string& baseline);

}  // namespace csumtune::tuner
