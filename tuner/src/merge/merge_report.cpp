#include "merge/merge_report.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "csumtune/results/document.hpp"

namespace csumtune::tuner {
namespace {

using results::printable;

// "4.0 % slower than its own best" or "its own best".
std::string againstOwnBest(const CpuVerdict& cpu) {
  if (cpu.shareOfOwnBest >= 1.0) return "its own best";
  return fmt::format("{:.1f} % slower than its own best", 100.0 * (1.0 / cpu.shareOfOwnBest - 1));
}

}  // namespace

std::string formatMergeText(const MergeReport& report) {
  std::string out = fmt::format(
      "portable winners: {} kernels{}, generator {}; speed-up over {} (> 1: faster), worst CPU "
      "first\n",
      report.kind, report.kernelSafe ? ", kernel-safe only" : "",
      printable(report.generatorVersion, 40), printable(report.reference, 60));
  for (const PortablePick& p : report.picks) {
    out += fmt::format("\nprofile {} ({}), {} cache: {} kernels on every CPU", printable(p.profile),
                       results::profileSpec(p.sizes), printable(p.cache), p.common);
    if (p.notEverywhere) out += fmt::format(", {} not on every CPU left out", p.notEverywhere);
    if (p.notKernelSafe) out += fmt::format(", {} not kernel-safe left out", p.notKernelSafe);
    out += "\n";
    out += fmt::format("  portable winner  {} ({} B)\n", p.winner, p.winnerBytes);
    out += fmt::format("  worst speed-up   {:.3f}x on {} (mean {:.3f}x){}\n", p.worstSpeedup,
                       printable(p.worstCpu, 60), p.meanSpeedup,
                       p.ownWinnerSomewhere ? "" : "; no CPU's own best");
    std::vector<const CpuVerdict*> cpus;
    for (const CpuVerdict& c : p.cpus) cpus.push_back(&c);
    std::stable_sort(cpus.begin(), cpus.end(), [](const auto* a, const auto* b) {
      return a->portableSpeedup < b->portableSpeedup;
    });
    for (const CpuVerdict* c : cpus) {
      out += fmt::format("  {}  {:.3f}x over {}, {} ({:.3f}x: {})  [{}]\n", printable(c->key, 60),
                         c->portableSpeedup, printable(report.reference, 60), againstOwnBest(*c),
                         c->ownBestSpeedup, c->ownBest, printable(c->brand, 60));
      if (!c->unreliable.empty())
        out += fmt::format("      unreliable figures: {}\n", printable(c->unreliable, 300));
      if (c->bestMeasured != c->ownBest) {
        out += fmt::format("      fastest it measured, not on every CPU: {:.3f}x: {}\n",
                           c->bestMeasuredSpeedup, c->bestMeasured);
      }
    }
  }
  return out;
}

nlohmann::json mergeJson(const MergeReport& report) {
  nlohmann::json picks = nlohmann::json::array();
  for (const PortablePick& p : report.picks) {
    nlohmann::json sizes = nlohmann::json::array();
    for (const auto& e : p.sizes) sizes.push_back({{"size", e.size}, {"weight", e.weight}});
    nlohmann::json cpus = nlohmann::json::array();
    for (const CpuVerdict& c : p.cpus) {
      cpus.push_back(
          {{"key", c.key},
           {"brand", c.brand},
           {"source", c.source},
           {"portable_speedup", c.portableSpeedup},
           {"own_best",
            {{"params", c.ownBest}, {"code_bytes", c.ownBestBytes}, {"speedup", c.ownBestSpeedup}}},
           {"share_of_own_best", c.shareOfOwnBest},
           {"unreliable", c.unreliable},
           {"best_measured", {{"params", c.bestMeasured}, {"speedup", c.bestMeasuredSpeedup}}}});
    }
    picks.push_back({{"profile", p.profile},
                     {"sizes", sizes},
                     {"cache", p.cache},
                     {"winner", {{"params", p.winner}, {"code_bytes", p.winnerBytes}}},
                     {"worst_speedup", p.worstSpeedup},
                     {"worst_cpu", p.worstCpu},
                     {"mean_speedup", p.meanSpeedup},
                     {"own_winner_somewhere", p.ownWinnerSomewhere},
                     {"kernels_on_every_cpu", p.common},
                     {"left_out_not_on_every_cpu", p.notEverywhere},
                     {"left_out_not_kernel_safe", p.notKernelSafe},
                     {"cpus", cpus}});
  }
  return {{"schema", kMergeSchema},
          {"generator_version", report.generatorVersion},
          {"kind", report.kind},
          {"reference", report.reference},
          {"kernel_safe", report.kernelSafe},
          {"rule", "max-min: the kernel whose worst speed-up over the reference is highest"},
          {"profiles", picks}};
}

std::string formatMergeJson(const MergeReport& report) {
  return mergeJson(report).dump(2) + "\n";
}

}  // namespace csumtune::tuner
