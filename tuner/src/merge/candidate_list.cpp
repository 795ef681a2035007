#include "merge/candidate_list.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "csumtune/results/document.hpp"
#include "request_errors.hpp"

namespace csumtune::tuner {
namespace {

// A list of every kernel of the space is far below this; anything larger is not a list.
constexpr std::uintmax_t kMaxListBytes = 4u << 20;

std::string trimmed(const std::string& line) {
  const auto first = line.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  const auto last = line.find_last_not_of(" \t\r");
  return line.substr(first, last - first + 1);
}

}  // namespace

std::vector<gen::Params> parseCandidateList(const std::string& text, const std::string& origin) {
  std::vector<gen::Params> list;
  std::map<std::string, int> lineOf;  // canonical string -> the line that listed it first
  std::istringstream lines(text);
  int number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    line = trimmed(line);
    if (line.empty()) continue;
    gen::Params params;
    try {
      params = gen::parseParams(line);
    } catch (const gen::ParamsError& e) {
      throw BadRequest(fmt::format("{}:{}: bad candidate '{}': {}", origin, number,
                                   results::printable(line), e.what()));
    }
    const std::string key = params.canonical().toString();
    if (const auto seen = lineOf.find(key); seen != lineOf.end()) {
      throw BadRequest(fmt::format("{}:{}: the kernel of line {} again ({}): list each once",
                                   origin, number, seen->second, key));
    }
    if (!list.empty() && params.kind != list.front().kind) {
      throw BadRequest(fmt::format(
          "{}:{}: a {} kernel in a list of {} kernels: measure each kind in its own list", origin,
          number, gen::toString(params.kind), gen::toString(list.front().kind)));
    }
    lineOf.emplace(key, number);
    list.push_back(params);
  }
  if (list.empty()) throw BadRequest(fmt::format("{}: lists no candidate", origin));
  return list;
}

std::vector<gen::Params> readCandidateList(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  const auto status = fs::status(path, error);
  if (error || !fs::exists(status))
    throw BadRequest(fmt::format("--candidates {}: no such file", results::printable(path)));
  if (!fs::is_regular_file(status))
    throw BadRequest(fmt::format("--candidates {}: not a regular file", results::printable(path)));
  if (fs::file_size(path, error) > kMaxListBytes || error)
    throw BadRequest(
        fmt::format("--candidates {}: too large for a list of kernels", results::printable(path)));
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in)
    throw BadRequest(fmt::format("--candidates {}: cannot be read", results::printable(path)));
  return parseCandidateList(text.str(), results::printable(path));
}

}  // namespace csumtune::tuner
