#include "measure/contention.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace csumtune::tuner {

double loadsPerChain(const ProbeFigures& f) {
  return f.loads > 0 && f.chain > 0 ? f.loads / f.chain : 0;
}

double ContentionReport::probeSlowdown() const {
  double worst = 1;
  for (const ProbeRecord& p : probes) worst = std::max(worst, p.slowdown);
  return worst;
}

double ContentionReport::loadSlowdownAgainstReference() const {
  double worst = 1;
  if (referenceLoadsPerChain <= 0) return worst;
  for (const ProbeRecord& p : probes) worst = std::max(worst, p.loadSlowdown);
  return worst;
}

const PhaseContention* ContentionReport::phase(const std::string& name) const {
  for (const PhaseContention& p : phases) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

bool ContentionReport::disturbed(const ContentionSettings& settings) const {
  for (const PhaseContention& p : phases) {
    if (p.measurements > 0 && p.disturbedShare() >= settings.disturbedShare) return true;
  }
  return probeSlowdown() > 1 + settings.probeTolerance;
}

std::string ContentionReport::summary(const ContentionSettings& settings) const {
  const PhaseContention* search = phase("search");
  const double searchShare = search ? search->disturbedShare() : 0;
  std::string text;
  if (disturbed(settings)) {
    text = fmt::format("the machine was busy during {:.0f} % of the search", 100 * searchShare);
    std::string others;
    for (const PhaseContention& p : phases) {
      if (p.name == "search" || p.disturbed == 0) continue;
      others += fmt::format("{}{} {:.0f} %", others.empty() ? "" : ", ", p.name,
                            100 * p.disturbedShare());
    }
    if (!others.empty()) text += " (" + others + ")";
    if (probeSlowdown() > 1 + settings.probeTolerance)
      text += fmt::format("; the probe ran up to {:.0f} % slower", 100 * (probeSlowdown() - 1));
    text += ": the winner may differ in a quiet period";
  } else {
    text = fmt::format("the machine was quiet ({:.0f} % of the search's measuring time disturbed",
                       100 * searchShare);
    text += fmt::format(", probe within {:.0f} %)", 100 * (probeSlowdown() - 1));
  }
  // Recorded, not counted: on one VM the loads loop ran in two speeds a fifth apart that the
  // other signals did not tell apart, so a verdict on it alone could call a quiet run busy.
  if (const double loads = loadSlowdownAgainstReference(); loads > 1 + settings.siblingTolerance)
    text += fmt::format(
        "; the probe's loads ran {:.0f} % slower than on this CPU's quickest earlier run "
        "(perhaps a busy core sibling; remembered in {}; not counted as busy)",
        100 * (loads - 1), referenceFile);
  if (waitLimitSeconds > 0) {
    text += fmt::format("; waited {:.0f} s for quiet", waitedSeconds);
    if (gaveUp) text += fmt::format(" (the {:.0f} s limit ran out while busy)", waitLimitSeconds);
  }
  return text;
}

ContentionMonitor::ContentionMonitor(ContentionSource& source, ContentionSettings settings)
    : source_(source), settings_(settings) {
  report_.waitLimitSeconds = settings.waitLimitSeconds;
  report_.unavailable = source.unavailable();
  report_.referenceLoadsPerChain = settings.quietLoadsPerChain;
  report_.referenceFile = settings.quietReferenceFile;
}

ContentionMonitor::Shares ContentionMonitor::sharesSince(const SchedReading& start,
                                                         const SchedReading& end) const {
  const double wall = std::max(end.wall - start.wall, 0.0);
  if (wall <= 0) return {0, 0, 0};
  return {wall, std::clamp((end.wait - start.wait) / wall, 0.0, 1.0),
          std::clamp((end.steal - start.steal) / wall, 0.0, 1.0)};
}

bool ContentionMonitor::busy(const Shares& s) const {
  return s.wait > settings_.shareLimit || s.steal > settings_.shareLimit;
}

PhaseContention& ContentionMonitor::current() {
  if (report_.phases.empty()) report_.phases.push_back({"search"});
  return report_.phases.back();
}

void ContentionMonitor::addWindow(const Shares& s) {
  PhaseContention& p = current();
  // Shares over the phase: weighted by each window's length.
  const double total = p.seconds + s.wall;
  if (total > 0) {
    p.waitShare = (p.waitShare * p.seconds + s.wait * s.wall) / total;
    p.stealShare = (p.stealShare * p.seconds + s.steal * s.wall) / total;
  }
  p.seconds = total;
}

ClosedWindow ContentionMonitor::close(const Window& window, bool baselineSlow) {
  const Shares s = sharesSince(window.start, source_.read());
  addWindow(s);
  PhaseContention& p = current();
  ++p.measurements;
  const bool disturbed = baselineSlow || busy(s);
  p.disturbed += disturbed;
  p.keptSeconds += s.wall;
  if (disturbed) p.disturbedSeconds += s.wall;
  return {disturbed, s.wall};
}

void ContentionMonitor::measuredAgain(const ClosedWindow& dropped) {
  PhaseContention& p = current();
  if (p.measurements == 0) return;
  --p.measurements;
  p.keptSeconds = std::max(0.0, p.keptSeconds - dropped.wall);
  if (dropped.disturbed && p.disturbed > 0) {
    --p.disturbed;
    p.disturbedSeconds = std::max(0.0, p.disturbedSeconds - dropped.wall);
  }
  ++p.measuredAgain;
}

bool ContentionMonitor::keepRound(const Window& window) {
  const Shares s = sharesSince(window.start, source_.read());
  if (!busy(s) || !waiting() || report_.gaveUp || (interrupted_ && interrupted_->load()))
    return true;
  ++current().roundsDiscarded;
  waitUntilQuiet();
  return false;
}

bool ContentionMonitor::probeQuiet(const std::string& at, bool record) {
  // Probe repeatedly for a whole window: a scheduler slice is milliseconds long, one probe
  // microseconds; the quickest figure of the window is the core's speed in it.
  const SchedReading start = source_.read();
  ProbeFigures best{};
  bool first = true;
  SchedReading now = start;
  // The loads are the median of the window, not its quickest: a sibling that shares the core
  // for a part of each millisecond leaves quick gaps the quickest would find, and one timer
  // glitch would be a figure remembered for good.
  std::vector<double> loads;
  do {
    const ProbeFigures f = source_.probe();
    if (first || f.chain < best.chain) best.chain = f.chain;
    if (first || f.baseline < best.baseline) best.baseline = f.baseline;
    loads.push_back(f.loads);
    first = false;
    now = source_.read();
  } while (now.wall - start.wall < settings_.probeWindowSeconds);
  std::nth_element(loads.begin(), loads.begin() + loads.size() / 2, loads.end());
  best.loads = loads[loads.size() / 2];
  const Shares s = sharesSince(start, now);
  const double slowdown = slowdownOf(best);
  const double loadSlowdown = loadSlowdownOf(best);
  // The quietest probe of the run is the core's quiet speed (a run that starts busy learns
  // it when the machine quiets down).
  if (!haveQuietest_) quietest_ = best;
  quietest_.chain = std::min(quietest_.chain, best.chain);
  quietest_.baseline = std::min(quietest_.baseline, best.baseline);
  haveQuietest_ = true;
  if (record) report_.probes.push_back({at, best, s.wait, s.steal, slowdown, loadSlowdown});
  return !busy(s) && slowdown <= 1 + settings_.probeTolerance;
}

void ContentionMonitor::beginPhase(const std::string& name) {
  // The first probe of a run warms up (code and buffer not yet in cache, the core's clock
  // still rising: it measures slow); it is not recorded.
  if (report_.probes.empty()) probeQuiet("warm-up", false);
  const bool quiet = probeQuiet("before " + name);
  report_.phases.push_back({name});
  // --wait-quiet: a phase starts in a quiet stretch.
  if (!quiet) waitUntilQuiet();
}

bool ContentionMonitor::waitUntilQuiet() {
  if (!waiting() || report_.gaveUp) return false;
  const SchedReading start = source_.read();
  for (;;) {
    if (interrupted_ && interrupted_->load()) break;
    if (probeQuiet("waiting for quiet", false)) break;
    const double waited = source_.read().wall - start.wall;
    if (report_.waitedSeconds + waited >= settings_.waitLimitSeconds) {
      report_.gaveUp = true;
      break;
    }
    source_.sleep(settings_.pauseSeconds);
  }
  const double waited = source_.read().wall - start.wall;
  report_.waitedSeconds += waited;
  current().waitedSeconds += waited;
  return !report_.gaveUp && !(interrupted_ && interrupted_->load());
}

ContentionReport ContentionMonitor::finish() {
  probeQuiet("at the end");
  // Slowdowns against the quietest probe of the whole run (the early probes did not know it).
  for (ProbeRecord& p : report_.probes) p.slowdown = slowdownOf(p.figures);
  // What the run leaves to remember: only probes of a quiet window whose chain ran at the
  // run's quickest (a sibling that slows the chain more than the loads would leave a ratio
  // quicker than quiet, and it would stay: the remembered ratio is only ever lowered).
  for (const ProbeRecord& p : report_.probes) {
    const double ratio = loadsPerChain(p.figures);
    const bool quiet = !busy({1, p.waitShare, p.stealShare}) &&
                       p.figures.chain <= (1 + settings_.probeTolerance) * quietest_.chain;
    if (ratio <= 0 || !quiet) continue;
    double& quickest = report_.quietestLoadsPerChain;
    quickest = quickest > 0 ? std::min(quickest, ratio) : ratio;
  }
  return report_;
}

double ContentionMonitor::slowdownOf(const ProbeFigures& f) const {
  double slowdown = 1;
  if (haveQuietest_) {
    auto against = [&](double figure, double quiet) {
      if (quiet > 0) slowdown = std::max(slowdown, figure / quiet);
    };
    against(f.chain, quietest_.chain);
    against(f.baseline, quietest_.baseline);
  }
  return slowdown;
}

double ContentionMonitor::loadSlowdownOf(const ProbeFigures& f) const {
  const double ratio = loadsPerChain(f);
  if (settings_.quietLoadsPerChain <= 0 || ratio <= 0) return 1;
  return std::max(1.0, ratio / settings_.quietLoadsPerChain);
}

}  // namespace csumtune::tuner
