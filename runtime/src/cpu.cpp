#include "csumtune/cpu.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>

#include <asmjit/core.h>

namespace csumtune {
namespace {

using X86 = asmjit::CpuFeatures::X86;

struct FeatureRow {
  const char* name;
  X86::Id id;
};

// The features that decide which kernels can run and which may win.
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

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

std::vector<std::string> disabledByEnvironment() {
  std::vector<std::string> out;
  const char* env = std::getenv("CSUMTUNE_DISABLE_FEATURES");
  if (!env) return out;
  std::string item;
  for (const char* c = env;; ++c) {
    if (*c == ',' || *c == '\0') {
      if (!item.empty()) out.push_back(upper(item));
      item.clear();
      if (*c == '\0') break;
    } else if (*c != ' ') {
      item += *c;
    }
  }
  return out;
}

bool isDisabled(const std::vector<std::string>& disabled, std::string_view name) {
  return std::find(disabled.begin(), disabled.end(), name) != disabled.end();
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
    const bool present = info.features().x86().has(row.id) && !isDisabled(cpu.disabled, row.name);
    cpu.features.push_back({row.name, present});
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

bool hostHas(gen::CpuFeature feature) {
  // CPUID cannot change under us, the environment mask can (tests set it): read it each time.
  static const bool present[] = {
      asmjit::CpuInfo::host().features().x86().hasADX(),
      asmjit::CpuInfo::host().features().x86().hasAVX2(),
      asmjit::CpuInfo::host().features().x86().hasAVX512_F(),
      asmjit::CpuInfo::host().features().x86().hasAVX512_BW(),
      asmjit::CpuInfo::host().features().x86().hasAVX512_VNNI(),
  };
  return present[static_cast<std::size_t>(feature)] &&
         !isDisabled(disabledByEnvironment(), gen::toString(feature));
}

std::vector<gen::CpuFeature> missingFeatures(const gen::Params& params) {
  std::vector<gen::CpuFeature> missing;
  for (gen::CpuFeature feature : gen::requiredFeatures(params)) {
    if (!hostHas(feature)) missing.push_back(feature);
  }
  return missing;
}

}  // namespace csumtune
