#include "report/tune_report.hpp"

#include "report/results_file.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "atomic_file.hpp"
#include "csumtune/gen/kernel_program.hpp"
#include "report/pareto_svg.hpp"
#include "search/code_size_tradeoff.hpp"

namespace csumtune::tuner {
namespace {

std::string ci(const RatioEstimate& r) {
  return fmt::format("{:.3f}x [{:.3f}, {:.3f}]{}", r.median, r.low, r.high,
                     r.significant() ? "" : " (n.s.)");
}

bool haveGnuplot() {
  return std::system("command -v gnuplot >/dev/null 2>&1") == 0;
}

// sweep.svg by gnuplot: winner / reference time at every swept length, hot and cold, and the
// line at 1 (the baseline). Nothing when gnuplot fails (`why` says so).
std::optional<Plot> drawSweep(const TuneRun& run, std::string* why) {
  namespace fs = std::filesystem;
  const fs::path work = fs::temp_directory_path() / fmt::format("csumtune-plot-{}", ::getpid());
  fs::create_directories(work);
  std::optional<Plot> plot;
  {
    std::ofstream hot(work / "hot.dat"), cold(work / "cold.dat");
    for (const auto& p : run.sweep)
      (p.cache == CacheState::Hot ? hot : cold) << p.size << ' ' << p.ratio() << '\n';
  }
  const fs::path script = work / "sweep.svg.gp", out = work / "sweep.svg";
  std::ofstream(script) << fmt::format(
      "set terminal svg size 900,480 dynamic\nset output '{}'\nset logscale x "
      "2\nset xlabel 'buffer length (bytes)'\n"
      "set ylabel 'time, winner / {} (under 1: faster)'\nset grid\n"
      "set key top right\nset title 'winner / {} at every length 1..256 and "
      "up to 64 KiB'\nset arrow from graph 0, first 1 to graph 1, first 1 "
      "nohead dt 2\n"
      "plot '{}' using 1:2 with lines title 'hot', '{}' using 1:2 with lines "
      "title 'cold'\n",
      out.string(), run.baseline, run.baseline, (work / "hot.dat").string(),
      (work / "cold.dat").string());
  if (std::system(fmt::format("gnuplot '{}' >/dev/null 2>&1", script.string()).c_str()) == 0 &&
      fs::exists(out)) {
    std::ifstream in(out);
    plot = Plot{"sweep.svg", std::string((std::istreambuf_iterator<char>(in)),
                                         std::istreambuf_iterator<char>())};
  } else if (why) {
    *why = "gnuplot failed on sweep.svg";
  }
  std::error_code ec;
  fs::remove_all(work, ec);
  return plot;
}

}  // namespace

namespace {

// Winner / reference time at every swept length, hot and cold side by side; lengths where the
// winner is slower are counted, listed and marked.
std::string lengthList(const std::vector<int>& lengths) {
  return fmt::format("{}", fmt::join(lengths, ", "));
}

std::string renderSweep(const TuneRun& run) {
  std::map<int, std::map<CacheState, double>> ratios, placedRatios;
  std::map<int, std::map<CacheState, bool>> surely;
  for (const auto& p : run.sweep) {
    ratios[p.size][p.cache] = p.ratio();
    surely[p.size][p.cache] = p.significantlySlower();
    if (!p.placedPerByte.empty()) placedRatios[p.size][p.cache] = p.ratioToSlowestPlacement();
  }
  const SweepSummary s = summarizeSweep(run);
  std::string md = fmt::format(
      "\n## Across lengths\n\nTime of the winner / time of `{}`, both measured interleaved at "
      "every length 1..256 and in steps to 64 KiB (median of 41 samples each; under 1.00 the "
      "winner is faster). Slower hot at {} of {} lengths{}{}; cold at {} of {}{}{}. Worst: "
      "{:.3f} hot, {:.3f} cold.\n\n",
      run.baseline, s.hot.lengths.size(), s.hot.measured, s.hot.lengths.empty() ? "" : ": ",
      lengthList(s.hot.lengths), s.cold.lengths.size(), s.cold.measured,
      s.cold.lengths.empty() ? "" : ": ", lengthList(s.cold.lengths), s.hot.worstRatio,
      s.cold.worstRatio);
  if (s.paired) {
    md += fmt::format(
        "A median above 1.00 is not yet a loss: two copies of the same code measured this way "
        "differ by up to several percent at a length, and one is \"slower\" at about half of "
        "them. Where the median of the paired per-round ratios has its 95 % interval above 1 "
        "(marked †), the winner is surely slower: hot at {} length{}{}{}; cold at {} length{}{}{}."
        "\n\n",
        s.hot.significantlySlower.size(), s.hot.significantlySlower.size() == 1 ? "" : "s",
        s.hot.significantlySlower.empty() ? "" : ": ", lengthList(s.hot.significantlySlower),
        s.cold.significantlySlower.size(), s.cold.significantlySlower.size() == 1 ? "" : "s",
        s.cold.significantlySlower.empty() ? "" : ": ", lengthList(s.cold.significantlySlower));
  }
  const bool placed = !placedRatios.empty();
  if (placed) {
    md += fmt::format(
        "The file moves by a cycle at short lengths with where its link puts it (the kernel "
        "aligns functions to 16 bytes, so its entry is at byte 0, 16, 32 or 48 of a line), so it "
        "was also built at each of those four and measured in the same rounds: the winner is "
        "slower than it **wherever it sits** (than its slowest placement) hot at {} length{}{}{}; "
        "cold at {} length{}{}{}.\n\n",
        s.hot.slowerThanEveryPlacement.size(),
        s.hot.slowerThanEveryPlacement.size() == 1 ? "" : "s",
        s.hot.slowerThanEveryPlacement.empty() ? "" : ": ",
        lengthList(s.hot.slowerThanEveryPlacement), s.cold.slowerThanEveryPlacement.size(),
        s.cold.slowerThanEveryPlacement.size() == 1 ? "" : "s",
        s.cold.slowerThanEveryPlacement.empty() ? "" : ": ",
        lengthList(s.cold.slowerThanEveryPlacement));
  }
  md += placed ? "<details><summary>every length</summary>\n\n| bytes | hot | cold | hot, against "
                 "the file's slowest placement | cold, the same |\n|---:|---:|---:|---:|---:|\n"
               : "<details><summary>every length</summary>\n\n| bytes | hot | cold "
                 "|\n|---:|---:|---:|\n";
  auto cell = [](const std::map<CacheState, double>& byCache, CacheState cache, bool sure = false) {
    const auto it = byCache.find(cache);
    if (it == byCache.end()) return std::string("");
    const double ratio = it->second;
    const std::string mark = sure ? " †" : "";
    return ratio > 1.0 ? fmt::format("**{:.3f} slower**{}", ratio, mark)
                       : fmt::format("{:.3f}{}", ratio, mark);
  };
  for (const auto& [size, byCache] : ratios) {
    md += fmt::format("| {} | {} | {} |", size,
                      cell(byCache, CacheState::Hot, surely[size][CacheState::Hot]),
                      cell(byCache, CacheState::Cold, surely[size][CacheState::Cold]));
    if (placed) {
      const auto& byPlacement = placedRatios[size];
      md += fmt::format(" {} | {} |", cell(byPlacement, CacheState::Hot),
                        cell(byPlacement, CacheState::Cold));
    }
    md += "\n";
  }
  md += "\n</details>\n";
  return md;
}

// At the top: whether the machine was quiet, phase by phase (a winner chosen under
// contention may not be the quiet machine's).
std::string contentionSection(const ContentionReport& c) {
  if (c.probes.empty()) return "";
  std::string md = fmt::format("**Machine: {}.**\n\n", c.summary());
  md +=
      "<details><summary>Contention by phase</summary>\n\n"
      "A measurement is disturbed when the baseline beside it ran slower than usual (noise "
      "guard), or the scheduler kept the tuner waiting (another task on the measuring CPU) or "
      "the hypervisor stole more than 5 % of it. The probe (a dependent add chain, the "
      "reference on one hot buffer and a loop of plain loads) is timed between phases; its "
      "slowdown is against the quickest probe of the run and, for the loads' time over the "
      "chain's, against the quickest any earlier run on this CPU measured (a core sibling "
      "busy for the whole run would slow the loads more than the chain; said, not counted).\n\n"
      "| phase | measurements kept | disturbed (share of the time) | measured again | rounds "
      "measured again | "
      "run-queue wait | steal | waited |\n|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const PhaseContention& p : c.phases) {
    md +=
        fmt::format("| {} | {} | {} ({:.0f} %) | {} | {} | {:.1f} % | {:.1f} % | {:.1f} s |\n",
                    p.name, p.measurements, p.disturbed, 100 * p.disturbedShare(), p.measuredAgain,
                    p.roundsDiscarded, 100 * p.waitShare, 100 * p.stealShare, p.waitedSeconds);
  }
  md +=
      "\n| probe | chain | reference | loads | loads ÷ chain | run-queue wait | slowdown | loads "
      "÷ chain against the remembered |\n|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const ProbeRecord& p : c.probes) {
    md += fmt::format("| {} | {:.0f} | {:.0f} | {:.0f} | {:.4f} | {:.1f} % | {:.3f} | {:.3f} |\n",
                      p.at, p.figures.chain, p.figures.baseline, p.figures.loads,
                      loadsPerChain(p.figures), 100 * p.waitShare, p.slowdown, p.loadSlowdown);
  }
  if (c.referenceLoadsPerChain > 0) {
    md += fmt::format("\nLoads ÷ chain on this CPU's quickest earlier run: {:.4f} (`{}`).\n",
                      c.referenceLoadsPerChain, c.referenceFile);
  } else {
    md += "\nNo earlier run on this CPU left a quiet loads ÷ chain to judge this one by.\n";
  }
  if (!c.unavailable.empty()) md += "\nNot measured here: " + c.unavailable + ".\n";
  md += "\n</details>\n\n";
  return md;
}

// Code size as a second objective: the winner under each size limit (measured together with
// it), the Pareto front of the evaluations, the smallest kernel of the space.
std::string renderCodeSize(const TuneRun& run) {
  const FinalistResult& w = run.finalists.front();
  std::string md = fmt::format(
      "\n## Code size\n\nThe winner is **{} bytes** of code{}. The smallest kernel of the {} "
      "space is `{}`, {} bytes.\n",
      w.bytes,
      run.measure.maxBytes ? fmt::format(" (limit: --max-bytes {})", run.measure.maxBytes) : "",
      run.kernelSafe ? "kernel-safe" : "whole", run.smallestParams.toString(), run.smallestBytes);
  if (!run.sizeLimits.empty()) {
    md += fmt::format(
        "\nThe fastest kernel within each size limit the winner does not fit (from the Pareto "
        "front below), measured together with the winner and `{}`, {} interleaved rounds:\n\n"
        "| limit | params | bytes | speedup vs {} [95% CI] | speed / the winner's "
        "|\n|---:|---|---:|---|---:|\n",
        run.baseline, run.final.repeat, run.baseline);
    for (const SizeLimitResult& l : run.sizeLimits) {
      md += fmt::format("| {} | `{}` | {} | {} | {:.3f} |\n",
                        l.limit ? std::to_string(l.limit) : std::string("none (winner)"),
                        l.params.toString(), l.bytes, ci(l.speedup), l.relative);
    }
  }
  const auto front = paretoFront(run.evaluations);
  if (!front.empty()) {
    md += fmt::format(
        "\nPareto front of the {} evaluations (search figures: no other kernel is both smaller "
        "and faster); plotted in `pareto.svg`.\n\n| bytes | params | time / {} |\n"
        "|---:|---|---:|\n",
        run.evaluations.size(), run.baseline);
    for (const ParetoPoint& p : front)
      md += fmt::format("| {} | `{}` | {:.4f} |\n", p.bytes, p.params.toString(), p.score);
    md += "\n![pareto.svg](pareto.svg)\n";
  }
  return md;
}

}  // namespace

SweepSummary summarizeSweep(const TuneRun& run) {
  SweepSummary s;
  for (const SweepPoint& p : run.sweep) {
    SlowerLengths& side = p.cache == CacheState::Hot ? s.hot : s.cold;
    ++side.measured;
    s.paired = s.paired || p.pairedMeasured();
    const double ratio = p.ratio();
    if (ratio > 1.0) side.lengths.push_back(p.size);
    if (p.significantlySlower()) side.significantlySlower.push_back(p.size);
    if (ratio > side.worstRatio) {
      side.worstRatio = ratio;
      side.worstLength = p.size;
    }
    if (p.placedPerByte.empty()) continue;
    side.placed = true;
    const double placed = p.ratioToSlowestPlacement();
    if (placed > 1.0) side.slowerThanEveryPlacement.push_back(p.size);
    if (placed > side.worstPlacedRatio) {
      side.worstPlacedRatio = placed;
      side.worstPlacedLength = p.size;
    }
  }
  for (SlowerLengths* side : {&s.hot, &s.cold}) {
    std::sort(side->lengths.begin(), side->lengths.end());
    std::sort(side->significantlySlower.begin(), side->significantlySlower.end());
  }
  return s;
}

std::string sweepSummaryLine(const TuneRun& run) {
  if (run.sweep.empty()) return "";
  const SweepSummary s = summarizeSweep(run);
  const auto side = [](const SlowerLengths& l, const char* cache) {
    if (l.measured == 0) return std::string();
    std::string text = fmt::format("{} of {} lengths {}", l.lengths.size(), l.measured, cache);
    if (!l.lengths.empty())
      text += fmt::format(" (worst {:.3f} at {} B)", l.worstRatio, l.worstLength);
    return text;
  };
  std::string line = "slower than " + run.baseline + " at " + side(s.hot, "hot");
  if (s.cold.measured > 0) line += ", " + side(s.cold, "cold");
  const auto surely = [](const SlowerLengths& l, const char* cache) {
    std::string text = fmt::format("{} {}", l.significantlySlower.size(), cache);
    if (!l.significantlySlower.empty())
      text += fmt::format(" ({})", fmt::join(l.significantlySlower, ", "));
    return text;
  };
  if (s.paired) {
    line += "; with the paired 95 % interval above 1: " + surely(s.hot, "hot");
    if (s.cold.measured > 0) line += ", " + surely(s.cold, "cold");
  }
  const auto placed = [](const SlowerLengths& l, const char* cache) {
    std::string text = fmt::format("{} {}", l.slowerThanEveryPlacement.size(), cache);
    if (!l.slowerThanEveryPlacement.empty())
      text += fmt::format(" (worst {:.3f} at {} B)", l.worstPlacedRatio, l.worstPlacedLength);
    return text;
  };
  if (s.hot.placed || s.cold.placed) {
    line += "; than the file at every one of its placements: " + placed(s.hot, "hot");
    if (s.cold.placed) line += ", " + placed(s.cold, "cold");
  }
  return line;
}

std::string renderTuneReport(const TuneRun& run, const std::vector<std::string>& plots) {
  const std::string unit = run.timerUnit + "/byte";
  std::string md = fmt::format("# csumtune tuning report: {} ({} cache){}\n\n", run.profile.name,
                               toString(run.cache), run.kernelSafe ? ", kernel-safe" : "");
  md += contentionSection(run.contention);
  md += fmt::format(
      "- CPU: {} ({} family {:#x} model {:#x} stepping {}), key `{}`, pinned to CPU {}\n",
      run.cpu.brand, run.cpu.vendor, run.cpu.family, run.cpu.model, run.cpu.stepping, run.cpuKey,
      run.pinnedCpu);
  md += fmt::format("- host `{}`, {} UTC, csumtune {}\n", run.host, run.created,
                    gen::kGeneratorVersion);
  md += fmt::format("- workload: {} — sizes:weights `{}`, {} cache{}\n", run.profile.description,
                    run.profile.spec(), toString(run.cache),
                    run.cache == CacheState::Cold
                        ? fmt::format(" ({} MiB set, random positions)", run.setSizeBytes >> 20)
                        : "");
  md += fmt::format(
      "- score: sum(weight × median time per call) / sum(weight × length), {}; the search "
      "ranks candidates by that figure divided by the baseline's ({}), measured interleaved\n",
      unit, run.baseline);
  md += run.strictBounds
            ? "- short paths: `bounds=strict` only (`--strict-bounds`): no byte outside the "
              "buffer is read\n"
            : "- short paths: `bounds=strict` and `bounds=aligned` (which may read bytes beside "
              "the buffer inside the aligned 8-byte words that hold its first and last bytes: "
              "never another page, never in the sum)\n";
  md += run.sharedAddresses
            ? "- code addresses: shared. Each round draws one address, 16-byte aligned in 2 MiB, "
              "and every kernel and the reference is copied there in turn, warmed up and timed: "
              "a round's paired samples compare code, not where it sits\n"
            : "- code addresses: own (`--own-addresses`, or a reference that cannot be moved): "
              "each kernel timed where it was built, so a short length's ratio carries where "
              "the two codes happen to sit\n";
  md += fmt::format("- timer: {} ({}), overhead {:.0f} subtracted\n", run.timerUnit,
                    run.timerSource, run.timerOverhead);
  std::size_t wrong = 0, refused = 0;
  for (const auto& e : run.evaluations) {
    wrong += e.status == EvalStatus::Wrong;
    refused += e.status == EvalStatus::Refused;
  }
  md += fmt::format(
      "- search: `{}`, seed {}, budget {} unique evaluations{}; {} evaluated this run ({} in all, "
      "{} revisits answered from memory, {} wrong, {} refused, {} re-measured by the noise guard), "
      "{:.1f} s; stopped: {}\n",
      run.search.algorithm, run.search.seed, run.budget,
      run.timeLimitSeconds > 0 ? fmt::format(", time limit {:.0f} s", run.timeLimitSeconds) : "",
      run.uniqueThisRun, run.evaluations.size(), run.revisits, wrong, refused, run.noiseRetries,
      run.elapsedSeconds, run.stoppedBecause);
  for (const auto& phase : run.phases) md += "  - " + phase + "\n";

  // Only a finished run has a winner (results.json says null otherwise): finalists measured
  // before an interrupt, or a best candidate that failed the full plan, are not one.
  if (!run.complete()) {
    md += run.failure.empty()
              ? std::string(
                    "\n**No winner**: the run was interrupted before it finished (resume "
                    "it with `--resume`).\n")
              : fmt::format("\n**No winner**: {}.\n", run.failure);
    return md;
  }
  const FinalistResult& w = run.finalists.front();
  md += fmt::format("\n## Winner\n\n`{}`\n\n**{}** on the profile ({:.4f} vs {:.4f} {}).\n\n",
                    w.params.toString(), verdict(w, run.baseline), w.scorePerByte,
                    w.baselinePerByte, unit);
  md += fmt::format(
      "Clock: TSC {:.3f} GHz, {:.3f} core cycles per timer unit (core {:.2f} GHz): bytes per "
      "core cycle compare across hosts, timer units per byte only within one.\n\n"
      "| bytes | winner {} | {} {} | speedup [95% CI] | winner B/cycle | {} B/cycle "
      "|\n|---:|---:|---:|---|---:|---:|\n",
      run.clock.tscHz / 1e9, run.clock.cyclesPerUnit, run.clock.coreHz() / 1e9, unit, run.baseline,
      unit, run.baseline);
  auto perCycle = [&](double perByte) {
    return perByte * run.clock.cyclesPerUnit > 0 ? 1 / (perByte * run.clock.cyclesPerUnit) : 0;
  };
  for (const auto& s : w.sizes) {
    md += fmt::format("| {} | {:.4f} | {:.4f} | {} | {:.2f} | {:.2f} |\n", s.size, s.perByte,
                      s.baselinePerByte, ci(s.speedup), perCycle(s.perByte),
                      perCycle(s.baselinePerByte));
  }
  md += fmt::format("\n## Finalists\n\nRe-measured together with `{}`, {} interleaved rounds.\n\n",
                    run.baseline, run.final.repeat);
  if (!run.widened.empty()) md += "Widened: " + run.widened + ".\n\n";
  md += fmt::format(
      "| rank | params | profile {} | speedup vs {} [95% CI] | search score "
      "|\n|---:|---|---:|---|---:|\n",
      unit, run.baseline);
  for (std::size_t i = 0; i < run.finalists.size(); ++i) {
    const auto& f = run.finalists[i];
    md += fmt::format("| {} | `{}` | {:.4f} | {} | {:.4f} |\n", i + 1, f.params.toString(),
                      f.scorePerByte, ci(f.speedup), f.searchScore);
  }
  if (!run.runoff.empty()) {
    md += fmt::format(
        "\n### Runoff\n\nThe profile could not tell these finalists apart (each one's 95 % "
        "interval overlaps the fastest's: a generous test of a tie{}), so they were measured again "
        "together with `{}`, in one interleaved run at the guard's lengths, hot and cold; the "
        "one that loses least went first: of those whose mean of the guard's excess and the "
        "runoff's is within {:.2f} of the least (one kernel's excess moves by about that much "
        "between two measurements), the one with the smallest mean time ratio (the fastest per "
        "call), then the smallest excess and worst ratio (the middle-path "
        "stage below may then put the same "
        "kernel with another middle bound before it).\n\n| params | worst time ratio | at "
        "length | cache | surely slower | excess, guard | excess, runoff | mean | mean time "
        "ratio |\n|---|---:|---:|---|---:|---:|---:|---:|---:|\n",
        run.runoffUnguardedReach > 0
            ? fmt::format("; none passed the guard, so an interval up to {:.0f} % below the "
                          "fastest's counted as overlapping",
                          100 * run.runoffUnguardedReach)
            : std::string(),
        run.baseline, run.runoffExcessSlack);
    for (const GuardResult& g : run.runoff) {
      const GuardResult* earlier = findGuardResult(run.guard, g.params);
      const bool known = earlier != nullptr;
      md += fmt::format("| `{}` | {:.3f} | {} | {} | {} | {} | {:.3f} | {:.3f} | {:.3f} |\n",
                        g.params.toString(), g.worstRatio, g.worstLength, toString(g.worstCache),
                        g.surelySlower, known ? fmt::format("{:.3f}", earlier->excess) : "-",
                        g.excess, known ? (earlier->excess + g.excess) / 2 : g.excess, g.meanRatio);
    }
  }
  if (!run.middle.empty()) {
    md += fmt::format(
        "\n### Middle path\n\nThe profile may weigh no length between the short path and the "
        "loop, so the winner of the stages above was measured with each middle bound (`mid`, "
        "none included) together with `{}`, in one interleaved run at the guard's lengths where "
        "the bounds can run different code ({}: below the short bound and at the exact length "
        "they all run the same instructions), hot and cold, and with the finalists on the "
        "profile. Another bound replaces the winner's "
        "where it is faster per call (a geometric mean of the time ratios at those lengths at "
        "least {:.0f} % smaller), loses at most a little more there (an excess at most {:.2f} "
        "above the winner's), passes the guard where the winner did, and is not slower on the "
        "profile (the intervals overlap); it then goes first among the finalists above, the "
        "winner it replaced behind it.\n\n| params | mean time ratio | excess "
        "| worst time ratio | at length | cache | highest interval low | profile speed-up [95% "
        "CI] |\n|---|---:|---:|---:|---:|---|---:|---|\n",
        run.baseline, fmt::join(run.middleLengths, ", "), 100 * run.middleMargin,
        run.middleExcessSlack);
    for (const MiddlePathResult& m : run.middle) {
      const GuardResult& g = m.atLengths;
      md += fmt::format(
          "| `{}`{} | {:.3f} | {:.2f} | {:.3f} | {} | {} | {:.3f} | {} |\n", g.params.toString(),
          g.params.mid == run.finalists.front().params.mid ? " (chosen)" : "", g.meanRatio,
          g.excess, g.worstRatio, g.worstLength, toString(g.worstCache), g.worstLow, ci(m.profile));
    }
  }
  if (!run.placement.empty()) {
    const bool offsets = run.placementVariesPlace();
    md += fmt::format(
        "\n### Placement\n\nThe same winner {}with its jump targets packed or at 16-byte "
        "boundaries (`targets`), measured "
        "together with `{}` in one interleaved run at the guard's lengths, hot and cold: where "
        "a short call's branches and their targets fall in the lines and windows the front end "
        "fetches moves it by a cycle either way. The one that loses least (the smallest excess, "
        "then the smallest mean time ratio, then the smallest worst ratio), if it is not the "
        "winner's own, is measured on the profile beside it and becomes the winner's layout "
        "unless it is slower there; the JIT puts the winner at its placement and winner.S "
        "aligns to it.\n\n| place | targets | worst time ratio | at length | cache | excess | "
        "mean time ratio |\n"
        "|---:|---|---:|---:|---|---:|---:|\n",
        offsets ? "with its entry at each offset of a 64-byte line (`place`) and "
                : "at its own place (every round of the run put the code at the address it drew) ",
        run.baseline);
    for (const GuardResult& g : run.placement) {
      md += fmt::format("| {}{} | {} | {:.3f} | {} | {} | {:.3f} | {:.3f} |\n", g.params.place,
                        g.params == run.finalists.front().params ? " (chosen)" : "",
                        gen::toString(g.params.targets), g.worstRatio, g.worstLength,
                        toString(g.worstCache), g.excess, g.meanRatio);
    }
    if (run.placementProfile) {
      const auto& [own, other] = *run.placementProfile;
      md += fmt::format(
          "\nThe least losing layout was then measured on the profile together with the "
          "winner's own: speed-up {} at its own, {} at the other; {}.\n",
          ci(own), ci(other),
          other.median < own.median ? "slower on the profile, so the winner stayed where it was"
                                    : "not slower, so the winner moved there (its figures above "
                                      "are that measurement's)");
    }
  }
  // Best per family, from the search.
  std::map<std::string, std::pair<const Evaluation*, std::size_t>> perFamily;
  for (const auto& e : run.evaluations) {
    auto& slot = perFamily[std::string(gen::toString(e.params.carry))];
    ++slot.second;
    if (e.status == EvalStatus::Ok && (!slot.first || e.score < slot.first->score)) slot.first = &e;
  }
  md +=
      "\n## Best of each carry family (search figures)\n\n| carry | evaluations | best params | "
      "score vs reference | " +
      unit + " |\n|---|---:|---|---:|---:|\n";
  for (const auto& [carry, slot] : perFamily) {
    if (!slot.first) {
      md += fmt::format("| {} | {} | (none correct) | | |\n", carry, slot.second);
      continue;
    }
    md += fmt::format("| {} | {} | `{}` | {:.4f} | {:.4f} |\n", carry, slot.second,
                      slot.first->params.toString(), slot.first->score, slot.first->scorePerByte);
  }
  md += renderCodeSize(run);
  if (!run.guard.empty()) {
    md += fmt::format(
        "\n## Guard\n\n{} candidates (the best by the profile; then, of the best loop shape, the "
        "best of each entry test, sum entry and tail-chain count, of each short and middle "
        "bound under each entry test and of each last-bytes load (bounds, byteload), and of each "
        "of those forms the best without an exact path; then the best "
        "of each carry family) measured against `{}` at "
        "lengths the profile may not weigh ({}), hot and cold; the finalists come first from "
        "those at most {:.0f} % "
        "slower at every one of them, judged by the 95 % interval of the paired time ratio (its "
        "lower end; a cold median of identical code is a few percent above 1 at some length "
        "by chance). Surely slower: the lengths whose interval lies above 1. Excess: the sum "
        "over the lengths, hot and cold, of how far the interval lies above 1 (its lower end - "
        "1, where above 0). A candidate that lost beyond the tolerance at no more than {} of "
        "the lengths, hot and cold counted apart, had those measured again, and the second "
        "measurement decides there (the figures above are its); not repeated: those where it "
        "did not lose again.\n\n| params | worst time ratio | at length | cache | highest "
        "interval low | surely slower | excess | not repeated | guarded |\n"
        "|---|---:|---:|---|---:|---:|---:|---:|---|\n",
        run.guard.size(), run.baseline, fmt::join(run.guardLengths, ", "), 100 * run.guardTolerance,
        run.guardRepeatsUpTo);
    for (const GuardResult& g : run.guard) {
      md += fmt::format("| `{}` | {:.3f} | {} | {} | {:.3f} | {} | {:.3f} | {} | {} |\n",
                        g.params.toString(), g.worstRatio, g.worstLength, toString(g.worstCache),
                        g.worstLow, g.surelySlower, g.excess, g.lossesNotRepeated,
                        g.eligible ? "yes" : "**no**");
    }
    if (std::none_of(run.guard.begin(), run.guard.end(),
                     [](const auto& g) { return g.eligible; })) {
      md +=
          "\n**No candidate passed the guard**: each is slower than the baseline at some guard "
          "length (or the machine was busy while they were measured). The finalists are the "
          "ones that lose least (the smallest excess above, then worst time ratio); see the sweep "
          "below for "
          "where the winner loses.\n";
    }
  }
  if (!run.sweep.empty()) md += renderSweep(run);
  for (const auto& plot : plots) md += fmt::format("\n![{}]({})\n", plot, plot);
  md += fmt::format(
      "\nThe winner as a `.S`: `winner.S` ({} style). Regenerate it in this folder: `csumtune emit "
      "--results results.json -o winner.S`.\n",
      toString(run.style));
  return md;
}

std::vector<Plot> drawPlots(const TuneRun& run, std::string* why) {
  std::vector<Plot> written;
  if (!run.sweep.empty()) {
    if (haveGnuplot()) {
      if (auto sweep = drawSweep(run, why)) written.push_back(std::move(*sweep));
    } else if (why) {
      *why = "gnuplot is not installed (apt-get install gnuplot-nox): no sweep.svg";
    }
  }
  // Drawn by csumtune itself: every point at its true height on a log axis, the baseline's
  // 1.0 line, a legend (pareto_svg.hpp).
  if (std::string space = spaceSvg(run.evaluations, run.baseline); !space.empty())
    written.push_back({"space.svg", std::move(space)});
  return written;
}

}  // namespace csumtune::tuner
