// A kernel as a complete .S file: printed instructions inside a template, under a comment
// block that says what it is and how to make it again.
#pragma once

#include <optional>
#include <string>

#include "csumtune/gen/kernel_program.hpp"
#include "csumtune/gen/params.hpp"

namespace csumtune::tuner {

enum class SourceStyle { Kernel, Gas };
const char* toString(SourceStyle style);  // "kernel", "gas"

struct SourceRequest {
  gen::Params params;
  SourceStyle style = SourceStyle::Kernel;
  std::string symbol = "csum_partial";
  std::optional<std::string> tunedOn;  // CPU, when the params came from a tuning run
  std::optional<std::string> figures;  // the measurements that chose them
  // The kernel tree the file goes into (major, minor): its one EXPORT_SYMBOL include instead
  // of the version test that serves any tree.
  std::optional<std::pair<int, int>> kernelVersion;
  // Kernel style: a body that needs ADX carries an ALTERNATIVE to an adc body for CPUs without
  // it. Off where the caller picks the body by CPU itself (patch with several --results).
  bool adxAlternative = true;
};

// Throws gen::ParamsError for a bad symbol name or a family the style cannot take.
std::string renderSource(const SourceRequest& request);

// The command line that regenerates the file.
std::string regenerateCommand(const SourceRequest& request);

bool isValidSymbol(const std::string& symbol);

// A name kernel-style text may use: a C identifier in lower case, not `ret` (RET's expansion).
bool isKernelSymbol(const std::string& symbol);

// The CPU features the kernel needs beyond x86-64 ("ADX"), "" for none.
std::string cpuFeatureList(const gen::Params& params);
// The same for a reader: the list, or "nothing beyond x86-64".
std::string cpuFeatureNeeds(const gen::Params& params);

// A kernel-style file of these params carries a second body without ADX, picked at boot.
bool needsAdxFallback(const gen::Params& params, SourceStyle style);

// The function's name unless told otherwise: csum_partial; for kind=copy csum_and_copy, or
// in kernel style the kernel's csum_partial_copy_generic.
std::string defaultSymbol(const gen::Params& params, SourceStyle style);

// How the program behind a .S of this style is generated: kind=copy in kernel style has the
// kernel's signature (no sum argument). `emit --format bin` uses it too.
gen::ProgramOptions programOptions(const gen::Params& params, SourceStyle style);

// Every occurrence of `key` in `text` replaced by `value` (templates' @NAME@ placeholders).
// The lines in front of a function that put its entry where the params' `place` says (the
// offset in a 64-byte line the tune measured it at): for GNU as, `.p2align 4` when place is 0
// (as always), else a line's alignment and a skip of int3; for the kernel, nothing when place
// is 0, else a line's alignment and a skip of NOPs that leaves room for what SYM_FUNC_START
// adds (its alignment and, with CONFIG_CALL_PADDING, its padding).
std::string placementDirectives(const gen::Params& params, SourceStyle style);

std::string replaceAll(std::string text, std::string_view key, std::string_view value);

}  // namespace csumtune::tuner
