// results.json, the one owner of its schema: reading a file safely, and the fields every
// reader shares (where the run was tuned, for what, and its winner), written and read by the
// same code. The tuner writes the rest (every evaluation, the finalists, the sweep).
//
// Readers: Jit::load and best() (runtime), tune --resume / --replay, kmod --results, show.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "csumtune/gen/params.hpp"
#include "csumtune/results/profiles.hpp"

namespace csumtune::results {

inline constexpr std::string_view kSchema = "csumtune-results/1";
// Larger than any results file a tune writes (an exhaustive run is about 30 MB).
inline constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{1} << 30;

// The fields every reader needs.
struct RunHeader {
  std::string cpuKey;
  std::string cpuBrand;
  std::map<std::string, bool> cpuFeatures;
  // The identity the key is made from (written by tune, checked against the key on reading).
  struct CpuFields {
    std::string vendor;
    std::uint32_t family = 0, model = 0, stepping = 0;
  };
  std::optional<CpuFields> cpuFields;
  std::string profile;  // a name of namedProfiles(), or "custom"
  std::vector<ProfileEntry> sizes;
  std::string cache;  // "hot" or "cold"
  bool kernelSafe = false;
  bool complete = false;
  std::optional<std::string> winnerParams;  // canonical params; none when the run did not finish
  // The machine was busy during the run: its winner may differ in a quiet period (files
  // written before the contention record have none: taken as undisturbed).
  bool disturbed = false;
  std::size_t maxBytes = 0;       // --max-bytes the run was tuned under (0: none)
  std::string contentionSummary;  // one sentence; "" when not recorded
};

// Reads `path` as JSON: a regular file (a directory, FIFO or device is refused without
// opening it, so nothing blocks), at most kMaxFileBytes, JSON. Throws csumtune::Error
// (BadResults) "cannot <purpose>: <path> <why>".
nlohmann::json readJsonFile(const std::string& path, std::string_view purpose);

// Reads `path` as a results document: a regular file (a directory, FIFO or device is refused
// without opening it, so nothing blocks), at most kMaxFileBytes, JSON, an object, this schema,
// every field it holds well-formed (checkDocument). Throws csumtune::Error (BadResults)
// "cannot <purpose>: <path> <why>".
nlohmann::json readDocument(const std::string& path, std::string_view purpose);

// Checks every field the writer writes, required or optional, when it is present: of its type
// (objects, arrays, strings, booleans), integers integral and in range, counts >= 0, figures
// finite (or null: the writer's NaN). Unknown fields are ignored (newer writers may add some).
// Throws csumtune::Error (BadResults) "cannot <purpose>: <path> is malformed: "<field>" ...".
void checkDocument(const nlohmann::json& document, const std::string& path,
                   std::string_view purpose);

// The shared fields of a document read by readDocument. Throws csumtune::Error (BadResults).
RunHeader readHeader(const nlohmann::json& document, const std::string& path,
                     std::string_view purpose);

// Writes the schema and the shared fields into `document` (merging into its objects).
void writeHeader(nlohmann::json& document, const RunHeader& header);

// Why the winner of a complete run in `resultsPath` may not be used: "" when winner.S beside
// the file exists and names `winner`; else the reason ("has no winner.S beside it ...").
// A run is all or nothing: results.json and winner.S are written together, so a run whose
// winner.S is missing or names another kernel did not finish writing (or was edited).
std::string winnerSourceProblem(const std::string& resultsPath, const gen::Params& winner);

// Text from a file, made safe for a terminal or a log: control bytes (C0, DEL, C1), Unicode
// bidi and other format controls (U+202A-U+202E, U+2066-U+2069, U+200E/U+200F, U+061C, ...)
// and line/paragraph separators escaped, bytes that are not UTF-8 escaped, and at most
// `maxChars` characters kept, the rest counted: "...(N more bytes)".
std::string printable(std::string_view text, std::size_t maxChars = 200);

// "cannot <purpose>: <path> <why>" as csumtune::Error (BadResults).
[[noreturn]] void fail(const std::string& path, std::string_view purpose, std::string_view why);

}  // namespace csumtune::results
