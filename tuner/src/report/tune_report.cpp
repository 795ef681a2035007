#include "report/tune_report.hpp"

#include "report/results_file.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/format.h>

#include "atomic_file.hpp"
#include "csumtune/gen/kernel_program.hpp"

namespace csumtune::tuner {
namespace {

std::string ci(const RatioEstimate& r) {
  return fmt::format("{:.3f}x [{:.3f}, {:.3f}]{}", r.median, r.low, r.high,
                     r.significant() ? "" : " (n.s.)");
}

bool haveGnuplot() {
  return std::system("command -v gnuplot >/dev/null 2>&1") == 0;
}

}  // namespace

std::string renderTuneReport(const TuneRun& run, const std::vector<std::string>& plots) {
  const std::string unit = run.timerUnit + "/byte";
  std::string md = fmt::format("# csumtune tuning report: {} ({} cache){}\n\n", run.profile.name,
                               toString(run.cache), run.kernelSafe ? ", kernel-safe" : "");
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
  md += "- score: sum(weight × median time per call) / sum(weight × length), " + unit +
        "; the search ranks candidates by that figure divided by the reference's (linux-v6.8), "
        "measured interleaved\n";
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

  if (run.finalists.empty()) {
    md +=
        "\n**No winner**: the run ended before the finalists were measured (resume it with "
        "`--resume`).\n";
    return md;
  }
  const FinalistResult& w = run.finalists.front();
  md += fmt::format("\n## Winner\n\n`{}`\n\n**{}** on the profile ({:.4f} vs {:.4f} {}).\n\n",
                    w.params.toString(), verdict(w, run.reference), w.scorePerByte,
                    w.baselinePerByte, unit);
  md += fmt::format("| bytes | winner {} | {} {} | speedup [95% CI] |\n|---:|---:|---:|---|\n",
                    unit, run.reference, unit);
  for (const auto& s : w.sizes) {
    md += fmt::format("| {} | {:.4f} | {:.4f} | {} |\n", s.size, s.perByte, s.baselinePerByte,
                      ci(s.speedup));
  }
  md += fmt::format("\n## Finalists\n\nRe-measured together with `{}`, {} interleaved rounds.\n\n",
                    run.reference, run.final.repeat);
  md += fmt::format(
      "| rank | params | profile {} | speedup vs {} [95% CI] | search score "
      "|\n|---:|---|---:|---|---:|\n",
      unit, run.reference);
  for (std::size_t i = 0; i < run.finalists.size(); ++i) {
    const auto& f = run.finalists[i];
    md += fmt::format("| {} | `{}` | {:.4f} | {} | {:.4f} |\n", i + 1, f.params.toString(),
                      f.scorePerByte, ci(f.speedup), f.searchScore);
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
  if (!run.sweep.empty()) {
    md += fmt::format(
        "\n## Across lengths ({} cache)\n\n| bytes | winner {} | {} {} | ratio "
        "|\n|---:|---:|---:|---:|\n",
        toString(run.cache), unit, run.reference, unit);
    for (const auto& p : run.sweep) {
      md += fmt::format("| {} | {:.4f} | {:.4f} | {:.2f}x |\n", p.size, p.winnerPerByte,
                        p.baselinePerByte, p.baselinePerByte / p.winnerPerByte);
    }
  }
  for (const auto& plot : plots) md += fmt::format("\n![{}]({})\n", plot, plot);
  md += fmt::format(
      "\nThe winner as a kernel `.S`: `winner.S`. Regenerate: `csumtune emit --params {}`.\n",
      w.params.toString());
  return md;
}

std::vector<std::string> drawPlots(const TuneRun& run, const std::string& dir, std::string* why) {
  if (!haveGnuplot()) {
    if (why) *why = "gnuplot is not installed (apt-get install gnuplot-nox): no plots";
    return {};
  }
  namespace fs = std::filesystem;
  const fs::path work = fs::temp_directory_path() / fmt::format("csumtune-plot-{}", ::getpid());
  fs::create_directories(work);
  std::vector<std::string> written;
  auto runScript = [&](const std::string& name, const std::string& script) {
    const fs::path file = work / (name + ".gp");
    std::ofstream(file) << script;
    const fs::path out = work / name;
    if (std::system(fmt::format("gnuplot '{}' >/dev/null 2>&1", file.string()).c_str()) == 0 &&
        fs::exists(out)) {
      std::ifstream in(out);
      const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      writeFileAtomically((fs::path(dir) / name).string(), svg);
      written.push_back(name);
    } else if (why) {
      *why = "gnuplot failed on " + name;
    }
  };
  if (!run.sweep.empty()) {
    std::ofstream data(work / "sweep.dat");
    for (const auto& p : run.sweep)
      data << p.size << ' ' << p.winnerPerByte << ' ' << p.baselinePerByte << '\n';
    data.close();
    runScript("sweep.svg",
              fmt::format("set terminal svg size 800,480 dynamic\nset output '{}'\nset logscale x "
                          "2\nset xlabel 'buffer length (bytes)'\n"
                          "set ylabel '{}/byte (median, lower is better)'\nset logscale y\nset "
                          "grid\nset key top right\n"
                          "set title 'winner vs {}, {} cache'\n"
                          "plot '{}' using 1:2 with linespoints title 'winner', '' using 1:3 with "
                          "linespoints title '{}'\n",
                          (work / "sweep.svg").string(), run.timerUnit, run.reference,
                          toString(run.cache), (work / "sweep.dat").string(), run.reference));
  }
  std::map<std::string, std::ofstream> perFamily;
  std::string plot;
  for (const auto& e : run.evaluations) {
    if (e.status != EvalStatus::Ok) continue;
    const std::string carry(gen::toString(e.params.carry));
    if (!perFamily.count(carry)) {
      perFamily[carry].open(work / (carry + ".dat"));
      plot += fmt::format("{}'{}' using 1:2 with points pt 7 ps 0.5 title '{}'",
                          plot.empty() ? "" : ", ", (work / (carry + ".dat")).string(), carry);
    }
    perFamily[carry] << e.params.unroll + 0.1 * (e.params.chains - 4) << ' ' << e.score << '\n';
  }
  for (auto& [name, stream] : perFamily) stream.close();
  if (!plot.empty()) {
    runScript("space.svg",
              fmt::format(
                  "set terminal svg size 800,480 dynamic\nset output '{}'\nset xlabel 'unroll "
                  "(8-byte words per iteration; chains offset within)'\n"
                  "set ylabel 'score / reference (lower is better)'\nset grid\nset key top right\n"
                  "set title 'every evaluation of the search'\nplot {}\n",
                  (work / "space.svg").string(), plot));
  }
  fs::remove_all(work);
  return written;
}

}  // namespace csumtune::tuner
