#include "tune/watched_measurement.hpp"

namespace csumtune::tuner {
namespace {
// A disturbed measurement is measured again after waiting for quiet at most this often (the
// wait limit bounds the time; this bounds a machine that probes quiet but measures busy).
constexpr int kQuietAttempts = 8;
}  // namespace

int measureWatched(NoiseGuard& guard, ContentionMonitor* monitor,
                   const std::function<double()>& attempt,
                   const std::function<void()>& afterAttempt) {
  for (int n = 0;; ++n) {
    const Window window = monitor ? monitor->open() : Window{};
    const double baseline = attempt();
    const bool slow = guard.disturbed(baseline);
    const ClosedWindow closed = monitor ? monitor->close(window, slow) : ClosedWindow{slow, 0};
    const bool disturbed = closed.disturbed;
    bool again = guard.shouldRepeat(baseline, n);
    // --wait-quiet: what was measured while busy is measured again once it is quiet.
    // (waitUntilQuiet returns false at once when the run is interrupted.)
    if (disturbed && monitor && monitor->waiting() && n < kQuietAttempts &&
        monitor->waitUntilQuiet() && !again) {
      again = true;
      guard.countRetry();
    }
    if (afterAttempt) afterAttempt();
    if (!again) return n + 1;
    if (monitor) monitor->measuredAgain(closed);
  }
}

}  // namespace csumtune::tuner
