#include "csumtune/loader.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "csumtune/cpu.hpp"
#include "env_list.hpp"

#ifndef CSUMTUNE_INSTALLED_RESULTS
#define CSUMTUNE_INSTALLED_RESULTS ""
#endif

namespace csumtune {
namespace {

using nlohmann::json;
constexpr const char* kSchema = "csumtune-results/1";

[[noreturn]] void bad(const std::string& path, const std::string& why) {
  throw Error(Error::Kind::BadResults, fmt::format("cannot load {}: {}", path, why));
}

json readJson(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bad(path, "no such file, or not readable");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.empty()) bad(path, "the file is empty");
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    // A parse error at the very end is what a truncated file looks like.
    const bool atEnd = e.byte >= text.size();
    bad(path,
        atEnd ? "the file is truncated (JSON ends early)" : std::string("not JSON: ") + e.what());
  }
}

std::map<std::string, bool> featuresOf(const json& features) {
  std::map<std::string, bool> out;
  for (const auto& [name, present] : features.items()) out[name] = present.get<bool>();
  return out;
}

}  // namespace

gen::Params defaultParams() {
  return gen::Params{gen::Carry::Adc, 4, 16, 0, gen::Hint::T0};
}

std::vector<std::string> resultsSearchPath() {
  std::vector<std::string> dirs = detail::environmentList("CSUMTUNE_RESULTS", ':');
  if (std::string(CSUMTUNE_INSTALLED_RESULTS).size()) dirs.push_back(CSUMTUNE_INSTALLED_RESULTS);
  return dirs;
}

LoadedKernel Jit::load(const std::string& path) {
  return load(path, LoadOptions{});
}

LoadedKernel Jit::load(const std::string& path, const LoadOptions& options) {
  const json j = readJson(path);
  std::string params, profile, cache, tunedKey;
  try {
    if (!j.is_object()) bad(path, "not a csumtune results file (not a JSON object)");
    const std::string schema = j.value("schema", "");
    if (schema != kSchema) {
      bad(path, fmt::format("schema '{}' is not the supported '{}'",
                            schema.empty() ? "(none)" : schema, kSchema));
    }
    const json& winner = j.at("winner");
    if (winner.is_null()) bad(path, "it has no winner (the tuning run did not finish)");
    params = winner.at("params").get<std::string>();
    profile = j.at("workload").at("profile").get<std::string>();
    cache = j.at("workload").at("cache").get<std::string>();
    tunedKey = j.at("cpu").at("key").get<std::string>();
    const CpuIdentity host = hostCpu();
    const std::string hostKey = cpuKey(host);
    if (tunedKey != hostKey) {
      std::map<std::string, bool> hostFeatures;
      for (const auto& f : host.features) hostFeatures[f.name] = f.present;
      const bool sameFeatures = featuresOf(j.at("cpu").at("features")) == hostFeatures;
      if (!(options.acceptSameFeatures && sameFeatures)) {
        throw Error(
            Error::Kind::OtherCpu,
            fmt::format("cannot load {}: tuned on another CPU ({}, key {}); this is {} (key {}){}",
                        path, j.at("cpu").value("brand", "?"), tunedKey, host.brand, hostKey,
                        sameFeatures ? "; it has the same features: accept it explicitly"
                                     : "; its features differ"));
      }
    }
  } catch (const json::exception& e) {
    bad(path, std::string("a field is missing or has the wrong type (") + e.what() + ")");
  }
  gen::Params parsed;
  try {
    parsed = gen::parseParams(params);
  } catch (const gen::ParamsError& e) {
    bad(path, std::string("its winner is not valid: ") + e.what());
  }
  return LoadedKernel{compile(parsed), fmt::format("{} ({}, {} cache, tuned on {})", path, profile,
                                                   cache, tunedKey)};
}

LoadedKernel best() {
  const std::string key = cpuKey(hostCpu());
  // Preferred runs: the default tune first, then the other user-space profiles.
  const std::vector<std::string> preferred{"imix", "mtu", "seed", "jumbo", "bulk"};
  std::vector<std::string> problems;
  for (const std::string& root : resultsSearchPath()) {
    const std::filesystem::path dir = std::filesystem::path(root) / key;
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    std::vector<std::string> runs;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (std::filesystem::exists(entry.path() / "results.json"))
        runs.push_back(entry.path().filename().string());
    }
    std::sort(runs.begin(), runs.end(), [&](const std::string& a, const std::string& b) {
      const auto ra = std::find(preferred.begin(), preferred.end(), a) - preferred.begin();
      const auto rb = std::find(preferred.begin(), preferred.end(), b) - preferred.begin();
      return ra != rb ? ra < rb : a < b;
    });
    for (const std::string& run : runs) {
      try {
        return Jit::load((dir / run / "results.json").string());
      } catch (const Error& e) {
        problems.push_back(e.what());
      }
    }
  }
  std::string why = fmt::format("no usable tuned results for CPU {}", key);
  if (!problems.empty()) why += " (" + problems.front() + ")";
  return LoadedKernel{Jit::compile(defaultParams()),
                      fmt::format("default {} ({})", defaultParams().toString(), why)};
}

}  // namespace csumtune
