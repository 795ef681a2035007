// merge's portable winner from recorded tables of several CPU keys (tests/golden/merge/: made-up
// speed-ups, nothing is timed): max-min per profile, the kernel-safe filter, a winner that is
// no CPU's own best, and every inconsistent input refused with a message.
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "csumtune/cpu.hpp"
#include "csumtune/jit.hpp"
#include "jobs/bench_candidates.hpp"
#include "merge/candidate_list.hpp"
#include "merge/candidate_tables.hpp"
#include "merge/merge_report.hpp"
#include "merge/portable_winner.hpp"
#include "merge/table_reader.hpp"
#include "request_errors.hpp"

namespace csumtune::tuner {
namespace {

const std::string kAdc6x30 = "carry=adc,chains=6,unroll=30,prefetch=0,hint=t0";
const std::string kAdcx4x16 = "carry=adcx,chains=4,unroll=16,prefetch=0,hint=t0";
const std::string kAdd32 = "carry=add32,chains=4,unroll=16,prefetch=0,hint=t0";
const std::string kAdc4x16 = "carry=adc,chains=4,unroll=16,prefetch=0,hint=t0";
const std::string kAvx2 = "carry=avx2,chains=2,unroll=8,prefetch=0,hint=t0";

std::string golden(const std::string& name) {
  return std::string(CSUMTUNE_SOURCE_DIR) + "/tests/golden/merge/" + name;
}

std::vector<SpeedupTable> readTables(const std::vector<std::string>& names) {
  std::vector<SpeedupTable> tables;
  for (const std::string& name : names)
    for (SpeedupTable& t : readSpeedupTables(golden(name))) tables.push_back(std::move(t));
  return tables;
}

const std::vector<std::string> kThreeCpus{"zen4.json", "zen5.json", "intel.json"};

const PortablePick& pickFor(const MergeReport& report, const std::string& profile) {
  for (const PortablePick& p : report.picks)
    if (p.profile == profile) return p;
  throw std::runtime_error("no pick for " + profile);
}

const CpuVerdict& verdictOn(const PortablePick& pick, const std::string& keyPrefix) {
  for (const CpuVerdict& c : pick.cpus)
    if (c.key.rfind(keyPrefix, 0) == 0) return c;
  throw std::runtime_error("no CPU " + keyPrefix);
}

// The message of the BadRequest `call` throws ("" when it throws none).
template <typename Call>
std::string refusal(Call call) {
  try {
    call();
  } catch (const BadRequest& e) {
    return e.what();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(MergeTables, RecordedTablesOfThreeCpuKeysCarryTheirKeys) {
  const auto tables = readTables(kThreeCpus);
  ASSERT_EQ(tables.size(), 6u);  // two profiles each
  EXPECT_EQ(tables[0].cpu.key, "amd-19-11-1-0a1bbd54");
  EXPECT_EQ(tables[0].profile, "kernel");
  EXPECT_EQ(tables[1].profile, "imix");
  EXPECT_EQ(tables[4].cpu.vendor, "GenuineIntel");
  EXPECT_EQ(tables[0].reference, "linux-v6.8");
}

TEST(MergeTables, PicksTheHighestWorstSpeedupPerProfile) {
  const MergeReport report = mergeTables(readTables(kThreeCpus), {});
  ASSERT_EQ(report.picks.size(), 2u);
  const PortablePick& kernel = pickFor(report, "kernel");
  // The AVX2 kernel is slowest on the Intel part (2.0x) and still ahead of every other
  // kernel's worst; the cmov kernel, faster on both AMD parts, was not measured on Intel.
  EXPECT_EQ(kernel.winner, kAvx2);
  EXPECT_DOUBLE_EQ(kernel.worstSpeedup, 2.0);
  EXPECT_EQ(kernel.worstCpu.rfind("intel-06-8f", 0), 0u) << kernel.worstCpu;
  EXPECT_EQ(kernel.common, 5u);
  EXPECT_EQ(kernel.notEverywhere, 1u);
  EXPECT_TRUE(kernel.ownWinnerSomewhere);
  EXPECT_EQ(kernel.cpus.size(), 3u);
  // The fastest kernel a CPU measured is said even when it is not on every CPU.
  const CpuVerdict& zen4 = verdictOn(kernel, "amd-19-11");
  EXPECT_EQ(zen4.ownBest, kAvx2);
  EXPECT_EQ(zen4.bestMeasured, "carry=cmov,chains=4,unroll=16,prefetch=0,hint=t0");
  EXPECT_DOUBLE_EQ(zen4.bestMeasuredSpeedup, 3.0);
  EXPECT_NE(formatMergeText(report).find("fastest it measured, not on every CPU: 3.000x"),
            std::string::npos);
}

TEST(MergeTables, KernelSafePortableWinnerIsNoCpusOwnWinner) {
  const MergeReport report = mergeTables(readTables(kThreeCpus), MergeOptions{true});
  for (const char* profile : {"kernel", "imix"}) {
    SCOPED_TRACE(profile);
    const PortablePick& pick = pickFor(report, profile);
    EXPECT_EQ(pick.winner, kAdc4x16);
    EXPECT_EQ(pick.notKernelSafe, 1u);
    EXPECT_FALSE(pick.ownWinnerSomewhere);
    for (const CpuVerdict& c : pick.cpus) {
      EXPECT_NE(c.ownBest, pick.winner) << c.key;
      EXPECT_LT(c.shareOfOwnBest, 1.0) << c.key;
    }
  }
  const PortablePick& kernel = pickFor(report, "kernel");
  EXPECT_DOUBLE_EQ(kernel.worstSpeedup, 1.25);
  // Each CPU: the portable winner's speed-up, and its own best kernel's.
  const CpuVerdict& zen4 = verdictOn(kernel, "amd-19-11");
  EXPECT_EQ(zen4.ownBest, kAdc6x30);
  EXPECT_DOUBLE_EQ(zen4.portableSpeedup, 1.45);
  EXPECT_DOUBLE_EQ(zen4.shareOfOwnBest, 1.45 / 1.60);
  EXPECT_EQ(verdictOn(kernel, "amd-1a-02").ownBest, kAdcx4x16);
  EXPECT_EQ(verdictOn(kernel, "intel-06-8f").ownBest, kAdd32);
}

TEST(MergeTables, ReportSaysWinnerAndPerCpuFiguresInTextAndJson) {
  auto tables = readTables(kThreeCpus);
  tables[0].unreliable = "the machine was busy";  // as bench says it in its reliability
  const MergeReport report = mergeTables(tables, MergeOptions{true});
  const std::string text = formatMergeText(report);
  EXPECT_NE(text.find("unreliable figures: the machine was busy"), std::string::npos) << text;
  EXPECT_NE(text.find("portable winner  " + kAdc4x16), std::string::npos) << text;
  EXPECT_NE(text.find("no CPU's own best"), std::string::npos) << text;
  EXPECT_NE(text.find("kernel-safe only"), std::string::npos) << text;
  EXPECT_NE(text.find("slower than its own best"), std::string::npos) << text;
  const nlohmann::json j = nlohmann::json::parse(formatMergeJson(report));
  EXPECT_EQ(j.at("schema"), kMergeSchema);
  EXPECT_EQ(j.at("kernel_safe"), true);
  const auto& kernel = j.at("profiles").at(0);
  EXPECT_EQ(kernel.at("winner").at("params"), kAdc4x16);
  EXPECT_EQ(kernel.at("cpus").size(), 3u);
  EXPECT_DOUBLE_EQ(kernel.at("worst_speedup").get<double>(), 1.25);
  EXPECT_EQ(kernel.at("own_winner_somewhere"), false);
}

TEST(MergeTables, TiesGoToTheHigherMeanThenTheSmallerKernel) {
  auto tables = readTables({"zen4.json", "zen5.json"});
  // Two kernel-safe kernels ahead of the rest with the same worst speed-up: the higher mean
  // wins; with equal means too, the smaller code (the adcx kernel: 402 B against 819 B).
  const auto setUp = [&](double adcxOnZen5) {
    for (SpeedupTable& t : tables) {
      for (KernelSpeedup& k : t.kernels) {
        const bool zen4 = t.cpu.key.rfind("amd-19", 0) == 0;
        if (k.params == kAdc6x30)
          k.speedup = zen4 ? 1.5 : 1.55;
        else if (k.params == kAdcx4x16)
          k.speedup = zen4 ? 1.5 : adcxOnZen5;
        else
          k.speedup = 1.0;
      }
    }
  };
  setUp(1.6);
  EXPECT_EQ(pickFor(mergeTables(tables, MergeOptions{true}), "kernel").winner, kAdcx4x16);
  setUp(1.5);
  EXPECT_EQ(pickFor(mergeTables(tables, MergeOptions{true}), "kernel").winner, kAdc6x30);
  setUp(1.55);
  EXPECT_EQ(pickFor(mergeTables(tables, MergeOptions{true}), "kernel").winner, kAdcx4x16);
}

TEST(MergeTables, RefusesInconsistentInputs) {
  const auto refused = [](const std::vector<std::string>& names, MergeOptions options = {}) {
    return refusal([&] { mergeTables(readTables(names), options); });
  };
  EXPECT_NE(refused({"zen4.json", "zen5.json", "bad-copy-kind.json"}).find("one kind at a time"),
            std::string::npos);
  EXPECT_NE(refused({"zen4.json", "bad-other-version.json"}).find("generator 0.0.9"),
            std::string::npos);
  EXPECT_NE(refused({"zen4.json", "zen5.json", "zen4.json"}).find("appears twice"),
            std::string::npos);
  EXPECT_NE(refused({"zen4.json", "bad-other-sizes.json"}).find("the same sizes"),
            std::string::npos);
  EXPECT_NE(refused({"zen4.json"}).find("two or more CPU keys"), std::string::npos);
  EXPECT_NE(refused({"bad-edited-key.json", "zen4.json"}).find("was edited"), std::string::npos);
  EXPECT_NE(refused({"bad-no-candidates.json"}).find("without candidates"), std::string::npos);
  EXPECT_FALSE(refused({"bad-malformed.json"}).empty());
  EXPECT_FALSE(refused({"no-such-file.json"}).empty());
}

TEST(MergeTables, RefusesAProfileSomeCpuDidNotMeasure) {
  auto tables = readTables(kThreeCpus);
  tables.pop_back();  // the Intel part's imix table
  const std::string message = refusal([&] { mergeTables(tables, {}); });
  EXPECT_NE(message.find("profile imix (hot cache) was not measured on intel-06-8f"),
            std::string::npos)
      << message;
}

TEST(MergeTables, RefusesWhenNoKernelIsOnEveryCpu) {
  auto tables = readTables({"zen4.json", "zen5.json"});
  for (KernelSpeedup& k : tables[2].kernels) k.params += ",tail=overlap";  // zen5, kernel
  const std::string message = refusal([&] { mergeTables(tables, {}); });
  EXPECT_NE(message.find("no kernel was measured on every CPU"), std::string::npos) << message;
}

TEST(MergeTables, ReadsTuneRunsAndMergesTheKernelsTheyShare) {
  // The committed tune runs of the kernel profile on the two CPU keys results/ holds.
  const std::string root = std::string(CSUMTUNE_SOURCE_DIR) + "/results/";
  const auto zen4 = readSpeedupTables(root + "amd-19-11-1-0a1bbd54/kernel/results.json");
  ASSERT_EQ(zen4.size(), 1u);
  EXPECT_EQ(zen4[0].origin, "tune");
  EXPECT_EQ(zen4[0].profile, "kernel");
  EXPECT_EQ(zen4[0].reference, "linux-v6.8");
  EXPECT_FALSE(zen4[0].kernels.empty());
  for (const KernelSpeedup& k : zen4[0].kernels) EXPECT_GT(k.speedup, 0);

  auto tables = zen4;
  tables.push_back(readSpeedupTables(root + "amd-1a-02-1-5d4b381f/kernel/results.json").at(0));
  const MergeReport report = mergeTables(tables, MergeOptions{true});
  ASSERT_EQ(report.picks.size(), 1u);
  const PortablePick& pick = report.picks[0];
  EXPECT_GT(pick.common, 0u);
  EXPECT_GT(pick.notEverywhere, 0u);  // each search visited kernels the other did not
  for (const CpuVerdict& c : pick.cpus) {
    EXPECT_GE(c.portableSpeedup, pick.worstSpeedup);
    EXPECT_LE(c.portableSpeedup, c.ownBestSpeedup);
  }
}

TEST(CandidateList, ReadsOneKernelALineWithComments) {
  const auto list = parseCandidateList(
      "# the shared list\n\n" + kAdc4x16 + "  # Linux's shape, doubled\ncarry=adcx,chains=4\n",
      "list");
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[1].carry, gen::Carry::Adcx);
}

TEST(CandidateList, RefusesBadLinesTwiceListedKernelsMixedKindsAndEmptyLists) {
  const auto refused = [](const std::string& text) {
    return refusal([&] { parseCandidateList(text, "list"); });
  };
  EXPECT_NE(refused("carry=adc\ncarry=nope\n").find("list:2: bad candidate"), std::string::npos);
  EXPECT_NE(refused(kAdc4x16 + "\ncarry=adc\n").find("list:2: the kernel of line 1 again"),
            std::string::npos);
  EXPECT_NE(refused("carry=adc\ncarry=adc,kind=copy\n").find("its own list"), std::string::npos);
  EXPECT_NE(refused("# nothing\n").find("lists no candidate"), std::string::npos);
  EXPECT_NE(refusal([] { readCandidateList("/nonexistent/list"); }).find("no such file"),
            std::string::npos);
}

// A bench report of the reference and one kernel twice as fast at every size, and one as fast
// at 40 B only: their tables per profile, and the JSON merge reads back.
TEST(CandidateTables, SpeedupIsTheRatioOfProfileScoresAndRoundTrips) {
  BenchSetup setup;
  setup.unit = "tsc-ticks";
  setup.cpu = hostCpu();
  setup.sizes = {40, 576, 1500};
  setup.repeat = 5;
  std::vector<KernelSamples> samples;
  const auto kernel = [&](const std::string& name, const std::string& params, TimedKind kind,
                          auto perCall) {
    KernelSamples k{TimedKernel{name, params, kind, nullptr, 100}, {}};
    for (int size : setup.sizes)
      k.sizes.push_back({size, 10, std::vector<double>(5, perCall(size))});
    samples.push_back(k);
  };
  kernel("linux-v6.8", "", TimedKind::BaselineLinux, [](int size) { return 2.0 * size; });
  kernel(kAdc4x16, kAdc4x16, TimedKind::Jit, [](int size) { return 1.0 * size; });
  kernel(kAdd32, kAdd32, TimedKind::Jit, [](int size) { return size == 40 ? 80.0 : 2.0 * size; });
  const BenchReport report = buildBenchReport(setup, samples, std::string("linux-v6.8"));
  const std::vector<Profile> profiles{*namedProfile("imix"), *namedProfile("mtu")};
  EXPECT_EQ(sizesOf(profiles), (std::vector<int>{40, 576, 1500}));
  const auto tables = tablesFromBench(report, profiles, gen::Kind::Sum);
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_DOUBLE_EQ(tables[0].kernels[0].speedup, 2.0);
  EXPECT_DOUBLE_EQ(tables[1].kernels[1].speedup, 1.0);  // mtu: 1500 B only
  EXPECT_EQ(tables[0].cpu.key, cpuKey(setup.cpu));

  // Written as bench --candidates writes it, read as merge reads it.
  const std::string path = ::testing::TempDir() + "/merge_candidates.json";
  CandidateBench bench{report, tables, {}};
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    const std::string json = formatCandidateBenchJson(bench);
    std::fwrite(json.data(), 1, json.size(), f);
    std::fclose(f);
  }
  const auto back = readSpeedupTables(path);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].profile, "mtu");
  EXPECT_EQ(back[0].cpu.key, cpuKey(setup.cpu));
  EXPECT_DOUBLE_EQ(back[0].kernels[0].speedup, 2.0);
  EXPECT_EQ(back[0].kernels[1].params, kAdd32);
}

}  // namespace
}  // namespace csumtune::tuner
