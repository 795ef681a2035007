#include "report/variant_runs.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <fmt/format.h>

#include "csumtune/results/document.hpp"
#include "report/results_file.hpp"
#include "request_errors.hpp"

namespace csumtune::tuner {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kLibraryPurpose = "take a library variant";

// The sub-folders of `dir` that hold a run: what to name when the folder is not one run.
std::vector<std::string> runsIn(const fs::path& dir) {
  std::vector<std::string> runs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_directory(ec) && fs::is_regular_file(entry.path() / "results.json", ec))
      runs.push_back(entry.path().filename().string());
  }
  std::sort(runs.begin(), runs.end());
  return runs;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

// The 12-byte vendor string CPUID leaf 0 returns, from the name a results file records
// (asmjit's short names; a CPUID string itself is kept). "" for a vendor it cannot name.
std::string cpuidVendor(const std::string& recorded) {
  std::string upper = recorded;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper == "AMD") return "AuthenticAMD";
  if (upper == "INTEL") return "GenuineIntel";
  if (recorded == "AuthenticAMD" || recorded == "GenuineIntel" || recorded == "HygonGenuine")
    return recorded;
  return "";
}

LibraryVariant readVariant(const std::string& input, gen::Kind kind) {
  const std::string path = resultsFileOf(input);
  const auto document = results::readDocument(path, kLibraryPurpose);
  const auto header = results::readHeader(document, path, kLibraryPurpose);
  // readHeader has read these fields and checked the key against them.
  if (!header.cpuFields) {
    results::fail(path, kLibraryPurpose,
                  "records no CPU vendor, family and model (written by an older csumtune): the "
                  "dispatcher has nothing to match the CPU on");
  }
  LibraryVariant variant;
  variant.cpuKey = header.cpuKey;
  const std::string& recorded = header.cpuFields->vendor;
  variant.vendor = cpuidVendor(recorded);
  if (variant.vendor.empty()) {
    throw BadRequest(fmt::format(
        "{} was tuned on a CPU of vendor '{}': the dispatcher matches AMD, Intel and Hygon "
        "CPUs only",
        path, results::printable(recorded, 40)));
  }
  variant.family = header.cpuFields->family;
  variant.model = header.cpuFields->model;
  variant.stepping = header.cpuFields->stepping;
  variant.resultsPath = path;
  // The run's winner as its winner.S says it (tuned on, figures), printed for user space.
  variant.source = readWinnerSource(path);
  if (variant.source.params.kind != kind) {
    throw BadRequest(
        kind == gen::Kind::Sum
            ? fmt::format("{} is a run of copying kernels ({}): the library's csum_partial sums; "
                          "give a summing run (tune --kind sum)",
                          path, variant.source.params.toString())
            : fmt::format("{} is a run of summing kernels ({}): give a copying run (tune --kind "
                          "copy)",
                          path, variant.source.params.toString()));
  }
  variant.source.style = SourceStyle::Gas;
  return variant;
}

}  // namespace

std::string resultsFileOf(const std::string& input) {
  std::error_code ec;
  const fs::path path(input);
  if (!fs::is_directory(path, ec)) return input;  // a file, or missing: the reader says which
  if (fs::is_regular_file(path / "results.json", ec)) return (path / "results.json").string();
  const auto runs = runsIn(path);
  if (runs.empty()) throw BadRequest(fmt::format("{} holds no results.json", input));
  throw BadRequest(fmt::format("{} holds several runs ({}): name one, e.g. {}", input, joined(runs),
                               (path / runs.front()).string()));
}

std::vector<LibraryVariant> readLibraryVariants(const std::vector<std::string>& inputs,
                                                gen::Kind kind) {
  std::vector<LibraryVariant> variants;
  for (const std::string& input : inputs) {
    LibraryVariant variant = readVariant(input, kind);
    const auto same = std::find_if(variants.begin(), variants.end(),
                                   [&](const auto& v) { return v.cpuKey == variant.cpuKey; });
    if (same != variants.end()) {
      throw BadRequest(fmt::format(
          "CPU key {} appears twice ({} and {}): one variant per CPU; give one run of each",
          variant.cpuKey, same->resultsPath, variant.resultsPath));
    }
    variants.push_back(std::move(variant));
  }
  return variants;
}

gen::Params defaultFallback() {
  return gen::Params{};
}

std::string variantSymbol(const std::string& symbol, const std::string& cpuKey) {
  std::string name = symbol + "_";
  for (char c : cpuKey) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    name += keep ? c : '_';
  }
  return name;
}

}  // namespace csumtune::tuner
