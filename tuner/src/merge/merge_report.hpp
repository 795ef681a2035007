// csumtune merge's report: per profile the portable winner, its worst speed-up over the
// reference, and per CPU its speed-up there and its speed against that CPU's own best kernel;
// as text for a reader and as JSON (schema csumtune-merge/1) for scripts and later verbs.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "merge/portable_winner.hpp"

namespace csumtune::tuner {

inline constexpr const char* kMergeSchema = "csumtune-merge/1";

std::string formatMergeText(const MergeReport& report);
nlohmann::json mergeJson(const MergeReport& report);
std::string formatMergeJson(const MergeReport& report);

}  // namespace csumtune::tuner
