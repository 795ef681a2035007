// libFuzzer: results.json readers. Any bytes in a file: every reader (Jit::load, the header
// reader, --replay's, kmod's, and `show`) either accepts them or refuses with csumtune::Error
// (or show's tuner::BadRequest) — no other exception, no crash, no hang.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "commands.hpp"
#include "csumtune/jit.hpp"
#include "csumtune/loader.hpp"
#include "csumtune/results/document.hpp"
#include "report/results_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path =
      "/tmp/csumtune-fuzz-results-" + std::to_string(::getpid()) + ".json";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  auto attempt = [&](auto&& read) {
    try {
      read();
    } catch (const csumtune::Error&) {
    }
  };
  attempt([&] {
    auto doc = csumtune::results::readDocument(path, "fuzz");
    csumtune::results::readHeader(doc, path, "fuzz");
  });
  attempt([&] { csumtune::tuner::readEvaluations(path); });
  attempt([&] { csumtune::tuner::readWinnerParams(path); });
  attempt([&] { csumtune::Jit::load(path, csumtune::LoadOptions{.acceptSameFeatures = true}); });
  // show's own reading and printing of the fields beyond the header (stdout discarded).
  static const bool quiet = std::freopen("/dev/null", "w", stdout) != nullptr;
  (void)quiet;
  try {
    csumtune::cli::runShow(path);
  } catch (const csumtune::tuner::BadRequest&) {
  } catch (const csumtune::Error&) {
  }
  return 0;
}
