#include "measure/quiet_reference.hpp"

#include <cpuid.h>

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
// The probe's 8,192 loads cannot take less than 2,048 cycles on a core with four load ports
// (the most any x86-64 core has) while its 4,096 dependent additions take 4,096: a ratio
// below this is a measuring fault, and remembered it would make every later run look busy.
constexpr double kQuickestPossible = 0.45;

bool plausible(double loadsPerChain) {
  return std::isfinite(loadsPerChain) && loadsPerChain >= kQuickestPossible;
}

// On a hybrid CPU (performance and efficiency cores under one CPU key) the core type of the
// CPU this thread runs on: their load ports differ. "" elsewhere.
std::string coreTypeSuffix() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0, nullptr) < 0x1a) return "";
  __cpuid_count(7, 0, a, b, c, d);
  if (!(d & (1u << 15))) return "";  // CPUID.07H:EDX[15]: hybrid
  __cpuid_count(0x1a, 0, a, b, c, d);
  return fmt::format("-core{:02x}", a >> 24);
}

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
  return folder + "/" + kFilePrefix + cpuKey + coreTypeSuffix() + ".txt";
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
  return plausible(value) ? value : 0;
}

void useQuietReference(ContentionSettings& settings, const std::string& cpuKey) {
  settings.quietReferenceFile = quietReferencePath(cpuKey);
  settings.quietLoadsPerChain = readQuietReference(settings.quietReferenceFile);
}

bool rememberQuietReference(const std::string& path, double loadsPerChain) {
  if (path.empty() || !plausible(loadsPerChain)) return false;
  const double earlier = readQuietReference(path);
  if (earlier > 0 && earlier <= loadsPerChain) return true;
  // Only a regular file of our own is replaced: never through a symlink (a cache folder
  // shared with others, such as /tmp), never a device or a FIFO.
  std::error_code error;
  const auto status = std::filesystem::symlink_status(path, error);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) return false;
  try {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
    writeFileAtomically(path, fmt::format("{} {:.6f}\n", kField, loadsPerChain));
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace csumtune::tuner
