// Loading tuned kernels: every bad-file case refused with a message, the good one compiled,
// best() finding results on its search path or falling back, and all of it thread-safe.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "csumtune/cpu.hpp"
#include "csumtune/csumtune.h"
#include "csumtune/loader.hpp"
#include "csumtune/results/document.hpp"
#include "verify/reference.hpp"

namespace csumtune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A results document as the writer's shared part makes it (the tuner's own writer is
// tested against every reader in results_roundtrip_test.cpp).
json resultsFor(const std::string& params, const CpuIdentity& cpu, const std::string& key,
                const std::string& profile = "imix", const std::string& cache = "hot",
                bool kernelSafe = false) {
  results::RunHeader header;
  header.cpuKey = key;
  header.cpuBrand = cpu.brand;
  for (const auto& f : cpu.features) header.cpuFeatures[f.name] = f.present;
  header.profile = profile;
  header.sizes = {{40, 1}};
  header.cache = cache;
  header.kernelSafe = kernelSafe;
  header.complete = true;
  header.winnerParams = params;
  json document = json::object();
  results::writeHeader(document, header);
  return document;
}

class LoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("csumtune-loader-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    host_ = hostCpu();
    key_ = cpuKey(host_);
  }
  void TearDown() override {
    detail::setInstalledResultsForTesting(std::nullopt);
    fs::remove_all(dir_);
    unsetenv("CSUMTUNE_RESULTS");
  }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
  void expectRefused(const std::string& path, Error::Kind kind, const std::string& words,
                     const LoadOptions& options = {}) {
    try {
      Jit::load(path, options);
      ADD_FAILURE() << "loaded " << path;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), kind) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
    char err[512] = "";
    EXPECT_EQ(csumtune_load(path.c_str(), err, sizeof err), nullptr);
    EXPECT_NE(std::string(err).find(words), std::string::npos) << err;
  }
  fs::path dir_;
  CpuIdentity host_;
  std::string key_;
};

TEST_F(LoaderTest, LoadsTheWinnerOfAGoodFile) {
  const std::string path =
      write("good.json", resultsFor("carry=adc,chains=3,unroll=9", host_, key_).dump());
  LoadedKernel loaded = Jit::load(path);
  EXPECT_EQ(loaded.kernel.canonical(), "carry=adc,chains=3,unroll=9,prefetch=0,hint=t0");
  EXPECT_NE(loaded.origin.find(path), std::string::npos);
  std::vector<std::uint8_t> data(3000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 7 + 1);
  for (int len : {0, 1, 40, 1500, 2999}) {
    EXPECT_EQ(tuner::residue(loaded.kernel(data.data(), len, 0xffffffff)),
              tuner::referenceResidue(data.data(), len, 0xffffffff));
  }
  char err[256];
  csumtune_kernel* k = csumtune_load(path.c_str(), err, sizeof err);
  ASSERT_NE(k, nullptr) << err;
  EXPECT_NE(std::string(csumtune_kernel_origin(k)).find("imix"), std::string::npos);
  csumtune_kernel_free(k);
}

TEST_F(LoaderTest, RefusesEveryBadFile) {
  expectRefused((dir_ / "missing.json").string(), Error::Kind::BadResults, "no such file");
  expectRefused(write("empty.json", ""), Error::Kind::BadResults, "empty");
  const std::string good = resultsFor("carry=adc", host_, key_).dump();
  expectRefused(write("truncated.json", good.substr(0, good.size() / 2)), Error::Kind::BadResults,
                "truncated");
  expectRefused(write("text.json", "hello, world"), Error::Kind::BadResults, "not JSON");
  // Found by fuzzing: a number beyond a double's range is out_of_range inside the JSON parser.
  expectRefused(write("huge-number.json", R"({"schema": 1.4231E836618515619})"),
                Error::Kind::BadResults, "not usable JSON");
  expectRefused(write("array.json", "[1, 2]"), Error::Kind::BadResults,
                "not a csumtune results file");
  fs::create_directories(dir_ / "directory.json");
  expectRefused((dir_ / "directory.json").string(), Error::Kind::BadResults, "is a directory");
  ASSERT_EQ(mkfifo((dir_ / "fifo.json").c_str(), 0600), 0);
  expectRefused((dir_ / "fifo.json").string(), Error::Kind::BadResults, "not a regular file");
  json other = resultsFor("carry=adc", host_, key_);
  other["schema"] = "csumtune-results/0";
  expectRefused(write("schema.json", other.dump()), Error::Kind::BadResults,
                "schema 'csumtune-results/0'");
  json noWinner = resultsFor("carry=adc", host_, key_);
  noWinner["winner"] = nullptr;
  expectRefused(write("nowinner.json", noWinner.dump()), Error::Kind::BadResults, "no winner");
  // A file checks itself: a key edited to load on this CPU is refused when the CPU fields
  // it records give another.
  json edited = resultsFor("carry=adc", host_, key_);
  edited["cpu"]["vendor"] = host_.vendor;
  edited["cpu"]["family"] = host_.family + 1;
  edited["cpu"]["model"] = host_.model;
  edited["cpu"]["stepping"] = host_.stepping;
  expectRefused(write("edited.json", edited.dump()), Error::Kind::BadResults,
                "the file was edited");
  edited["cpu"]["family"] = host_.family;
  EXPECT_NO_THROW(Jit::load(write("honest.json", edited.dump())))
      << "the same fields, the same key";
  // An empty winner would parse as the default kernel: refused, not passed off as tuned.
  expectRefused(write("emptywinner.json", resultsFor("", host_, key_).dump()),
                Error::Kind::BadResults, "winner with empty params");
  json badParams = resultsFor("carry=adc,chains=9", host_, key_);
  expectRefused(write("badparams.json", badParams.dump()), Error::Kind::BadResults,
                "chains must be in 1..8");
  // load() and best() hand out csum_partial: a copying winner is not one.
  expectRefused(write("copying.json", resultsFor("carry=adc,kind=copy", host_, key_).dump()),
                Error::Kind::BadResults, "copying winner (kind=copy)");
  json noCpu = resultsFor("carry=adc", host_, key_);
  noCpu.erase("cpu");
  expectRefused(write("nocpu.json", noCpu.dump()), Error::Kind::BadResults, "field is missing");
  expectRefused((dir_ / "nope.json").string(), Error::Kind::BadResults, "no such file");
  char err[64];
  EXPECT_EQ(csumtune_load(nullptr, err, sizeof err), nullptr);
}

TEST_F(LoaderTest, RefusesAnotherCpuUnlessFeaturesMatchAndTheCallerAccepts) {
  // Same features, another model: refused by default, accepted on request.
  const std::string sibling =
      write("sibling.json", resultsFor("carry=adc", host_, "amd-ff-ff-0-00000000").dump());
  expectRefused(sibling, Error::Kind::OtherCpu, "accept it explicitly");
  EXPECT_NO_THROW(Jit::load(sibling, LoadOptions{.acceptSameFeatures = true}));
  // Different features: refused even then.
  CpuIdentity older = host_;
  for (auto& f : older.features) f.present = f.name == "BMI2";
  const std::string old =
      write("older.json", resultsFor("carry=adc", older, "intel-06-3c-3-12345678").dump());
  expectRefused(old, Error::Kind::OtherCpu, "its features differ",
                LoadOptions{.acceptSameFeatures = true});
}

TEST_F(LoaderTest, BestFindsResultsForThisCpuOnTheSearchPath) {
  write("root/" + key_ + "/mtu/results.json",
        resultsFor("carry=adc,chains=2,unroll=6", host_, key_).dump());
  write("root/" + key_ + "/imix/results.json",
        resultsFor("carry=adc,chains=4,unroll=8", host_, key_).dump());
  write("root/other-cpu/imix/results.json",
        resultsFor("carry=adc,chains=1,unroll=1", host_, "other-cpu").dump());
  write("root/" + key_ + "/imix-kernel/results.json",
        resultsFor("carry=adc,chains=3,unroll=9", host_, key_, "imix", "hot", true).dump());
  write("root/" + key_ + "/imix-cold/results.json",
        resultsFor("carry=adc,chains=5,unroll=10", host_, key_, "imix", "cold").dump());
  // A copying run of the preferred profile (tune --kind copy): passed over, not a csum_partial.
  write("root/" + key_ + "/copy-imix/results.json",
        resultsFor("carry=adc,chains=7,unroll=14,kind=copy", host_, key_).dump());
  // Neither a directory, a FIFO nor a symlink loop where a results file should be may stop
  // best().
  fs::create_directories(dir_ / "root" / key_ / "aac");
  fs::create_symlink("results.json", dir_ / "root" / key_ / "aac" / "results.json");
  fs::create_directories(dir_ / "root" / key_ / "aaa" / "results.json");
  fs::create_directories(dir_ / "root" / key_ / "aab");
  ASSERT_EQ(mkfifo((dir_ / "root" / key_ / "aab" / "results.json").c_str(), 0600), 0);
  setenv("CSUMTUNE_RESULTS", ("/nonexistent:" + (dir_ / "root").string()).c_str(), 1);
  EXPECT_EQ(resultsSearchPath().front(), "/nonexistent");
  const LoadedKernel chosen = best();
  EXPECT_EQ(chosen.kernel.params().unroll, 8) << "imix is preferred: " << chosen.origin;
  EXPECT_NE(chosen.origin.find("imix"), std::string::npos);
}

TEST_F(LoaderTest, BestFallsBackToTheSafeDefaultAndSaysSo) {
  setenv("CSUMTUNE_RESULTS", dir_.c_str(), 1);
  // A broken file for this CPU is skipped, not fatal.
  write(key_ + "/imix/results.json", "{ broken");
  // Only our directory: the installed results (which may hold this CPU's) switched off.
  detail::setInstalledResultsForTesting("");
  const LoadedKernel fallback = best();
  EXPECT_EQ(fallback.origin.rfind("default", 0), 0u) << fallback.origin;
  EXPECT_EQ(fallback.kernel.params(), defaultParams());
  EXPECT_NE(fallback.origin.find("no usable tuned results"), std::string::npos) << fallback.origin;
  EXPECT_NE(fallback.origin.find("imix/results.json"), std::string::npos) << fallback.origin;
  char err[512] = "";
  csumtune_kernel* k = csumtune_best(err, sizeof err);
  ASSERT_NE(k, nullptr);
  EXPECT_STRNE(err, "");
  csumtune_kernel_free(k);
}

// Kernels are called from many threads at once while others compile, load and free.
TEST_F(LoaderTest, CompileLoadCallAndFreeFromManyThreads) {
  const std::string path =
      write("good.json", resultsFor("carry=cmov,chains=3,unroll=12", host_, key_).dump());
  csumtune_kernel* shared = csumtune_compile("carry=adc,chains=4,unroll=32", nullptr, 0);
  ASSERT_NE(shared, nullptr);
  std::vector<std::uint8_t> data(4096);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 13 + 5);
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(static_cast<unsigned>(t));
      for (int i = 0; i < 40; ++i) {
        const int len = static_cast<int>(rng() % data.size());
        const auto expected = tuner::referenceResidue(data.data(), len, 0);
        if (tuner::residue(csumtune_kernel_fn(shared)(data.data(), len, 0)) != expected) ++wrong;
        const auto text =
            fmt::format("carry=adc,chains={},unroll={}", 1 + i % 4, (1 + i % 4) * (1 + t % 3));
        csumtune_kernel* mine = (i % 3 == 0) ? csumtune_load(path.c_str(), nullptr, 0)
                                             : csumtune_compile(text.c_str(), nullptr, 0);
        if (!mine) {
          ++failed;
          continue;
        }
        if (tuner::residue(csumtune_kernel_fn(mine)(data.data(), len, 0)) != expected) ++wrong;
        csumtune_kernel_free(mine);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  csumtune_kernel_free(shared);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(failed.load(), 0);
}

}  // namespace
}  // namespace csumtune
