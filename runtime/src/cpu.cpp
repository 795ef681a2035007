#include "csumtune/cpu.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>

#include <asmjit/core.h>

#include "env_list.hpp"

namespace csumtune {
namespace {

using X86 = asmjit::CpuFeatures::X86;

struct FeatureRow {
  const char* name;
  X86::Id id;
};

// The features that identify a CPU for checksum kernels (part of its key): those kernels
// need (gen::CpuFeature) and those that decide which may win.
constexpr std::array<FeatureRow, 9> kFeatureRows{{
    {"ADX", X86::kADX},
    {"BMI2", X86::kBMI2},
    {"AVX2", X86::kAVX2},
    {"AVX512F", X86::kAVX512_F},
    {"AVX512BW", X86::kAVX512_BW},
    {"AVX512VL", X86::kAVX512_VL},
    {"AVX512_VNNI", X86::kAVX512_VNNI},
    {"AVX_VNNI", X86::kAVX_VNNI},
    {"VPCLMULQDQ", X86::kVPCLMULQDQ},
}};

// The CPUID bit behind each feature a kernel can need (a new gen::CpuFeature without a case
// here is a compiler warning, -Wswitch).
X86::Id asmjitId(gen::CpuFeature feature) {
  switch (feature) {
    case gen::CpuFeature::Adx:
      return X86::kADX;
    case gen::CpuFeature::Avx2:
      return X86::kAVX2;
    case gen::CpuFeature::Avx512F:
      return X86::kAVX512_F;
    case gen::CpuFeature::Avx512Vnni:
      return X86::kAVX512_VNNI;
    case gen::CpuFeature::Avx512Bw:
      return X86::kAVX512_BW;
  }
  return X86::kNone;
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

std::vector<std::string> disabledByEnvironment() {
  std::vector<std::string> names = detail::environmentList("CSUMTUNE_DISABLE_FEATURES", ',');
  for (auto& name : names) name = upper(name);
  return names;
}

bool isDisabled(const std::vector<std::string>& disabled, std::string_view name) {
  return std::find(disabled.begin(), disabled.end(), name) != disabled.end();
}

// CPUID says it has the feature, and CSUMTUNE_DISABLE_FEATURES does not mask it.
bool present(const FeatureRow& row, const std::vector<std::string>& disabled) {
  return asmjit::CpuInfo::host().features().x86().has(row.id) && !isDisabled(disabled, row.name);
}

std::optional<std::string> readMicrocode() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("microcode", 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) break;
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      return value;
    }
  }
  return std::nullopt;
}

}  // namespace

CpuIdentity hostCpu() {
  const asmjit::CpuInfo& info = asmjit::CpuInfo::host();
  CpuIdentity cpu;
  cpu.vendor = info.vendor();
  cpu.brand = info.brand();
  cpu.family = info.familyId();
  cpu.model = info.modelId();
  cpu.stepping = info.stepping();
  cpu.microcode = readMicrocode();
  cpu.disabled = disabledByEnvironment();
  for (const FeatureRow& row : kFeatureRows) {
    cpu.features.push_back({row.name, present(row, cpu.disabled)});
  }
  return cpu;
}

std::string cpuKey(const CpuIdentity& cpu) {
  std::string vendor;
  for (char c : cpu.vendor) {
    if (std::isalnum(static_cast<unsigned char>(c))) vendor += static_cast<char>(std::tolower(c));
  }
  if (vendor == "authenticamd") vendor = "amd";
  if (vendor == "genuineintel") vendor = "intel";
  if (vendor.empty()) vendor = "unknown";
  // FNV-1a over what distinguishes two CPUs of one family/model/stepping.
  std::uint32_t hash = 2166136261u;
  auto mix = [&](const std::string& text) {
    for (unsigned char c : text) hash = (hash ^ c) * 16777619u;
  };
  mix(cpu.brand);
  for (const auto& f : cpu.features) mix(f.name + (f.present ? "+" : "-"));
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "%s-%02x-%02x-%x-%08x", vendor.c_str(), cpu.family,
                cpu.model, cpu.stepping, hash);
  return buffer;
}

std::string cpuKeyOf(const std::string& vendor, const std::string& brand, std::uint32_t family,
                     std::uint32_t model, std::uint32_t stepping,
                     const std::map<std::string, bool>& features) {
  CpuIdentity cpu;
  cpu.vendor = vendor;
  cpu.brand = brand;
  cpu.family = family;
  cpu.model = model;
  cpu.stepping = stepping;
  // The key hashes the features in the table's order, whatever order the file lists them in.
  for (const FeatureRow& row : kFeatureRows) {
    const auto it = features.find(row.name);
    cpu.features.push_back({row.name, it != features.end() && it->second});
  }
  return cpuKey(cpu);
}

std::vector<std::string> unknownDisabledFeatures() {
  std::vector<std::string> unknown;
  for (const std::string& name : disabledByEnvironment()) {
    const bool known = std::any_of(kFeatureRows.begin(), kFeatureRows.end(),
                                   [&](const FeatureRow& row) { return name == row.name; });
    if (!known) unknown.push_back(name);
  }
  return unknown;
}

bool hostHas(gen::CpuFeature feature) {
  // CPUID cannot change under us, the environment mask can (tests set it): read it each time.
  return present({gen::toString(feature).data(), asmjitId(feature)}, disabledByEnvironment());
}

std::vector<gen::CpuFeature> missingFeatures(const gen::Params& params) {
  std::vector<gen::CpuFeature> missing;
  for (gen::CpuFeature feature : gen::requiredFeatures(params)) {
    if (!hostHas(feature)) missing.push_back(feature);
  }
  return missing;
}

}  // namespace csumtune
