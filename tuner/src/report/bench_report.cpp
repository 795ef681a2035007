#include "report/bench_report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "csumtune/gen/kernel_program.hpp"

namespace csumtune::tuner {
namespace {

std::string setSizeText(const BenchSetup& setup, int size) {
  if (setup.cache == CacheState::Hot) return fmt::format("{}B hot", size);
  return fmt::format("{}M", setup.setSizeBytes >> 20);
}

nlohmann::json summaryJson(const Summary& s) {
  return {{"median", s.median}, {"min", s.min}, {"max", s.max},
          {"mean", s.mean},     {"mad", s.mad}, {"q1", s.q1},
          {"q3", s.q3},         {"iqr", s.iqr}, {"rsd_percent", s.rsdPercent}};
}

}  // namespace

std::string describeSpeedup(const RatioEstimate& s) {
  const std::string figures = fmt::format("{:.3f}x [{:.3f}, {:.3f}]", s.median, s.low, s.high);
  if (!s.significant()) return "no significant difference (" + figures + ")";
  return figures + (s.median >= 1 ? " faster" : " slower");
}

double spreadPercent(const Summary& figure) {
  return figure.median > 0 ? 100 * figure.mad / figure.median : 0;
}

std::string BenchReliability::problem() const {
  std::string text;
  if (disturbed) text = "the machine was busy while they were measured (" + machine + ")";
  if (spreadTooWide()) {
    text += fmt::format(
        "{}the samples spread widely (median {:.1f} % MAD/median, above {:.0f} %; widest {:.1f} "
        "%, {})",
        text.empty() ? "" : "; ", medianSpreadPercent, kSpreadLimitPercent, widestSpreadPercent,
        widestFigure);
  }
  return text;
}

BenchReliability assessReliability(const std::vector<KernelFigures>& kernels,
                                   const std::optional<ContentionReport>& contention) {
  BenchReliability r;
  std::vector<double> spreads;
  for (const KernelFigures& k : kernels) {
    for (const SizeFigures& f : k.sizes) {
      const double spread = spreadPercent(f.perByte);
      spreads.push_back(spread);
      if (spread > r.widestSpreadPercent || r.widestFigure.empty()) {
        r.widestSpreadPercent = spread;
        r.widestFigure = fmt::format("{} at {} B", k.kernel.name, f.size);
      }
    }
  }
  std::sort(spreads.begin(), spreads.end());
  if (!spreads.empty()) r.medianSpreadPercent = quantileSorted(spreads, 0.5);
  if (!contention) {
    r.machine = "not watched";
    return r;
  }
  const ContentionReport& c = *contention;
  const ContentionSettings settings;
  r.watched = true;
  r.disturbed = c.disturbed(settings);
  double share = 0, wait = 0, steal = 0;
  for (const PhaseContention& p : c.phases) {
    share = std::max(share, p.disturbedShare());
    wait = std::max(wait, p.waitShare);
    steal = std::max(steal, p.stealShare);
  }
  const double slower = 100 * (c.probeSlowdown() - 1);
  if (r.disturbed) {
    r.machine = fmt::format(
        "busy: {:.0f} % of the measuring time disturbed (run-queue wait {:.0f} %, steal {:.0f} "
        "%), the probe up to {:.0f} % slower",
        100 * share, 100 * wait, 100 * steal, slower);
  } else {
    r.machine =
        fmt::format("quiet ({:.0f} % of the measuring time disturbed, probe within {:.0f} %)",
                    100 * share, slower);
  }
  if (!c.unavailable.empty()) r.machine += "; " + c.unavailable;
  return r;
}

BenchReport buildBenchReport(const BenchSetup& setup, const std::vector<KernelSamples>& samples,
                             const std::optional<std::string>& baselineName) {
  BenchReport report{setup, {}, {}, {}};
  const KernelSamples* baseline = nullptr;
  for (const KernelSamples& k : samples) {
    if (baselineName && k.kernel.name == *baselineName) baseline = &k;
    KernelFigures figures{k.kernel, {}};
    for (const SizeSamples& s : k.sizes) {
      std::vector<double> perByte;
      for (double c : s.perCall) perByte.push_back(c / s.size);
      figures.sizes.push_back(
          {s.size, s.iterations, s.perCall.size(), summarize(perByte), summarize(s.perCall)});
    }
    report.kernels.push_back(std::move(figures));
  }
  if (baseline) {
    for (const KernelSamples& k : samples) {
      if (&k == baseline) continue;
      for (std::size_t i = 0; i < k.sizes.size(); ++i) {
        report.comparisons.push_back({k.kernel.name, baseline->kernel.name, k.sizes[i].size,
                                      pairedRatio(baseline->sizes[i].perCall, k.sizes[i].perCall)});
      }
    }
  }
  report.reliability = assessReliability(report.kernels, setup.contention);
  return report;
}

namespace {
std::string bytesText(const TimedKernel& k) {
  return k.bytes ? fmt::format("{} bytes of code", k.bytes) : "code size unknown";
}
double bytesPerCycle(const BenchSetup& s, double unitsPerByte) {
  const double cycles = unitsPerByte * s.clock.cyclesPerUnit;
  return cycles > 0 ? 1 / cycles : 0;
}
}  // namespace

namespace {
// The two lines every text format ends its header (or its table) with.
std::string reliabilityLines(const BenchReliability& r, std::string_view prefix) {
  std::string out = fmt::format("{}machine: {}\n", prefix, r.machine);
  out += fmt::format(
      "{}spread: median {:.1f} % MAD/median over the figures (widest {:.1f} %, {}){}\n", prefix,
      r.medianSpreadPercent, r.widestSpreadPercent, r.widestFigure,
      r.spreadTooWide() ? fmt::format(": above {:.0f} %", BenchReliability::kSpreadLimitPercent)
                        : "");
  if (r.unreliable())
    out += fmt::format("{}warning: unreliable figures: {}\n", prefix, r.problem());
  return out;
}
}  // namespace

std::string formatTable(const BenchReport& r) {
  const BenchSetup& s = r.setup;
  std::string out = fmt::format(
      "{} cache{}, offset {}, calls {}, {} samples per figure, timer {} ({}; overhead {:.0f} "
      "subtracted), "
      "CPU {} pinned\n",
      toString(s.cache),
      s.cache == CacheState::Cold
          ? fmt::format(" (set {} MiB, random positions)", s.setSizeBytes >> 20)
          : "",
      s.offset, s.serialized ? "serialized (latency)" : "chained through the sum", s.repeat, s.unit,
      s.timerSource, s.timerOverhead, s.pinnedCpu);
  out += fmt::format("cpu: {} (family {:#x} model {:#x} stepping {})\n", s.cpu.brand, s.cpu.family,
                     s.cpu.model, s.cpu.stepping);
  out += fmt::format(
      "clock: TSC {:.3f} GHz, {:.3f} core cycles per {} (core {:.2f} GHz); bytes per core cycle "
      "= 1 / ({}/byte x {:.3f})\n",
      s.clock.tscHz / 1e9, s.clock.cyclesPerUnit, s.unit == "cycles" ? "cycle" : "tick",
      s.clock.coreHz() / 1e9, s.unit, s.clock.cyclesPerUnit);
  if (s.sharedAddresses) {
    out +=
        "code: each round copies every kernel, in turn, to the one address it drew, warms it "
        "up and times it there: a round's paired samples compare code, not where it sits";
    if (!s.keptInPlace.empty())
      out += fmt::format(" (timed where built: {})", fmt::join(s.keptInPlace, ", "));
    out += "\n";
  }
  for (const auto& w : s.warnings) out += "warning: " + w + "\n";
  out += reliabilityLines(r.reliability, "");
  out += "\n";
  for (std::size_t k = 0; k < r.kernels.size(); ++k) {
    const TimedKernel& kernel = r.kernels[k].kernel;
    out += fmt::format(
        "K{} = {}{}, {}\n", k + 1, kernel.name,
        kernel.kind == TimedKind::Jit ? "" : fmt::format(" ({})", toString(kernel.kind)),
        bytesText(kernel));
  }
  out += fmt::format("\nmedian {}/byte ± MAD, [min]\n{:>7}", s.unit, "bytes");
  for (std::size_t k = 0; k < r.kernels.size(); ++k)
    out += fmt::format(" {:>22}", fmt::format("K{}", k + 1));
  out += "\n";
  for (std::size_t i = 0; i < s.sizes.size(); ++i) {
    out += fmt::format("{:>7}", s.sizes[i]);
    for (const auto& k : r.kernels) {
      const Summary& f = k.sizes[i].perByte;
      out += fmt::format(" {:>22}", fmt::format("{:.4f} ±{:.4f} [{:.4f}]", f.median, f.mad, f.min));
    }
    out += "\n";
  }
  out += fmt::format("\nmedian bytes per core cycle\n{:>7}", "bytes");
  for (std::size_t k = 0; k < r.kernels.size(); ++k)
    out += fmt::format(" {:>10}", fmt::format("K{}", k + 1));
  out += "\n";
  for (std::size_t i = 0; i < s.sizes.size(); ++i) {
    out += fmt::format("{:>7}", s.sizes[i]);
    for (const auto& k : r.kernels)
      out += fmt::format(" {:>10.2f}", bytesPerCycle(s, k.sizes[i].perByte.median));
    out += "\n";
  }
  if (!r.comparisons.empty()) {
    out += fmt::format("\nspeedup vs {} (median of interleaved paired ratios, 95% CI)\n",
                       r.comparisons.front().baseline);
    for (const Comparison& c : r.comparisons) {
      out += fmt::format("{:>7}  {:<48} {}\n", c.size, c.kernel, describeSpeedup(c.speedup));
    }
  }
  return out;
}

std::string formatThreadTable(const BenchReport& r) {
  const std::string unitColumn = r.setup.unit == "cycles" ? "cycles/byte" : r.setup.unit + "/byte";
  std::string out;
  for (const KernelFigures& k : r.kernels) {
    out +=
        fmt::format("{} ({}, {})\n", k.kernel.name, toString(k.kernel.kind), bytesText(k.kernel));
    out +=
        fmt::format("{:>8} | {:>10} | {:>10} | {}\n", "length", "Set Sz", "iterations", unitColumn);
    for (const SizeFigures& f : k.sizes) {
      out += fmt::format("{:>8} | {:>10} | {:>10} | {:.4f}\n", f.size, setSizeText(r.setup, f.size),
                         f.iterations * f.samples, f.perByte.median);
    }
    out += "\n";
  }
  out += reliabilityLines(r.reliability, "");
  return out;
}

nlohmann::json cpuJson(const CpuIdentity& cpu) {
  nlohmann::json features = nlohmann::json::object();
  for (const auto& f : cpu.features) features[f.name] = f.present;
  return {{"vendor", cpu.vendor},
          {"brand", cpu.brand},
          {"family", cpu.family},
          {"model", cpu.model},
          {"stepping", cpu.stepping},
          {"microcode", cpu.microcode ? nlohmann::json(*cpu.microcode) : nlohmann::json()},
          {"features", features},
          {"key", cpuKey(cpu)}};
}

nlohmann::json benchJson(const BenchReport& r) {
  const BenchSetup& s = r.setup;
  nlohmann::json j = {
      {"schema", kBenchSchema},
      {"generator_version", gen::kGeneratorVersion},
      {"unit", s.unit},
      {"clock",
       {{"tsc_hz", s.clock.tscHz},
        {"core_cycles_per_unit", s.clock.cyclesPerUnit},
        {"core_hz", s.clock.coreHz()}}},
      {"timer", {{"source", s.timerSource}, {"overhead", s.timerOverhead}}},
      {"cpu", cpuJson(s.cpu)},
      {"pinned_cpu", s.pinnedCpu},
      {"warnings", s.warnings},
      {"workload",
       {{"cache", toString(s.cache)},
        {"set_size_bytes", s.setSizeBytes},
        {"offset", s.offset},
        {"calls", s.serialized ? "serialized" : "chained"},
        {"code_addresses", s.sharedAddresses ? "shared" : "own"},
        {"kept_in_place", s.keptInPlace},
        {"repeat", s.repeat},
        {"sizes", s.sizes}}},
  };
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelFigures& k : r.kernels) {
    nlohmann::json sizes = nlohmann::json::array();
    for (const SizeFigures& f : k.sizes) {
      sizes.push_back({{"size", f.size},
                       {"iterations", f.iterations},
                       {"samples", f.samples},
                       {"per_byte", summaryJson(f.perByte)},
                       {"spread_percent", spreadPercent(f.perByte)},
                       {"bytes_per_core_cycle", bytesPerCycle(s, f.perByte.median)},
                       {"per_call", summaryJson(f.perCall)}});
    }
    kernels.push_back(
        {{"name", k.kernel.name},
         {"params", k.kernel.params},
         {"kind", toString(k.kernel.kind)},
         {"code_bytes", k.kernel.bytes ? nlohmann::json(k.kernel.bytes) : nlohmann::json()},
         {"results", sizes}});
  }
  j["kernels"] = kernels;
  nlohmann::json comparisons = nlohmann::json::array();
  for (const Comparison& c : r.comparisons) {
    comparisons.push_back({{"kernel", c.kernel},
                           {"baseline", c.baseline},
                           {"size", c.size},
                           {"speedup", c.speedup.median},
                           {"ci_low", c.speedup.low},
                           {"ci_high", c.speedup.high},
                           {"confidence", c.speedup.confidence},
                           {"significant", c.speedup.significant()}});
  }
  j["comparisons"] = comparisons;
  const BenchReliability& rel = r.reliability;
  j["reliability"] = {{"reliable", !rel.unreliable()},
                      {"problem", rel.problem()},
                      {"machine_watched", rel.watched},
                      {"machine_disturbed", rel.disturbed},
                      {"machine", rel.machine},
                      {"median_spread_percent", rel.medianSpreadPercent},
                      {"widest_spread_percent", rel.widestSpreadPercent},
                      {"widest_figure", rel.widestFigure},
                      {"spread_limit_percent", BenchReliability::kSpreadLimitPercent}};
  return j;
}

std::string formatJson(const BenchReport& r) {
  return benchJson(r).dump(2) + "\n";
}

std::string formatCsv(const BenchReport& r) {
  std::string out =
      "kernel,kind,size,unit,cache,set_size_bytes,iterations,samples,median_per_byte,min_per_byte,"
      "mad_per_byte,iqr_per_byte,rsd_percent,median_per_call,bytes_per_core_cycle,code_bytes,"
      "spread_percent,machine_disturbed\n";
  for (const KernelFigures& k : r.kernels) {
    for (const SizeFigures& f : k.sizes) {
      out += fmt::format(
          "\"{}\",{},{},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.3f},{:.2f},{:.3f},{},{:.3f},{"
          "}\n",
          k.kernel.name, toString(k.kernel.kind), f.size, r.setup.unit, toString(r.setup.cache),
          r.setup.setSizeBytes, f.iterations, f.samples, f.perByte.median, f.perByte.min,
          f.perByte.mad, f.perByte.iqr, f.perByte.rsdPercent, f.perCall.median,
          bytesPerCycle(r.setup, f.perByte.median),
          k.kernel.bytes ? std::to_string(k.kernel.bytes) : std::string(), spreadPercent(f.perByte),
          !r.reliability.watched    ? ""
          : r.reliability.disturbed ? "yes"
                                    : "no");
    }
  }
  return out;
}

}  // namespace csumtune::tuner
