// The CPU this process runs on: identity for results files and the features kernels need.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "csumtune/gen/params.hpp"

namespace csumtune {

struct CpuFeatureFlag {
  std::string name;  // e.g. "ADX", "AVX512_VNNI"
  bool present;
};

struct CpuIdentity {
  std::string vendor;  // "AuthenticAMD", "GenuineIntel"
  std::string brand;
  std::uint32_t family = 0;
  std::uint32_t model = 0;
  std::uint32_t stepping = 0;
  std::optional<std::string> microcode;  // from /proc/cpuinfo when readable
  std::vector<CpuFeatureFlag> features;  // the ones that matter to checksum kernels
  std::vector<std::string> disabled;     // masked by CSUMTUNE_DISABLE_FEATURES
};

// Reads CPUID (through asmjit) and /proc/cpuinfo. Features named in the environment
// variable CSUMTUNE_DISABLE_FEATURES (comma-separated, e.g. "ADX,AVX2") are reported absent,
// so a machine can be made to behave like an older one.
CpuIdentity hostCpu();

// A short stable name for results folders: vendor, family, model, stepping and a hash of
// brand and feature flags, e.g. "amd-1a-02-1-5c3e9f0a". Machines that can run the same kernels
// equally share it; results from many machines sit side by side under results/<key>/.
std::string cpuKey(const CpuIdentity& cpu);

// The key of a CPU described by the fields a results file records (features by name, in any
// order): results files are checked against their own key with it.
std::string cpuKeyOf(const std::string& vendor, const std::string& brand, std::uint32_t family,
                     std::uint32_t model, std::uint32_t stepping,
                     const std::map<std::string, bool>& features);

// Names in CSUMTUNE_DISABLE_FEATURES that are not features csumtune knows (they mask
// nothing: the command line refuses them, the API ignores them).
std::vector<std::string> unknownDisabledFeatures();

// Whether the host (after CSUMTUNE_DISABLE_FEATURES) has the feature.
bool hostHas(gen::CpuFeature feature);

// Features `params` needs that the host lacks (empty: it may run here).
std::vector<gen::CpuFeature> missingFeatures(const gen::Params& params);

}  // namespace csumtune
