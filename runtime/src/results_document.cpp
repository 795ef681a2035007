#include "csumtune/results/document.hpp"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "csumtune/cpu.hpp"
#include "csumtune/jit.hpp"

namespace csumtune::results {

using nlohmann::json;

void fail(const std::string& path, std::string_view purpose, std::string_view why) {
  throw Error(Error::Kind::BadResults, fmt::format("cannot {}: {} {}", purpose, path, why));
}

json readJsonFile(const std::string& path, std::string_view purpose) {
  // Look before opening: opening a FIFO blocks until a writer comes, a directory "opens" and
  // then fails to read, a device may never end.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) fail(path, purpose, "does not exist (no such file)");
  if (std::filesystem::is_directory(status)) fail(path, purpose, "is a directory, not a file");
  if (!std::filesystem::is_regular_file(status)) {
    fail(path, purpose, "is not a regular file (a FIFO, socket or device)");
  }
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) fail(path, purpose, "cannot be read (" + ec.message() + ")");
  if (size > kMaxFileBytes) fail(path, purpose, fmt::format("is too large ({} bytes)", size));
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, purpose, "is not readable");
  std::string text;
  try {
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::exception& e) {
    fail(path, purpose, std::string("cannot be read (") + e.what() + ")");
  }
  if (in.bad()) fail(path, purpose, "cannot be read (I/O error)");
  if (text.empty()) fail(path, purpose, "is empty");
  json document;
  try {
    document = json::parse(text);
  } catch (const json::parse_error& e) {
    // A parse error at the very end is what a truncated file looks like.
    if (e.byte >= text.size()) fail(path, purpose, "is truncated (JSON ends early)");
    fail(path, purpose, std::string("is not JSON (") + e.what() + ")");
  } catch (const json::exception& e) {
    // E.g. a number too large for a double (found by fuzzing): out_of_range, not parse_error.
    fail(path, purpose, std::string("is not usable JSON (") + e.what() + ")");
  }
  return document;
}

json readDocument(const std::string& path, std::string_view purpose) {
  json document = readJsonFile(path, purpose);
  if (!document.is_object()) fail(path, purpose, "is not a csumtune results file (not an object)");
  const json& schema = document.contains("schema") ? document.at("schema") : json();
  const std::string found = schema.is_string() ? schema.get<std::string>() : "(none)";
  if (found != kSchema) {
    fail(path, purpose,
         fmt::format("has schema '{}', not the supported '{}'", found, std::string(kSchema)));
  }
  return document;
}

RunHeader readHeader(const json& document, const std::string& path, std::string_view purpose) {
  RunHeader h;
  try {
    const json& cpu = document.at("cpu");
    h.cpuKey = cpu.at("key").get<std::string>();
    h.cpuBrand = cpu.value("brand", "?");
    for (const auto& [name, present] : cpu.at("features").items())
      h.cpuFeatures[name] = present.get<bool>();
    // The file checks itself: its key must be the one its own CPU fields give (a key edited
    // to make a file load on another CPU is refused).
    if (cpu.contains("vendor") && cpu.contains("family")) {
      const std::string recomputed =
          cpuKeyOf(cpu.at("vendor").get<std::string>(), h.cpuBrand,
                   cpu.at("family").get<std::uint32_t>(), cpu.at("model").get<std::uint32_t>(),
                   cpu.at("stepping").get<std::uint32_t>(), h.cpuFeatures);
      if (recomputed != h.cpuKey) {
        fail(path, purpose,
             fmt::format("says CPU key {} but its CPU fields give {}: the file was edited",
                         h.cpuKey, recomputed));
      }
    }
    const json& workload = document.at("workload");
    h.profile = workload.at("profile").get<std::string>();
    for (const auto& e : workload.at("sizes")) {
      // Strict: an integer length in range and a finite positive weight (get<int>() would
      // wrap 1e300 and truncate 1.5).
      const json& size = e.at("size");
      const json& weight = e.at("weight");
      if (!size.is_number_integer() || size.get<std::int64_t>() < 1 ||
          size.get<std::int64_t>() > std::numeric_limits<int>::max() || !weight.is_number() ||
          !std::isfinite(weight.get<double>()) || !(weight.get<double>() > 0)) {
        fail(path, purpose, "is malformed: a profile size or weight is out of range");
      }
      h.sizes.push_back({size.get<int>(), weight.get<double>()});
    }
    h.cache = workload.at("cache").get<std::string>();
    h.kernelSafe = document.at("search").at("kernel_safe").get<bool>();
    h.complete = document.at("complete").get<bool>();
    const json& winner = document.at("winner");
    if (!winner.is_null()) {
      h.winnerParams = winner.at("params").get<std::string>();
      // An empty string would parse as the default kernel and be passed off as the winner.
      if (h.winnerParams->empty()) fail(path, purpose, "has a winner with empty params");
    }
    h.maxBytes = document.at("search").value("max_bytes", std::size_t{0});
    if (const auto it = document.find("contention"); it != document.end()) {
      h.disturbed = it->at("disturbed").get<bool>();
      h.contentionSummary = it->at("summary").get<std::string>();
    }
  } catch (const json::exception& e) {
    fail(path, purpose,
         std::string("is malformed: a field is missing or has the wrong type (") + e.what() + ")");
  }
  return h;
}

void writeHeader(json& document, const RunHeader& h) {
  document["schema"] = std::string(kSchema);
  document["complete"] = h.complete;
  json& cpu = document["cpu"];
  cpu["key"] = h.cpuKey;
  cpu["brand"] = h.cpuBrand;
  if (h.cpuFields) {
    cpu["vendor"] = h.cpuFields->vendor;
    cpu["family"] = h.cpuFields->family;
    cpu["model"] = h.cpuFields->model;
    cpu["stepping"] = h.cpuFields->stepping;
  }
  cpu["features"] = json::object();
  for (const auto& [name, present] : h.cpuFeatures) cpu["features"][name] = present;
  json& workload = document["workload"];
  workload["profile"] = h.profile;
  workload["sizes"] = json::array();
  for (const auto& e : h.sizes)
    workload["sizes"].push_back({{"size", e.size}, {"weight", e.weight}});
  workload["cache"] = h.cache;
  document["search"]["kernel_safe"] = h.kernelSafe;
  if (!h.contentionSummary.empty()) {
    document["contention"]["disturbed"] = h.disturbed;
    document["contention"]["summary"] = h.contentionSummary;
  }
  if (h.winnerParams) {
    document["winner"]["params"] = *h.winnerParams;
  } else {
    document["winner"] = nullptr;
  }
}

}  // namespace csumtune::results
