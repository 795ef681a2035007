#include "progress_line.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>

namespace csumtune::cli {
namespace {

using Clock = std::chrono::steady_clock;
// A redraw costs a write to the terminal; more than this many a second only flickers.
constexpr auto kRedrawInterval = std::chrono::milliseconds(200);

std::string duration(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  return s >= 60 ? fmt::format("{}m{:02}s", s / 60, s % 60) : fmt::format("{}s", s);
}

}  // namespace

ProgressLine::ProgressLine(std::FILE* stream, bool enabled)
    : stream_(stream), enabled_(enabled && isatty(fileno(stream))) {}

ProgressLine::~ProgressLine() {
  clear();
}

std::string ProgressLine::render(const std::string& phase, std::size_t done, std::size_t total,
                                 double elapsedSeconds, const std::string& detail,
                                 std::size_t columns) {
  std::string head = fmt::format("tune: {}", phase);
  if (total > 0) {
    head += fmt::format(" {}/{}", std::min(done, total), total);
    if (done > 0 && done < total) {
      const double eta = elapsedSeconds / static_cast<double>(done) * (total - done);
      head += fmt::format(", ETA {}", duration(eta));
    }
  } else if (done > 0) {
    head += fmt::format(" {}", done);
  }
  head += fmt::format(", {}", duration(elapsedSeconds));
  std::string line = detail.empty() ? head : head + " | " + detail;
  const std::size_t width = columns > 1 ? columns - 1 : 0;
  if (line.size() > width) line.resize(width);
  return line;
}

std::size_t ProgressLine::columns() const {
  winsize size{};
  if (ioctl(fileno(stream_), TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

void ProgressLine::phase(const std::string& name, std::size_t total) {
  phase_ = name;
  total_ = total;
  done_ = 0;
  detail_.clear();
  phaseStart_ = Clock::now();
  draw(true);
}

void ProgressLine::update(std::size_t done, const std::string& detail) {
  done_ = done;
  detail_ = detail;
  draw(false);
}

void ProgressLine::draw(bool force) {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (!force && drawn_ && now - lastDraw_ < kRedrawInterval) return;
  lastDraw_ = now;
  const double elapsed = std::chrono::duration<double>(now - phaseStart_).count();
  // \r to the line's start, the text, then erase what a longer earlier line left.
  std::fprintf(stream_, "\r%s\x1b[K",
               render(phase_, done_, total_, elapsed, detail_, columns()).c_str());
  std::fflush(stream_);
  drawn_ = true;
}

void ProgressLine::clear() {
  if (!enabled_ || !drawn_) return;
  std::fputs("\r\x1b[K", stream_);
  std::fflush(stream_);
  drawn_ = false;
}

}  // namespace csumtune::cli
