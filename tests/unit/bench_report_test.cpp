// bench says when its figures are unreliable: the spread of the samples and the contention
// monitor's verdict, in every format (synthetic samples: nothing is timed).
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/bench_report.hpp"

namespace csumtune::tuner {
namespace {

// Two kernels, two sizes; sample i is size * (1 + (i mod 7) * step) per call: step 0 is a tight
// figure, 0.05 one whose MAD is about 9 % of its median.
std::vector<KernelSamples> samples(double step) {
  std::vector<KernelSamples> out;
  for (const char* name : {"linux-v6.8", "carry=adc,chains=4,unroll=16"}) {
    KernelSamples k{TimedKernel{name, "", TimedKind::Jit, nullptr, 100}, {}};
    for (int size : {64, 1500}) {
      SizeSamples s{size, 10, {}};
      for (int i = 0; i < 21; ++i) s.perCall.push_back(size * (1.0 + (i % 7) * step + i * 1e-6));
      k.sizes.push_back(s);
    }
    out.push_back(k);
  }
  return out;
}

BenchSetup setup(std::optional<ContentionReport> contention) {
  BenchSetup s;
  s.unit = "cycles";
  s.clock = {3e9, 1};
  s.repeat = 21;
  s.sizes = {64, 1500};
  s.contention = std::move(contention);
  return s;
}

ContentionReport machine(bool busy) {
  ContentionReport c;
  PhaseContention p{"bench"};
  p.measurements = 21;
  p.keptSeconds = 1;
  p.disturbed = busy ? 10 : 0;
  p.disturbedSeconds = busy ? 0.5 : 0;
  c.phases.push_back(p);
  c.probes.push_back({"before bench", {}, 0, 0, 1.0});
  return c;
}

TEST(BenchReliability, QuietAndTightIsReliableAndSaysSo) {
  const BenchReport r = buildBenchReport(setup(machine(false)), samples(0.0), "linux-v6.8");
  EXPECT_FALSE(r.reliability.unreliable());
  EXPECT_TRUE(r.reliability.watched);
  EXPECT_EQ(r.reliability.problem(), "");
  EXPECT_LT(r.reliability.medianSpreadPercent, 1.0);
  const std::string table = formatTable(r);
  EXPECT_NE(table.find("machine: quiet"), std::string::npos) << table;
  EXPECT_NE(table.find("spread: median"), std::string::npos);
  EXPECT_EQ(table.find("unreliable"), std::string::npos);
  const auto j = nlohmann::json::parse(formatJson(r));
  EXPECT_TRUE(j["reliability"]["reliable"].get<bool>());
  EXPECT_FALSE(j["reliability"]["machine_disturbed"].get<bool>());
  EXPECT_TRUE(j["kernels"][0]["results"][0].contains("spread_percent"));
  const std::string csv = formatCsv(r);
  EXPECT_NE(csv.find(",code_bytes,spread_percent,machine_disturbed\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",no\n"), std::string::npos) << csv;
}

TEST(BenchReliability, WideSpreadIsUnreliableInEveryFormat) {
  const BenchReport r = buildBenchReport(setup(machine(false)), samples(0.05), "linux-v6.8");
  EXPECT_TRUE(r.reliability.spreadTooWide());
  EXPECT_FALSE(r.reliability.disturbed);
  EXPECT_NE(r.reliability.problem().find("the samples spread widely"), std::string::npos);
  for (const std::string& text : {formatTable(r), formatThreadTable(r)})
    EXPECT_NE(text.find("warning: unreliable figures: the samples spread widely"),
              std::string::npos)
        << text;
  const auto j = nlohmann::json::parse(formatJson(r));
  EXPECT_FALSE(j["reliability"]["reliable"].get<bool>());
  EXPECT_GT(j["reliability"]["median_spread_percent"].get<double>(),
            BenchReliability::kSpreadLimitPercent);
  EXPECT_GT(j["kernels"][1]["results"][1]["spread_percent"].get<double>(),
            BenchReliability::kSpreadLimitPercent);
}

TEST(BenchReliability, ABusyMachineIsUnreliableInEveryFormat) {
  const BenchReport r = buildBenchReport(setup(machine(true)), samples(0.0), "linux-v6.8");
  EXPECT_TRUE(r.reliability.disturbed);
  EXPECT_TRUE(r.reliability.unreliable());
  EXPECT_NE(r.reliability.machine.find("busy: 50 % of the measuring time disturbed"),
            std::string::npos)
      << r.reliability.machine;
  for (const std::string& text : {formatTable(r), formatThreadTable(r)})
    EXPECT_NE(text.find("warning: unreliable figures: the machine was busy"), std::string::npos)
        << text;
  const auto j = nlohmann::json::parse(formatJson(r));
  EXPECT_TRUE(j["reliability"]["machine_disturbed"].get<bool>());
  EXPECT_NE(formatCsv(r).find(",yes\n"), std::string::npos);
}

TEST(BenchReliability, WithoutTheMonitorTheMachineIsNotJudged) {
  const BenchReport r = buildBenchReport(setup(std::nullopt), samples(0.0), "linux-v6.8");
  EXPECT_FALSE(r.reliability.watched);
  EXPECT_FALSE(r.reliability.unreliable());
  EXPECT_EQ(r.reliability.machine, "not watched");
}

}  // namespace
}  // namespace csumtune::tuner
