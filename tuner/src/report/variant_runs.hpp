// The runs that several variants are made from (emit --library's ahead-of-time library, a
// kernel patch of several bodies): each results file's winner with the CPU it was tuned on,
// checked so neither ever holds a variant it could not dispatch.
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

// The portable (generic) body's params unless told otherwise: the plain adc kernel.
gen::Params defaultFallback();

// The function a variant's body is named by: SYMBOL_amd_19_11_1_0a1bbd54.
std::string variantSymbol(const std::string& symbol, const std::string& cpuKey);

}  // namespace csumtune::tuner
