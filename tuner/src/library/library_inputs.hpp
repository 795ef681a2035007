// The runs an ahead-of-time library is made from: each results file's winner with the CPU it
// was tuned on, checked so the library never holds a variant it could not dispatch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "source_file.hpp"

namespace csumtune::tuner {

// One CPU's tuned kernel as the library carries it.
struct LibraryVariant {
  std::string cpuKey;  // e.g. amd-19-11-1-0a1bbd54
  std::string vendor;  // CPUID's vendor string, e.g. AuthenticAMD
  std::uint32_t family = 0, model = 0, stepping = 0;
  std::string resultsPath;
  SourceRequest source;  // the winner in gas style, with where and how it was tuned
};

// A results.json, or a run folder that holds one. A folder of several runs (a CPU key's
// folder) is refused with the runs it holds: the library takes one run per CPU.
// Throws BadRequest.
std::string resultsFileOf(const std::string& input);

// The winners of `inputs` (results files or run folders), one per CPU key, in the order given.
// Refused (BadRequest, or csumtune::Error for a missing or malformed file): a run of the other
// kind (the library takes summing runs; a kernel patch reads its copying runs with
// kind=Copy), a run that did not finish, a file without the CPU fields the dispatcher matches
// on, and a CPU key that appears twice.
std::vector<LibraryVariant> readLibraryVariants(const std::vector<std::string>& inputs,
                                                gen::Kind kind = gen::Kind::Sum);

}  // namespace csumtune::tuner
