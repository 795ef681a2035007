#include "merge/portable_winner.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "csumtune/results/document.hpp"
#include "request_errors.hpp"

namespace csumtune::tuner {
namespace {

using results::printable;

std::string where(const SpeedupTable& t) {
  return t.source.empty() ? "a measured table" : printable(t.source);
}

// One kind, one generator version, one reference across every table.
void checkSameSpace(const std::vector<SpeedupTable>& tables) {
  const SpeedupTable& first = tables.front();
  for (const SpeedupTable& t : tables) {
    if (t.kind != first.kind) {
      throw BadRequest(
          fmt::format("{} holds {} kernels but {} holds {} kernels: merge one kind at a time",
                      where(t), gen::toString(t.kind), where(first), gen::toString(first.kind)));
    }
    if (t.generatorVersion != first.generatorVersion) {
      throw BadRequest(fmt::format(
          "{} was measured with generator {} but {} with {}: the same params may mean other "
          "code; measure both with one version",
          where(t), printable(t.generatorVersion, 40), where(first),
          printable(first.generatorVersion, 40)));
    }
    if (t.reference != first.reference) {
      throw BadRequest(fmt::format("{} is timed against {} but {} against {}", where(t),
                                   printable(t.reference, 60), where(first),
                                   printable(first.reference, 60)));
    }
  }
}

bool kernelSafe(const std::string& params) {
  return gen::traitsOf(gen::parseParams(params).carry).kernelSafe();
}

struct Group {
  std::string profile, cache;
  std::vector<const SpeedupTable*> tables;
};

// Tables by profile and cache state, in the order first read; each CPU key once in each, and
// each on every CPU key.
std::vector<Group> groupTables(const std::vector<SpeedupTable>& tables) {
  std::vector<Group> groups;
  std::set<std::string> allKeys;
  for (const SpeedupTable& t : tables) {
    allKeys.insert(t.cpu.key);
    auto group = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
      return g.profile == t.profile && g.cache == t.cache;
    });
    if (group == groups.end()) {
      groups.push_back({t.profile, t.cache, {}});
      group = std::prev(groups.end());
    }
    for (const SpeedupTable* other : group->tables) {
      if (other->cpu.key == t.cpu.key) {
        throw BadRequest(fmt::format(
            "CPU key {} appears twice for profile {} ({} cache): in {} and in {}; merge one run "
            "per CPU",
            printable(t.cpu.key, 60), printable(t.profile), printable(t.cache), where(*other),
            where(t)));
      }
      if (results::profileSpec(other->sizes) != results::profileSpec(t.sizes)) {
        throw BadRequest(fmt::format(
            "profile {} is {} in {} but {} in {}: the same name must mean the same sizes",
            printable(t.profile), results::profileSpec(other->sizes), where(*other),
            results::profileSpec(t.sizes), where(t)));
      }
    }
    group->tables.push_back(&t);
  }
  if (allKeys.size() < 2) {
    throw BadRequest(fmt::format("merge needs runs of two or more CPU keys; every table is of {}",
                                 printable(*allKeys.begin(), 60)));
  }
  for (const Group& g : groups) {
    if (g.tables.size() == allKeys.size()) continue;
    std::set<std::string> have;
    for (const SpeedupTable* t : g.tables) have.insert(t->cpu.key);
    std::string missing;
    for (const std::string& key : allKeys)
      if (!have.count(key)) missing += (missing.empty() ? "" : ", ") + printable(key, 60);
    throw BadRequest(fmt::format(
        "profile {} ({} cache) was not measured on {}: give every CPU the same profiles",
        printable(g.profile), printable(g.cache), missing));
  }
  return groups;
}

// A kernel's speed-up on each CPU of a group (in the group's order) and its code size.
struct Row {
  std::vector<double> speedups;
  std::size_t bytes = 0;
};
using Rows = std::map<std::string, Row>;

double worstOf(const Row& r) {
  return *std::min_element(r.speedups.begin(), r.speedups.end());
}

double meanOf(const Row& r) {
  double sum = 0;
  for (double s : r.speedups) sum += s;
  return sum / static_cast<double>(r.speedups.size());
}

// Every kernel of the tables; a kernel some table lacks has fewer speed-ups than tables.
Rows rowsOf(const std::vector<const SpeedupTable*>& tables) {
  Rows rows;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    for (const KernelSpeedup& k : tables[i]->kernels) {
      Row& row = rows[k.params];
      if (row.speedups.size() == i) row.speedups.push_back(k.speedup);
      if (row.bytes == 0) row.bytes = k.bytes;
    }
  }
  return rows;
}

// The kernels measured on every CPU (kernel-safe ones with the filter), counting the others.
Rows commonRows(Rows rows, std::size_t cpus, const MergeOptions& options, PortablePick& pick) {
  Rows common;
  for (auto& [params, row] : rows) {
    if (row.speedups.size() != cpus) {
      ++pick.notEverywhere;
    } else if (options.kernelSafe && !kernelSafe(params)) {
      ++pick.notKernelSafe;
    } else {
      common.emplace(params, std::move(row));
    }
  }
  return common;
}

// max-min: the highest worst speed-up; then the highest mean, the smaller code, the name.
Rows::const_iterator maxMin(const Rows& common) {
  return std::min_element(common.begin(), common.end(), [](const auto& a, const auto& b) {
    if (worstOf(a.second) != worstOf(b.second)) return worstOf(a.second) > worstOf(b.second);
    if (meanOf(a.second) != meanOf(b.second)) return meanOf(a.second) > meanOf(b.second);
    if (a.second.bytes != b.second.bytes) return a.second.bytes < b.second.bytes;
    return a.first < b.first;
  });
}

// The portable winner on the CPU of table `i`, against its own best kernels.
CpuVerdict verdictOn(const SpeedupTable& t, std::size_t i, const Rows& common, const Row& winner,
                     const MergeOptions& options) {
  CpuVerdict cpu;
  cpu.key = t.cpu.key;
  cpu.brand = t.cpu.brand;
  cpu.source = t.source;
  cpu.unreliable = t.unreliable;
  cpu.portableSpeedup = winner.speedups[i];
  // The own best among the common kernels: the same candidates the winner was picked from.
  double best = -1;
  for (const auto& [params, row] : common) {
    if (row.speedups[i] > best || (row.speedups[i] == best && row.bytes < cpu.ownBestBytes)) {
      best = row.speedups[i];
      cpu.ownBest = params;
      cpu.ownBestBytes = row.bytes;
    }
  }
  cpu.ownBestSpeedup = best;
  cpu.shareOfOwnBest = cpu.portableSpeedup / cpu.ownBestSpeedup;
  for (const KernelSpeedup& k : t.kernels) {
    if (options.kernelSafe && !kernelSafe(k.params)) continue;
    if (k.speedup > cpu.bestMeasuredSpeedup) {
      cpu.bestMeasuredSpeedup = k.speedup;
      cpu.bestMeasured = k.params;
    }
  }
  return cpu;
}

PortablePick pickIn(const Group& group, const MergeOptions& options) {
  PortablePick pick;
  pick.profile = group.profile;
  pick.cache = group.cache;
  pick.sizes = group.tables.front()->sizes;
  std::vector<const SpeedupTable*> tables = group.tables;
  std::sort(tables.begin(), tables.end(),
            [](const auto* a, const auto* b) { return a->cpu.key < b->cpu.key; });

  const Rows common = commonRows(rowsOf(tables), tables.size(), options, pick);
  pick.common = common.size();
  if (common.empty()) {
    throw BadRequest(fmt::format(
        "profile {} ({} cache): no {}kernel was measured on every CPU ({} left out: not on every "
        "CPU; {} not kernel-safe); measure one shared list with bench --candidates",
        printable(pick.profile), printable(pick.cache), options.kernelSafe ? "kernel-safe " : "",
        pick.notEverywhere, pick.notKernelSafe));
  }
  const auto winner = maxMin(common);
  pick.winner = winner->first;
  pick.winnerBytes = winner->second.bytes;
  pick.worstSpeedup = worstOf(winner->second);
  pick.meanSpeedup = meanOf(winner->second);
  for (std::size_t i = 0; i < tables.size(); ++i) {
    CpuVerdict cpu = verdictOn(*tables[i], i, common, winner->second, options);
    if (cpu.portableSpeedup == pick.worstSpeedup && pick.worstCpu.empty()) pick.worstCpu = cpu.key;
    if (cpu.ownBest == pick.winner) pick.ownWinnerSomewhere = true;
    pick.cpus.push_back(std::move(cpu));
  }
  return pick;
}

}  // namespace

MergeReport mergeTables(const std::vector<SpeedupTable>& tables, const MergeOptions& options) {
  if (tables.empty()) throw BadRequest("merge needs runs of two or more CPU keys; none given");
  checkSameSpace(tables);
  MergeReport report;
  report.generatorVersion = tables.front().generatorVersion;
  report.kind = gen::toString(tables.front().kind);
  report.reference = tables.front().reference;
  report.kernelSafe = options.kernelSafe;
  for (const Group& group : groupTables(tables)) report.picks.push_back(pickIn(group, options));
  return report;
}

}  // namespace csumtune::tuner
