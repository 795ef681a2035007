// The shared list of candidates every machine measures (bench --candidates FILE): one params
// string a line; '#' starts a comment, blank lines are skipped. The same list on every CPU is
// what makes their speed-ups comparable kernel by kernel.
#pragma once

#include <string>
#include <vector>

#include "csumtune/gen/params.hpp"

namespace csumtune::tuner {

// Throws BadRequest naming `origin` and the line: a bad params string, a kernel listed twice
// (two spellings of one kernel count as the same), kernels of both kinds, or no kernel at all.
std::vector<gen::Params> parseCandidateList(const std::string& text, const std::string& origin);

// The list in `path` (a regular file of at most a few megabytes). Throws BadRequest.
std::vector<gen::Params> readCandidateList(const std::string& path);

}  // namespace csumtune::tuner
