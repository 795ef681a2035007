#include "report/results_file.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "csumtune/gen/kernel_program.hpp"

namespace csumtune::tuner {
namespace {

using nlohmann::json;

json ratioJson(const RatioEstimate& r) {
  return {{"median", r.median},
          {"ci_low", r.low},
          {"ci_high", r.high},
          {"confidence", r.confidence},
          {"significant", r.significant()}};
}

json finiteOrNull(double x) {
  return std::isfinite(x) ? json(x) : json();
}

json evaluationJson(const Evaluation& e) {
  return {{"index", e.index},
          {"params", e.params.toString()},
          {"status", toString(e.status)},
          {"message", e.message},
          {"score", finiteOrNull(e.score)},
          {"score_per_byte", finiteOrNull(e.scorePerByte)},
          {"reference_per_byte", e.referencePerByte},
          {"per_call", e.perCall},
          {"seconds", e.seconds},
          {"resumed", e.resumed}};
}

json finalistJson(const FinalistResult& f) {
  json sizes = json::array();
  for (const auto& s : f.sizes) {
    sizes.push_back({{"size", s.size},
                     {"per_byte", s.perByte},
                     {"baseline_per_byte", s.baselinePerByte},
                     {"speedup", ratioJson(s.speedup)}});
  }
  return {{"params", f.params.toString()},    {"search_score", f.searchScore},
          {"score_per_byte", f.scorePerByte}, {"baseline_per_byte", f.baselinePerByte},
          {"speedup", ratioJson(f.speedup)},  {"sizes", sizes}};
}

json cpuJson(const CpuIdentity& cpu, const std::string& key) {
  json features = json::object();
  for (const auto& f : cpu.features) features[f.name] = f.present;
  return {{"vendor", cpu.vendor},     {"brand", cpu.brand},
          {"family", cpu.family},     {"model", cpu.model},
          {"stepping", cpu.stepping}, {"microcode", cpu.microcode ? json(*cpu.microcode) : json()},
          {"features", features},     {"key", key}};
}

}  // namespace

std::string verdict(const FinalistResult& w, const std::string& baseline) {
  const auto& s = w.speedup;
  const int percent = static_cast<int>(std::lround(100 * s.confidence));
  if (s.significant() && s.median > 1) {
    return fmt::format("{:.2f}x faster than {} ({}% CI {:.3f}-{:.3f})", s.median, baseline, percent,
                       s.low, s.high);
  }
  if (s.significant()) {
    return fmt::format("{:.2f}x slower than {} ({}% CI {:.3f}-{:.3f})", s.median, baseline, percent,
                       s.low, s.high);
  }
  return fmt::format("not significantly faster than {} ({:.3f}x, {}% CI {:.3f}-{:.3f})", baseline,
                     s.median, percent, s.low, s.high);
}

json toJson(const TuneRun& run) {
  json sizes = json::array();
  for (const auto& e : run.profile.entries)
    sizes.push_back({{"size", e.size}, {"weight", e.weight}});
  json evaluations = json::array();
  std::size_t ok = 0, wrong = 0, refused = 0;
  for (const Evaluation& e : run.evaluations) {
    evaluations.push_back(evaluationJson(e));
    (e.status == EvalStatus::Ok ? ok : e.status == EvalStatus::Wrong ? wrong : refused)++;
  }
  json finalists = json::array();
  for (const auto& f : run.finalists) finalists.push_back(finalistJson(f));
  json sweep = json::array();
  for (const auto& p : run.sweep) {
    sweep.push_back({{"size", p.size},
                     {"winner_per_byte", p.winnerPerByte},
                     {"baseline_per_byte", p.baselinePerByte}});
  }
  json j = {
      {"schema", kResultsSchema},
      {"generator_version", gen::kGeneratorVersion},
      {"created", run.created},
      {"host", run.host},
      {"complete", run.complete},
      {"cpu", cpuJson(run.cpu, run.cpuKey)},
      {"pinned_cpu", run.pinnedCpu},
      {"workload",
       {{"profile", run.profile.name},
        {"description", run.profile.description},
        {"sizes", sizes},
        {"cache", toString(run.cache)},
        {"set_size_bytes", run.setSizeBytes},
        {"score",
         "sum(weight * median time per call) / sum(weight * length), in timer units per byte; "
         "the search ranks by the same figure divided by the reference's, measured interleaved"}}},
      {"search",
       {{"algorithm", run.search.algorithm},
        {"seed", run.search.seed},
        {"budget", run.budget},
        {"time_limit_seconds", run.timeLimitSeconds},
        {"stall", run.search.stall},
        {"kernel_safe", run.kernelSafe},
        {"unique_evaluations", run.uniqueThisRun},
        {"revisits", run.revisits},
        {"noise_retries", run.noiseRetries},
        {"evaluations_total", run.evaluations.size()},
        {"ok", ok},
        {"wrong", wrong},
        {"refused", refused},
        {"elapsed_seconds", run.elapsedSeconds},
        {"stopped_because", run.stoppedBecause},
        {"phases", run.phases}}},
      {"timer",
       {{"unit", run.timerUnit}, {"source", run.timerSource}, {"overhead", run.timerOverhead}}},
      {"measure",
       {{"reference", run.reference},
        {"search_repeat", run.measure.repeat},
        {"search_batch_ticks", run.measure.targetBatchTicks},
        {"noise_tolerance", run.measure.noiseTolerance},
        {"final_repeat", run.final.repeat},
        {"final_batch_ticks", run.final.targetBatchTicks}}},
      {"evaluations", evaluations},
      {"finalists", finalists},
      {"sweep", sweep},
  };
  if (!run.finalists.empty()) {
    const FinalistResult& w = run.finalists.front();
    j["winner"] = {{"params", w.params.toString()},
                   {"score_per_byte", w.scorePerByte},
                   {"baseline", run.reference},
                   {"baseline_per_byte", w.baselinePerByte},
                   {"speedup", ratioJson(w.speedup)},
                   {"verdict", verdict(w, "linux-like")},
                   {"source", fmt::format("winner.S ({} style)", run.style)}};
  } else {
    j["winner"] = nullptr;
  }
  return j;
}

namespace {

json readResultsJson(const std::string& path, const char* purpose) {
  std::ifstream in(path);
  if (!in)
    throw ResultsError(fmt::format("cannot {}: {} does not exist or is unreadable", purpose, path));
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw ResultsError(
        fmt::format("cannot {}: {} is not valid JSON ({})", purpose, path, e.what()));
  }
  if (!j.is_object() || j.value("schema", "") != kResultsSchema) {
    throw ResultsError(
        fmt::format("cannot {}: {} is not a {} file", purpose, path, kResultsSchema));
  }
  return j;
}

std::vector<Evaluation> evaluationsFromJson(const json& j, const std::string& path,
                                            const char* purpose) {
  try {
    std::vector<Evaluation> out;
    for (const auto& e : j.at("evaluations")) {
      Evaluation ev;
      ev.params = gen::parseParams(e.at("params").get<std::string>());
      const auto status = evalStatusFromString(e.at("status").get<std::string>());
      if (!status)
        throw ResultsError(
            fmt::format("cannot {}: unknown evaluation status in {}", purpose, path));
      ev.status = *status;
      ev.message = e.value("message", "");
      if (!e.at("score").is_null()) ev.score = e.at("score").get<double>();
      if (!e.at("score_per_byte").is_null()) ev.scorePerByte = e.at("score_per_byte").get<double>();
      ev.referencePerByte = e.value("reference_per_byte", 0.0);
      ev.perCall = e.value("per_call", std::vector<double>{});
      ev.seconds = e.value("seconds", 0.0);
      out.push_back(std::move(ev));
    }
    return out;
  } catch (const json::exception& e) {
    throw ResultsError(
        fmt::format("cannot {}: {} is missing fields ({})", purpose, path, e.what()));
  } catch (const gen::ParamsError& e) {
    throw ResultsError(fmt::format("cannot {}: {} holds bad params ({})", purpose, path, e.what()));
  }
}

}  // namespace

gen::Params readWinnerParams(const std::string& path) {
  const json j = readResultsJson(path, "read the winner");
  try {
    if (!j.contains("winner") || j.at("winner").is_null()) {
      throw ResultsError("cannot read the winner: " + path + " has none (the run did not finish)");
    }
    return gen::parseParams(j.at("winner").at("params").get<std::string>());
  } catch (const json::exception& e) {
    throw ResultsError(
        fmt::format("cannot read the winner: {} is missing fields ({})", path, e.what()));
  } catch (const gen::ParamsError& e) {
    throw ResultsError(
        fmt::format("cannot read the winner: {} holds bad params ({})", path, e.what()));
  }
}

std::vector<Evaluation> readEvaluations(const std::string& path) {
  return evaluationsFromJson(readResultsJson(path, "replay"), path, "replay");
}

std::vector<Evaluation> readEvaluationsForResume(const std::string& path, const TuneRun& current) {
  const json j = readResultsJson(path, "--resume");
  try {
    const std::string key = j.at("cpu").at("key").get<std::string>();
    if (key != current.cpuKey) {
      throw ResultsError(fmt::format("cannot --resume: {} was tuned on CPU {}, this is {}", path,
                                     key, current.cpuKey));
    }
    const auto& w = j.at("workload");
    std::vector<ProfileEntry> entries;
    for (const auto& e : w.at("sizes"))
      entries.push_back({e.at("size").get<int>(), e.at("weight").get<double>()});
    const std::string spec = customProfile(entries).spec();
    if (spec != current.profile.spec() ||
        w.at("cache").get<std::string>() != toString(current.cache)) {
      throw ResultsError(fmt::format(
          "cannot --resume: {} tuned for {} ({}), this run is for {} ({})", path, spec,
          w.at("cache").get<std::string>(), current.profile.spec(), toString(current.cache)));
    }
    if (j.at("search").at("kernel_safe").get<bool>() != current.kernelSafe) {
      throw ResultsError("cannot --resume: " + path +
                         " searched a different space (--kernel-safe differs)");
    }
  } catch (const json::exception& e) {
    throw ResultsError(fmt::format("cannot --resume: {} is missing fields ({})", path, e.what()));
  }
  return evaluationsFromJson(j, path, "--resume");
}

}  // namespace csumtune::tuner
