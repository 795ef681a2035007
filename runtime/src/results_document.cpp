#include "csumtune/results/document.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "csumtune/bounded_file.hpp"
#include "csumtune/cpu.hpp"
#include "csumtune/jit.hpp"

namespace csumtune::results {

using nlohmann::json;

void fail(const std::string& path, std::string_view purpose, std::string_view why) {
  throw Error(Error::Kind::BadResults, fmt::format("cannot {}: {} {}", purpose, path, why));
}

namespace {

// ---- Text for a terminal -------------------------------------------------------------------

// Unicode format controls (general category Cf: bidi embeddings, overrides and isolates, marks,
// zero-width and invisible characters) and the line/paragraph separators: a terminal or an
// editor would reorder or hide text around them.
bool isFormatControl(char32_t c) {
  return c == 0xAD || (c >= 0x600 && c <= 0x605) || c == 0x61C || c == 0x6DD || c == 0x70F ||
         (c >= 0x890 && c <= 0x891) || c == 0x8E2 || c == 0x180E || (c >= 0x200B && c <= 0x200F) ||
         (c >= 0x2028 && c <= 0x202E) || (c >= 0x2060 && c <= 0x206F) || c == 0xFEFF ||
         (c >= 0xFFF9 && c <= 0xFFFB) || c == 0x110BD || c == 0x110CD ||
         (c >= 0x13430 && c <= 0x1343F) || (c >= 0x1BCA0 && c <= 0x1BCA3) ||
         (c >= 0x1D173 && c <= 0x1D17A) || c == 0xE0001 || (c >= 0xE0020 && c <= 0xE007F);
}

// The UTF-8 sequence at text[i..]: its code point and length, or length 0 when it is not
// well-formed UTF-8 (overlong, a surrogate, beyond U+10FFFF, cut short).
std::pair<char32_t, std::size_t> decodeUtf8(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return {b, 1};
  std::size_t length = 0;
  char32_t c = 0, least = 0;
  if ((b & 0xE0) == 0xC0) {
    length = 2, c = b & 0x1F, least = 0x80;
  } else if ((b & 0xF0) == 0xE0) {
    length = 3, c = b & 0x0F, least = 0x800;
  } else if ((b & 0xF8) == 0xF0) {
    length = 4, c = b & 0x07, least = 0x10000;
  } else {
    return {0, 0};
  }
  if (i + length > text.size()) return {0, 0};
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return {0, 0};
    c = (c << 6) | (byte(i + k) & 0x3F);
  }
  if (c < least || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return {0, 0};
  return {c, length};
}

// ---- Parsing --------------------------------------------------------------------------------

// json::parse's document, built from the parser's events (nlohmann's SAX interface), with what
// json::parse cannot say: a key given twice in one object (readers differ on which value
// wins: refused, not guessed). The first parse error is kept, not thrown.
class DocumentBuilder {
 public:
  explicit DocumentBuilder(json& root) : root_(root) {}
  bool null() { return put(nullptr); }
  bool boolean(bool v) { return put(v); }
  bool number_integer(json::number_integer_t v) { return put(v); }
  bool number_unsigned(json::number_unsigned_t v) { return put(v); }
  bool number_float(json::number_float_t v, const json::string_t&) { return put(v); }
  bool string(json::string_t& v) { return put(std::move(v)); }
  bool binary(json::binary_t& v) { return put(json::binary(std::move(v))); }
  bool start_object(std::size_t) {
    put(json::object());
    stack_.push_back(last_);
    return true;
  }
  bool key(json::string_t& k) {
    if (!duplicate && stack_.back()->contains(k)) duplicate = k;
    key_ = std::move(k);
    return true;
  }
  bool end_object() {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) {
    put(json::array());
    stack_.push_back(last_);
    return true;
  }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string&, const Exception& e) {
    error = e.what();
    errorId = e.id;
    errorByte = position;
    return false;
  }

  std::optional<std::string> duplicate;
  std::string error;
  int errorId = 0;
  std::size_t errorByte = 0;

 private:
  // Places a value where the parser is: the root, the end of an array, an object's member.
  bool put(json&& value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      last_ = &root_;
    } else if (json& top = *stack_.back(); top.is_array()) {
      top.push_back(std::move(value));
      last_ = &top.back();
    } else {
      json& slot = top[key_];
      slot = std::move(value);
      last_ = &slot;
    }
    return true;
  }
  json& root_;
  std::vector<json*> stack_;  // the open objects and arrays
  json* last_ = nullptr;
  std::string key_;
};

// ---- The schema ----------------------------------------------------------------------------

// Where a value is in the document, built as the check descends and spelled out only for a
// message ("evaluations[3].bytes"): a large file is checked without a string per field.
struct Where {
  const Where* parent = nullptr;
  std::string_view key;   // a member of an object, or
  std::size_t index = 0;  // an element of an array (key empty)
};

std::string spell(const Where& where) {
  if (!where.parent) return std::string(where.key);
  std::string out = spell(*where.parent);
  if (where.key.empty()) return out + fmt::format("[{}]", where.index);
  return out + (out.empty() ? "" : ".") + std::string(where.key);
}

// A field that is not what the schema says: where it is and what is wrong; checkDocument
// turns it into the reader's error.
struct Malformed {
  std::string where, what;
};

// A check of one value found at `where`.
using Check = std::function<void(const json&, const Where&)>;

// What a value is, for a message: its type, or a short number.
std::string describe(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::string:
      return "a string";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return printable(v.dump(), 40);
    default:
      return "something else";
  }
}

[[noreturn]] void malformed(const Where& where, std::string_view what, const json& v) {
  throw Malformed{spell(where), fmt::format("{} (found {})", what, describe(v))};
}

// An integer in [low, high]: an integer in the file (not 1.5 or 1e3), in range (not 2^70).
Check integer(std::int64_t low, std::uint64_t high) {
  return [low, high](const json& v, const Where& where) {
    bool inRange = false;
    if (v.is_number_unsigned()) {
      const auto x = v.get<std::uint64_t>();
      inRange = x <= high && (low <= 0 || x >= static_cast<std::uint64_t>(low));
    } else if (v.is_number_integer()) {
      const auto x = v.get<std::int64_t>();
      inRange = x >= low && (x < 0 || static_cast<std::uint64_t>(x) <= high);
    }
    if (!inRange) malformed(where, fmt::format("is not an integer in {}..{}", low, high), v);
  };
}

// A count: an integer >= 0.
Check count() {
  return integer(0, std::numeric_limits<std::uint64_t>::max());
}

constexpr std::uint64_t kMaxCodeBytes = std::uint64_t{1} << 24;

// A figure: a finite number in [low, high], or null (the writer writes NaN as null).
Check real(double low = 0, double high = std::numeric_limits<double>::infinity(),
           bool nullable = true) {
  return [=](const json& v, const Where& where) {
    if (v.is_null() && nullable) return;
    if (v.is_number()) {
      const double x = v.get<double>();
      if (std::isfinite(x) && x >= low && x <= high) return;
    }
    malformed(where,
              std::isinf(high) ? fmt::format("is not a finite number >= {}", low)
                               : fmt::format("is not a number in {}..{}", low, high),
              v);
  };
}

// A weight: a finite number > 0, never null.
Check positive() {
  return [](const json& v, const Where& where) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || !(v.get<double>() > 0))
      malformed(where, "is not a finite number > 0", v);
  };
}

Check text() {
  return [](const json& v, const Where& where) {
    if (!v.is_string()) malformed(where, "is not a string", v);
  };
}

Check flag() {
  return [](const json& v, const Where& where) {
    if (!v.is_boolean()) malformed(where, "is not true or false", v);
  };
}

Check oneOf(std::vector<std::string> values) {
  return [values = std::move(values)](const json& v, const Where& where) {
    if (v.is_string() &&
        std::find(values.begin(), values.end(), v.get_ref<const std::string&>()) != values.end())
      return;
    std::string names;
    for (const auto& n : values) names += (names.empty() ? "" : " or ") + ("'" + n + "'");
    if (!v.is_string()) malformed(where, "is not " + names, v);
    throw Malformed{spell(where), fmt::format("is not {} (found '{}')", names,
                                              printable(v.get_ref<const std::string&>(), 40))};
  };
}

Check nullOr(Check check) {
  return [check = std::move(check)](const json& v, const Where& where) {
    if (!v.is_null()) check(v, where);
  };
}

Check arrayOf(Check element) {
  return [element = std::move(element)](const json& v, const Where& where) {
    if (!v.is_array()) malformed(where, "is not an array", v);
    for (std::size_t i = 0; i < v.size(); ++i) element(v[i], Where{&where, {}, i});
  };
}

// An object whose every member (any name) is checked by `value`.
Check mapOf(Check value) {
  return [value = std::move(value)](const json& v, const Where& where) {
    if (!v.is_object()) malformed(where, "is not an object", v);
    for (const auto& [name, member] : v.items()) {
      const std::string shown = printable(name, 40);
      value(member, Where{&where, shown});
    }
  };
}

struct Field {
  const char* name;
  Check check;
  bool required = false;
};
constexpr bool kRequired = true;

// An object with these fields (others, a newer writer's, are not looked at).
Check object(std::vector<Field> fields) {
  return [fields = std::move(fields)](const json& v, const Where& where) {
    if (!v.is_object()) malformed(where, "is not an object", v);
    for (const Field& f : fields) {
      const Where at{&where, f.name};
      const auto it = v.find(f.name);
      if (it == v.end()) {
        if (f.required) throw Malformed{spell(at), "is missing"};
        continue;
      }
      f.check(*it, at);
    }
  };
}

// results.json as toJson (tuner/src/report/results_file.cpp) and writeHeader write it; files
// of earlier writers lack some fields (clock, guard, code_size, contention, ...).
const Check& documentCheck() {
  static const Check check = [] {
    const Check ratio = object({{"median", real()},
                                {"ci_low", real()},
                                {"ci_high", real()},
                                {"confidence", real(0, 1)},
                                {"significant", flag()}});
    const Check codeBytes = integer(0, kMaxCodeBytes);
    const Check length = integer(1, std::numeric_limits<int>::max());
    const Check cache = oneOf({"hot", "cold"});
    const Check cpuField = integer(0, std::numeric_limits<std::uint32_t>::max());
    return object({
        {"schema", text(), kRequired},
        {"complete", flag(), kRequired},
        {"generator_version", text()},
        {"created", text()},
        {"host", text()},
        {"pinned_cpu", integer(-1, std::numeric_limits<int>::max())},
        {"finalists_widened", text()},
        {"cpu",
         object({{"key", text(), kRequired},
                 {"brand", text()},
                 {"vendor", text()},
                 {"family", cpuField},
                 {"model", cpuField},
                 {"stepping", cpuField},
                 {"microcode", nullOr(text())},
                 {"features", mapOf(flag()), kRequired}}),
         kRequired},
        {"workload",
         object({{"profile", text(), kRequired},
                 {"sizes",
                  arrayOf(object({{"size", length, kRequired}, {"weight", positive(), kRequired}})),
                  kRequired},
                 {"cache", cache, kRequired},
                 {"description", text()},
                 {"set_size_bytes", count()},
                 {"score", text()}}),
         kRequired},
        {"search",
         object({{"kernel_safe", flag(), kRequired},
                 {"algorithm", text()},
                 {"seed", count()},
                 {"budget", count()},
                 {"time_limit_seconds", real()},
                 {"stall", count()},
                 {"unique_evaluations", count()},
                 {"revisits", count()},
                 {"noise_retries", count()},
                 {"evaluations_total", count()},
                 {"ok", count()},
                 {"wrong", count()},
                 {"refused", count()},
                 {"too_big", count()},
                 {"max_bytes", codeBytes},
                 {"elapsed_seconds", real()},
                 {"stopped_because", text()},
                 {"phases", arrayOf(text())}}),
         kRequired},
        {"timer", object({{"unit", text()}, {"source", text()}, {"overhead", real()}})},
        {"clock",
         object({{"tsc_hz", real()}, {"core_cycles_per_unit", real()}, {"core_hz", real()}})},
        {"measure", object({{"reference", text()},
                            {"search_repeat", count()},
                            {"search_batch_ticks", real()},
                            {"noise_tolerance", real()},
                            {"final_repeat", count()},
                            {"final_batch_ticks", real()},
                            {"seed", count()}})},
        {"evaluations",
         arrayOf(
             object({{"index", count()},
                     {"params", text(), kRequired},
                     {"status", text(), kRequired},
                     {"message", text()},
                     {"score", real()},
                     {"score_per_byte", real()},
                     {"reference_per_byte", real()},
                     {"per_call", arrayOf(real(0, std::numeric_limits<double>::infinity(), false))},
                     {"seconds", real()},
                     {"resumed", flag()},
                     {"bytes", nullOr(codeBytes)}}))},
        {"finalists", arrayOf(object({{"params", text(), kRequired},
                                      {"search_score", real()},
                                      {"score_per_byte", real()},
                                      {"baseline_per_byte", real()},
                                      {"speedup", ratio},
                                      {"bytes", codeBytes},
                                      {"sizes", arrayOf(object({{"size", length},
                                                                {"per_byte", real()},
                                                                {"baseline_per_byte", real()},
                                                                {"speedup", ratio}}))}}))},
        {"sweep", arrayOf(object({{"size", length},
                                  {"cache", cache},
                                  {"winner_per_byte", real()},
                                  {"baseline_per_byte", real()},
                                  {"time_ratio", real()}}))},
        {"guard",
         object({{"lengths", arrayOf(integer(0, std::numeric_limits<int>::max()))},
                 {"tolerance", real()},
                 {"candidates",
                  arrayOf(object({{"params", text()},
                                  {"worst_time_ratio", real()},
                                  {"worst_length", integer(0, std::numeric_limits<int>::max())},
                                  {"eligible", flag()}}))}})},
        {"code_size",
         object({{"max_bytes", nullOr(codeBytes)},
                 {"smallest_in_space", object({{"params", text()}, {"bytes", codeBytes}})},
                 {"pareto",
                  arrayOf(object({{"params", text()}, {"bytes", codeBytes}, {"score", real()}}))},
                 {"limits", arrayOf(object({{"limit_bytes", nullOr(codeBytes)},
                                            {"params", text()},
                                            {"bytes", codeBytes},
                                            {"speedup", ratio},
                                            {"relative_to_winner", real()}}))}})},
        {"contention", object({{"disturbed", flag(), kRequired},
                               {"summary", text(), kRequired},
                               {"phases", arrayOf(object({{"phase", text()},
                                                          {"measurements", count()},
                                                          {"disturbed", count()},
                                                          {"disturbed_share", real()},
                                                          {"kept_seconds", real()},
                                                          {"disturbed_seconds", real()},
                                                          {"seconds", real()},
                                                          {"run_queue_wait_share", real()},
                                                          {"steal_share", real()},
                                                          {"measured_again", count()},
                                                          {"rounds_discarded", count()},
                                                          {"waited_seconds", real()}}))},
                               {"probes", arrayOf(object({{"at", text()},
                                                          {"chain", real()},
                                                          {"reference", real()},
                                                          {"run_queue_wait_share", real()},
                                                          {"steal_share", real()},
                                                          {"slowdown", real()}}))},
                               {"probe_slowdown", real()},
                               {"wait_quiet_limit_seconds", real()},
                               {"waited_seconds", real()},
                               {"wait_limit_ran_out", flag()},
                               {"unavailable", text()}})},
        {"winner",
         nullOr(object({{"params", text(), kRequired},
                        {"score_per_byte", real()},
                        {"baseline", text()},
                        {"baseline_per_byte", real()},
                        {"speedup", ratio},
                        {"bytes", codeBytes},
                        {"verdict", text()},
                        {"source", text()}})),
         kRequired},
    });
  }();
  return check;
}

}  // namespace

std::string printable(std::string_view text, std::size_t maxChars) {
  std::string out;
  std::size_t chars = 0, i = 0;
  while (i < text.size()) {
    if (chars == maxChars) {
      out += fmt::format("\u2026({} more bytes)", text.size() - i);
      break;
    }
    const auto [c, length] = decodeUtf8(text, i);
    if (length == 0) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
      i += 1;
    } else {
      if (c < 0x20 || c == 0x7f) {
        out += fmt::format("\\x{:02x}", static_cast<unsigned>(c));
      } else if ((c >= 0x80 && c <= 0x9f) || isFormatControl(c)) {
        out += c > 0xFFFF ? fmt::format("\\U{:08x}", static_cast<unsigned>(c))
                          : fmt::format("\\u{:04x}", static_cast<unsigned>(c));
      } else {
        out.append(text.substr(i, length));
      }
      i += length;
    }
    ++chars;
  }
  return out;
}

void checkDocument(const json& document, const std::string& path, std::string_view purpose) {
  try {
    documentCheck()(document, Where{});
    // The identity the key is made from: all of it or none (older files), never a part that
    // would skip the key's check.
    const json& cpu = document.at("cpu");
    const bool any = cpu.contains("vendor") || cpu.contains("family") || cpu.contains("model") ||
                     cpu.contains("stepping");
    for (const char* name : {"vendor", "family", "model", "stepping"}) {
      if (any && !cpu.contains(name)) throw Malformed{std::string("cpu.") + name, "is missing"};
    }
  } catch (const Malformed& m) {
    fail(path, purpose, fmt::format("is malformed: \"{}\" {}", m.where, m.what));
  }
}

std::string winnerSourceProblem(const std::string& resultsPath, const gen::Params& winner) {
  const std::filesystem::path source =
      std::filesystem::path(resultsPath).parent_path() / "winner.S";
  std::error_code ec;
  const auto status = std::filesystem::status(source, ec);
  if (ec || !std::filesystem::exists(status)) {
    return "has no winner.S beside it: the run did not finish writing its files";
  }
  if (!std::filesystem::is_regular_file(status))
    return "has a winner.S beside it that is not a file";
  // The header names the params (source_file.cpp: " * params:       <canonical>"), near the top.
  std::string head;
  try {
    head = readFileHead(source, 64 * 1024, Links::Follow);
  } catch (const FileReadError&) {
    return "has a winner.S beside it that is not a file";
  }
  constexpr std::string_view kLine = "\n * params:";
  const auto at = head.find(kLine);
  if (at == std::string::npos) {
    return "has a winner.S beside it that does not name its params (not the run's winner.S)";
  }
  const auto begin = head.find_first_not_of(' ', at + kLine.size());
  const auto end = head.find('\n', begin == std::string::npos ? head.size() : begin);
  const std::string named =
      begin == std::string::npos || end == std::string::npos ? "" : head.substr(begin, end - begin);
  try {
    if (gen::parseParams(named) == winner) return "";
  } catch (const gen::ParamsError&) {
  }
  return fmt::format("has a winner.S beside it for another kernel ({}), not its winner {}",
                     printable(named, 120), winner.toString());
}

json readJsonFile(const std::string& path, std::string_view purpose) {
  // The one bounded reader: a FIFO cannot block, a directory or device is refused, the size
  // is bounded before and while reading. (A link to a results file is fine: users link runs.)
  std::string text;
  try {
    text = readBoundedFile(path, {kMaxFileBytes, Links::Follow});
  } catch (const FileReadError& e) {
    throw Error(Error::Kind::BadResults, fmt::format("cannot {}: {}", purpose, e.what()));
  }
  if (text.empty()) fail(path, purpose, "is empty");
  // The JSON parser takes a NUL byte for the end of its input: whatever follows one (another
  // document, garbage) would be ignored. JSON text has none (inside strings it is \u0000).
  if (const auto nul = text.find('\0'); nul != std::string::npos) {
    fail(path, purpose,
         fmt::format("has a NUL byte at offset {}: not a JSON document (nothing may follow one)",
                     nul));
  }
  json document;
  DocumentBuilder builder(document);
  // Strict: the document, then nothing but whitespace.
  if (!json::sax_parse(text, &builder)) {
    const std::string what = printable(builder.error, 300);
    if (builder.errorId != 101) {
      // E.g. a number too large for a double (found by fuzzing): out_of_range, not a syntax
      // error.
      fail(path, purpose, "is not usable JSON (" + what + ")");
    }
    // Another document or garbage after the first one.
    if (what.find("; expected end of input") != std::string::npos) {
      fail(path, purpose,
           fmt::format("has bytes after the JSON document (at byte {}): not one JSON document",
                       builder.errorByte));
    }
    // A parse error at the very end is what a truncated file looks like.
    if (builder.errorByte >= text.size()) fail(path, purpose, "is truncated (JSON ends early)");
    fail(path, purpose, "is not JSON (" + what + ")");
  }
  if (builder.duplicate) {
    fail(path, purpose,
         fmt::format("is malformed: the key \"{}\" is given twice in one object",
                     printable(*builder.duplicate, 60)));
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
         fmt::format("has schema '{}', not the supported '{}'", printable(found),
                     std::string(kSchema)));
  }
  checkDocument(document, path, purpose);
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
                         printable(h.cpuKey, 60), recomputed));
      }
      h.cpuFields = RunHeader::CpuFields{
          cpu.at("vendor").get<std::string>(), cpu.at("family").get<std::uint32_t>(),
          cpu.at("model").get<std::uint32_t>(), cpu.at("stepping").get<std::uint32_t>()};
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
         "is malformed: a field is missing or has the wrong type (" + printable(e.what()) + ")");
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
