#include "measure/quiet_reference.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "atomic_file.hpp"

namespace csumtune::tuner {
namespace {

// The probe's code is part of what the ratio means: a changed probe starts afresh.
constexpr const char* kFilePrefix = "quiet-probe-v1-";
constexpr const char* kField = "loads_per_chain";
// Longer than any well-formed file: a huge or endless file (a FIFO, /dev/zero) is not read.
constexpr std::streamsize kMaxFileBytes = 256;

std::string environmentVariable(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::string cacheFolder() {
  if (std::string dir = environmentVariable("CSUMTUNE_CACHE_DIR"); !dir.empty()) return dir;
  if (std::string dir = environmentVariable("XDG_CACHE_HOME"); !dir.empty())
    return dir + "/csumtune";
  if (std::string home = environmentVariable("HOME"); !home.empty())
    return home + "/.cache/csumtune";
  return "";
}

}  // namespace

std::string quietReferencePath(const std::string& cpuKey) {
  const std::string folder = cacheFolder();
  if (folder.empty() || cpuKey.empty()) return "";
  return folder + "/" + kFilePrefix + cpuKey + ".txt";
}

double readQuietReference(const std::string& path) {
  if (path.empty()) return 0;
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return 0;
  std::ifstream in(path);
  std::string text(kMaxFileBytes + 1, '\0');
  in.read(text.data(), kMaxFileBytes + 1);
  if (in.gcount() > kMaxFileBytes) return 0;
  text.resize(static_cast<std::size_t>(in.gcount()));
  std::istringstream fields(text);
  std::string name, rest;
  double value = 0;
  if (!(fields >> name >> value) || name != kField || (fields >> rest)) return 0;
  return std::isfinite(value) && value > 0 ? value : 0;
}

bool rememberQuietReference(const std::string& path, double loadsPerChain) {
  if (path.empty() || !(loadsPerChain > 0) || !std::isfinite(loadsPerChain)) return false;
  const double earlier = readQuietReference(path);
  if (earlier > 0 && earlier <= loadsPerChain) return true;
  try {
    std::error_code error;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
    writeFileAtomically(path, fmt::format("{} {:.6f}\n", kField, loadsPerChain));
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace csumtune::tuner
