// Internal to runtime/: reading list-valued environment variables.
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

namespace csumtune::detail {

// The non-empty items of environment variable `name`, split at `separator`, spaces removed
// (CSUMTUNE_DISABLE_FEATURES="ADX, AVX2", CSUMTUNE_RESULTS="a:b"). Unset gives nothing.
inline std::vector<std::string> environmentList(const char* name, char separator) {
  std::vector<std::string> items;
  const char* value = std::getenv(name);
  if (!value) return items;
  std::string item;
  for (const char* c = value;; ++c) {
    if (*c == separator || *c == '\0') {
      if (!item.empty()) items.push_back(item);
      item.clear();
      if (*c == '\0') break;
    } else if (*c != ' ') {
      item += *c;
    }
  }
  return items;
}

}  // namespace csumtune::detail
