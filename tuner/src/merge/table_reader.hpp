// Reading the speed-up tables `merge` compares: a bench --candidates JSON (one table per
// profile it measured) or a tune run's results.json (one table: its correct evaluations, each
// timed against the reference in the search). Every file proves its CPU key: the key is
// recomputed from the CPU fields it records, as `show` and best() do, and must match.
#pragma once

#include <string>
#include <vector>

#include "merge/speedup_table.hpp"

namespace csumtune::tuner {

// Throws BadRequest (or csumtune::Error for a results file) naming the file: missing, not a
// regular file, not JSON, another schema, a bench file without candidates, a field missing or
// malformed, a CPU key its fields do not give, an unfinished run or one measured against
// another reference.
std::vector<SpeedupTable> readSpeedupTables(const std::string& path);

}  // namespace csumtune::tuner
