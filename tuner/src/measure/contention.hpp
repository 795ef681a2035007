// Whether the machine was busy while we measured, and waiting until it is quiet again.
//
// Three signals, because contention comes in three kinds:
//  * run-queue wait (another task time-sliced with us on the measuring CPU): the share of a
//    window the scheduler kept us waiting (/proc/thread-self/schedstat);
//  * steal (the hypervisor ran another guest on our vCPU): the share of the window the
//    measuring CPU's steal counter grew (/proc/stat);
//  * a slower core (an SMT sibling sharing its execution units, throttling): a short fixed
//    probe — a dependent add chain, the baseline kernel and a loop of plain loads — and the
//    noise guard's verdict on the baseline measured beside every candidate.
// The chain and the baseline are judged against the run's quickest probe, which cannot see a
// sibling that stays busy from the first probe to the last. The loads' time over the chain's
// is meant to: a dependent chain needs one ALU a cycle and barely notices a sibling, the
// loads want every load port, of which a busy sibling takes a share, and clock speed cancels
// out of the ratio. It is compared with the quickest ratio of an earlier run on this CPU
// (measure/quiet_reference.hpp) and reported, but not yet counted as busy (contention.cpp).
// The monitor is pure logic over a ContentionSource, so the detector and the waiting are
// tested on a synthetic clock with injected busy periods; HostContentionSource reads the
// host (measure/host_contention.hpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

namespace csumtune::tuner {

// Cumulative counters at one moment (seconds).
struct SchedReading {
  double wall = 0;
  double wait = 0;   // time this thread waited on a run queue
  double steal = 0;  // time the hypervisor stole from the measuring CPU
};

// What the probe measured: timer units per run of each part (lower is faster).
struct ProbeFigures {
  double chain = 0;     // a fixed dependent add chain
  double baseline = 0;  // the baseline kernel on one fixed buffer
  double loads = 0;     // a fixed loop of independent loads from one hot buffer (0: none)
                        // (of a probe window: its median, where the others are its quickest)
};

// The loads' time over the chain's: this CPU's load-port speed in core cycles (lower is
// faster), the same at any clock; 0 when the probe has no loads.
double loadsPerChain(const ProbeFigures& f);

class ContentionSource {
 public:
  virtual ~ContentionSource() = default;
  virtual SchedReading read() = 0;
  virtual ProbeFigures probe() = 0;
  virtual void sleep(double seconds) = 0;
  // Whether run-queue wait and steal can be read here ("" when they can; else why not).
  virtual std::string unavailable() const { return {}; }
};

struct ContentionSettings {
  double shareLimit = 0.05;          // wait or steal above this share of a window = busy
  double probeTolerance = 0.04;      // probe slower than the run's quietest by more = busy
  double siblingTolerance = 0.10;    // loads per chain above the remembered one by more: said
  double waitLimitSeconds = 0;       // --wait-quiet: longest total wait (0 = never wait)
  double probeWindowSeconds = 0.03;  // a probe runs this long (spans scheduler slices)
  double pauseSeconds = 0.25;        // sleep between probes while busy
  double disturbedShare = 0.10;      // a phase this disturbed makes the run "disturbed"
  // loadsPerChain of a quiet earlier run on this CPU (0: none known): a probe slower than it
  // by more than siblingTolerance is reported (not yet counted as busy: see contention.cpp).
  double quietLoadsPerChain = 0;
  std::string quietReferenceFile;  // where it is remembered (named in the messages)
};

// One probe: its figures, the scheduler window it ran in, and where in the run it was taken.
struct ProbeRecord {
  std::string at;  // "before search", "after finalists", ...
  ProbeFigures figures;
  double waitShare = 0, stealShare = 0;
  // Of the chain and the baseline against the run's quietest probe (filled in by the monitor).
  double slowdown = 1;
  // Of loads per chain against the remembered quiet ratio (1 without one).
  double loadSlowdown = 1;
};

// A phase of a run (search, guard, finalists, sweep): its kept measurements, how many of them
// were disturbed and for how long, the scheduler shares over its windows, and what waiting for
// quiet cost.
struct PhaseContention {
  std::string name;
  std::size_t measurements = 0;
  std::size_t disturbed = 0;
  double seconds = 0;  // wall time inside its measurements
  double waitShare = 0, stealShare = 0;
  std::size_t measuredAgain = 0;    // measurements dropped and taken again (noise guard, quiet)
  std::size_t roundsDiscarded = 0;  // --wait-quiet: rounds measured while busy, measured again
  double waitedSeconds = 0;         // --wait-quiet: time spent waiting for quiet
  double keptSeconds = 0;           // wall time of the kept measurements
  double disturbedSeconds = 0;      // of which disturbed
  // The share of the phase's measuring time that was disturbed: one short measurement that
  // met a daemon's millisecond weighs what it lasted, not a whole measurement's share.
  double disturbedShare() const { return keptSeconds > 0 ? disturbedSeconds / keptSeconds : 0; }
};

struct ContentionReport {
  std::vector<PhaseContention> phases;
  std::vector<ProbeRecord> probes;
  double waitLimitSeconds = 0;  // 0: --wait-quiet was off
  double waitedSeconds = 0;
  bool gaveUp = false;                // the wait limit ran out while the machine was still busy
  std::string unavailable;            // signals this host cannot give
  double referenceLoadsPerChain = 0;  // the remembered quiet ratio the probes were judged by
  std::string referenceFile;          // where it is remembered
  // This run's quickest ratio over its quiet probes (no wait or steal, the chain at its
  // quickest): what the run leaves to remember; 0 when none qualifies.
  double quietestLoadsPerChain = 0;
  double probeSlowdown() const;  // the largest probe slowdown
  // The largest loadSlowdown of a probe.
  double loadSlowdownAgainstReference() const;
  const PhaseContention* phase(const std::string& name) const;
  // Busy enough that the winner may differ in a quiet period: a phase with at least
  // `disturbedShare` of its measuring time disturbed, or a probe beyond the tolerance.
  bool disturbed(const ContentionSettings& settings = {}) const;
  // One sentence for the CLI, report.md and show.
  std::string summary(const ContentionSettings& settings = {}) const;
};

// A scheduler window open around one measurement.
struct Window {
  SchedReading start;
};

// A measurement's window once closed: whether it was disturbed, and how long it lasted.
struct ClosedWindow {
  bool disturbed = false;
  double wall = 0;
};

class ContentionMonitor {
 public:
  ContentionMonitor(ContentionSource& source, ContentionSettings settings);

  // Ends the current phase (if any) with a probe and starts `name`.
  void beginPhase(const std::string& name);
  // Probes once more (after the last phase) and returns the whole record.
  ContentionReport finish();

  Window open() { return {source_.read()}; }
  // Closes a measurement's window: true when it was disturbed (the baseline measured slow,
  // or the scheduler kept us waiting or the hypervisor stole beyond the share limit).
  ClosedWindow close(const Window& window, bool baselineSlow);
  // A closed measurement of the current phase was dropped (and taken again): only the kept
  // ones count towards the phase's disturbed share.
  void measuredAgain(const ClosedWindow& dropped);
  // For rounds of a long measurement under --wait-quiet: true when the round was quiet (kept);
  // a busy round is counted as discarded, the monitor waits for quiet and the caller measures
  // it again. Once the wait limit is spent every round is kept.
  bool keepRound(const Window& window);

  bool waiting() const { return settings_.waitLimitSeconds > 0; }
  // Waiting stops when this flag is set (Ctrl-C, SIGTERM).
  void setInterruptFlag(const std::atomic<bool>* flag) { interrupted_ = flag; }
  // Blocks until a probe finds the machine quiet or the wait limit is spent. True when quiet.
  // Returns false at once when waiting is off.
  bool waitUntilQuiet();

  const ContentionSettings& settings() const { return settings_; }

 private:
  struct Shares {
    double wall, wait, steal;
  };
  Shares sharesSince(const SchedReading& start, const SchedReading& end) const;
  bool busy(const Shares& s) const;
  // Runs a probe window; true when it found the machine quiet. `record`: kept in the report
  // (the probes while waiting are not: there may be thousands).
  bool probeQuiet(const std::string& at, bool record = true);
  PhaseContention& current();
  void addWindow(const Shares& s);
  // How much slower than quiet `f` ran: its chain or baseline against the run's quietest
  // probe; its loads per chain against the remembered quiet ratio.
  double slowdownOf(const ProbeFigures& f) const;
  double loadSlowdownOf(const ProbeFigures& f) const;

  ContentionSource& source_;
  ContentionSettings settings_;
  ContentionReport report_;
  ProbeFigures quietest_{};
  bool haveQuietest_ = false;
  const std::atomic<bool>* interrupted_ = nullptr;
};

}  // namespace csumtune::tuner
