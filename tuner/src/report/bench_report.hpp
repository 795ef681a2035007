// bench results: figures per kernel and size, comparisons against a baseline, and the four
// output formats (table, the 2013 thread's table ("thread"; "seed" before), JSON, CSV).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "csumtune/cpu.hpp"
#include "measure/clock_rates.hpp"
#include "measure/contention.hpp"
#include "measure/harness.hpp"
#include "measure/stats.hpp"

namespace csumtune::tuner {

inline constexpr const char* kBenchSchema = "csumtune-bench/1";

struct BenchSetup {
  std::string unit;  // "cycles" or "tsc-ticks"
  std::string timerSource;
  double timerOverhead = 0;  // timer units, subtracted from every batch
  CpuIdentity cpu;
  int pinnedCpu = -1;
  std::vector<std::string> warnings;
  CacheState cache = CacheState::Hot;
  std::size_t setSizeBytes = 0;
  int offset = 0;
  bool serialized = false;
  // Under bench --same-address: each round's address, shared by the kernels that could be
  // moved; the names of those timed where they were built.
  bool sharedAddresses = false;
  std::vector<std::string> keptInPlace;
  int repeat = 0;
  std::vector<int> sizes;
  ClockRates clock;  // what a timer unit is worth here (bytes per core cycle)
  // The contention monitor's record of the run (probes before and after, a window around
  // every round of the interleaved measurement); none when it was not watched (tests).
  std::optional<ContentionReport> contention;
};

struct SizeFigures {
  int size = 0;
  std::size_t iterations = 0;
  std::size_t samples = 0;
  Summary perByte;
  Summary perCall;
};

struct KernelFigures {
  TimedKernel kernel;
  std::vector<SizeFigures> sizes;
};

struct Comparison {
  std::string kernel;
  std::string baseline;
  int size = 0;
  RatioEstimate speedup;  // baseline time / kernel time: > 1 means the kernel is faster
};

// A figure's spread: 100 * MAD / median of its samples (per byte).
double spreadPercent(const Summary& figure);

// Whether the figures can be trusted: the spread of the samples behind them, and whether the
// machine was busy while they were measured (the contention monitor's verdict, as tune's).
struct BenchReliability {
  static constexpr double kSpreadLimitPercent = 5.0;  // the median figure's spread above: bad
  double medianSpreadPercent = 0;  // the median over every kernel and size of spreadPercent()
  double widestSpreadPercent = 0;
  std::string widestFigure;  // "linux-v6.8 at 64 B"
  bool watched = false;      // the contention monitor ran
  bool disturbed = false;    // its verdict: busy
  std::string machine;       // one sentence on the machine ("quiet (...)", "busy: ...")
  bool spreadTooWide() const { return medianSpreadPercent > kSpreadLimitPercent; }
  bool unreliable() const { return disturbed || spreadTooWide(); }
  // "" when reliable; else why not, one sentence (the CLI's warning line).
  std::string problem() const;
};

struct BenchReport {
  BenchSetup setup;
  std::vector<KernelFigures> kernels;
  std::vector<Comparison> comparisons;
  BenchReliability reliability;
};

// The reliability of these figures measured under this contention record (none: not watched).
BenchReliability assessReliability(const std::vector<KernelFigures>& kernels,
                                   const std::optional<ContentionReport>& contention);

// Figures from raw samples; every kernel other than `baselineName` is compared with it
// (when it is among the kernels).
BenchReport buildBenchReport(const BenchSetup& setup, const std::vector<KernelSamples>& samples,
                             const std::optional<std::string>& baselineName);

std::string formatTable(const BenchReport& report);
std::string formatThreadTable(const BenchReport& report);
// The JSON document formatJson prints, for a caller that adds a section of its own (bench
// --candidates adds its speed-up tables).
nlohmann::json benchJson(const BenchReport& report);
// The "cpu" object of bench's JSON (and of the instruction counts'): identity, features, key.
nlohmann::json cpuJson(const CpuIdentity& cpu);
std::string formatJson(const BenchReport& report);
std::string formatCsv(const BenchReport& report);

// "1.23x faster [1.20, 1.25]" or "no significant difference (0.99x [0.97, 1.01])".
std::string describeSpeedup(const RatioEstimate& speedup);

}  // namespace csumtune::tuner
