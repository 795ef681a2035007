// An ahead-of-time library: tuned kernels for several CPUs and a portable one in one .S, and
// a GNU IFUNC resolver that picks one when the program is loaded. What a program links needs
// nothing of csumtune at run time: no asmjit, no JIT, no executable heap, no results files.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "csumtune/gen/params.hpp"
#include "report/variant_runs.hpp"

namespace csumtune::tuner {

struct LibraryRequest {
  std::vector<LibraryVariant> variants;  // one per CPU key, tried in this order
  gen::Params fallback;                  // runs on any x86-64: what every other CPU gets
  std::string symbol = "csum_partial";   // the dispatched function
  std::string command;                   // the command line that makes these files again
};

// Names the files of the library folder.
inline constexpr const char* kLibraryAssembly = "csumtune_library.S";
inline constexpr const char* kLibraryDispatcher = "csumtune_dispatch.c";
inline constexpr const char* kLibraryHeader = "csumtune_library.h";
inline constexpr const char* kLibraryPkgConfig = "csumtune_library.pc";
inline constexpr const char* kLibraryMakefile = "Makefile";

// Throws BadRequest: a fallback that needs a CPU feature, a copying fallback, a symbol that is
// no C identifier.
void checkLibraryRequest(const LibraryRequest& request);

// Every file of the library: (file name, content). Throws gen::ParamsError for params the
// printer refuses.
std::vector<std::pair<std::string, std::string>> renderLibrary(const LibraryRequest& request);

// Renders every file, then writes them into `dir` (made when missing) all together: a failed
// run leaves the folder's previous files as they were, never a half-written one.
// Throws BadRequest, gen::ParamsError, FileError.
void writeLibraryFolder(const std::string& dir, const LibraryRequest& request);

// The portable body's function: SYMBOL_portable (a variant's: variantSymbol).
std::string portableSymbol(const std::string& symbol);

}  // namespace csumtune::tuner
