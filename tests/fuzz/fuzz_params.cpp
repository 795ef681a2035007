// libFuzzer: the Params parser. Any text either fails with ParamsError or parses to Params
// whose canonical string parses back to the same kernel and validates the same way.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "csumtune/gen/params.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace csumtune::gen;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Params p;
  try {
    p = parseParamsUnchecked(text);
  } catch (const ParamsError&) {
    return 0;
  }
  const std::string printed = p.toString();
  const std::string error = validationError(p);
  Params again;
  try {
    again = parseParamsUnchecked(printed);
  } catch (const ParamsError&) {
    std::abort();  // the canonical form of parsed Params must parse
  }
  if (!(again == p) || validationError(again) != error) std::abort();
  if (error.empty() && !(again.canonical().canonical() == again.canonical())) std::abort();
  return 0;
}
