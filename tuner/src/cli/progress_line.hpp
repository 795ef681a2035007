// tune's progress: one line on a terminal that names the phase, shows done/total and an ETA,
// fits the terminal's width (cut, never wrapped) and is redrawn at most a few times a second.
// Off when the stream is not a terminal (logs and pipes get only the summary).
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace csumtune::cli {

class ProgressLine {
 public:
  ProgressLine(std::FILE* stream, bool enabled);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // A new phase of `total` steps (0: unknown); drawn at once.
  void phase(const std::string& name, std::size_t total);
  // `done` of the phase's steps; `detail` (the best so far) is cut first when space runs out.
  void update(std::size_t done, const std::string& detail);
  // Clears the line (before the summary or a message of its own).
  void clear();

  // The line as drawn for a terminal of `columns` (exposed for tests): at most columns - 1
  // characters, so the cursor never moves to the next line.
  static std::string render(const std::string& phase, std::size_t done, std::size_t total,
                            double elapsedSeconds, const std::string& detail, std::size_t columns);

 private:
  void draw(bool force);
  std::size_t columns() const;

  std::FILE* stream_;
  bool enabled_;
  bool drawn_ = false;
  std::string phase_, detail_;
  std::size_t done_ = 0, total_ = 0;
  std::chrono::steady_clock::time_point phaseStart_, lastDraw_;
};

}  // namespace csumtune::cli
