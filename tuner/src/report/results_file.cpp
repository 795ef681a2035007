#include "report/results_file.hpp"

#include <cmath>

#include <fmt/format.h>

#include "csumtune/gen/params.hpp"
#include "csumtune/gen/version.hpp"
#include "csumtune/results/document.hpp"
#include "search/code_size_tradeoff.hpp"

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
          {"reference_per_byte", e.baselinePerByte},
          {"per_call", e.perCall},
          {"seconds", e.seconds},
          {"resumed", e.resumed},
          {"bytes", e.bytes ? json(e.bytes) : json()}};
}

json finalistJson(const FinalistResult& f) {
  json sizes = json::array();
  for (const auto& s : f.sizes) {
    sizes.push_back({{"size", s.size},
                     {"per_byte", s.perByte},
                     {"baseline_per_byte", s.baselinePerByte},
                     {"speedup", ratioJson(s.speedup)}});
  }
  return {{"params", f.params.toString()},
          {"search_score", f.searchScore},
          {"score_per_byte", f.scorePerByte},
          {"baseline_per_byte", f.baselinePerByte},
          {"speedup", ratioJson(f.speedup)},
          {"bytes", f.bytes},
          {"sizes", sizes}};
}

// One kernel's figures at the guard lengths.
json guardResultJson(const GuardResult& g) {
  return {{"params", g.params.toString()},
          {"worst_time_ratio", g.worstRatio},
          {"worst_length", g.worstLength},
          {"worst_cache", toString(g.worstCache)},
          {"worst_interval_low", g.worstLow},
          {"surely_slower", g.surelySlower},
          {"excess", g.excess},
          {"mean_time_ratio", g.meanRatio}};
}

json guardJson(const TuneRun& run) {
  json candidates = json::array();
  for (const GuardResult& g : run.guard) {
    candidates.push_back(guardResultJson(g));
    candidates.back()["eligible"] = g.eligible;
    candidates.back()["losses_not_repeated"] = g.lossesNotRepeated;
  }
  // The finalists the profile could not tell apart, measured again together (tune.cpp runoff).
  json runoff = json::array();
  for (const GuardResult& g : run.runoff) runoff.push_back(guardResultJson(g));
  // A SIMD winner with each middle bound, measured together (tune.cpp chooseMiddlePath).
  json middle = json::array();
  for (const MiddlePathResult& m : run.middle) {
    middle.push_back(guardResultJson(m.atLengths));
    middle.back()["mid"] = m.atLengths.params.mid;
    middle.back()["profile_speedup"] = ratioJson(m.profile);
  }
  // The winner at each placement, measured together (tune.cpp place).
  json placement = json::array();
  for (const GuardResult& g : run.placement) {
    placement.push_back(guardResultJson(g));
    placement.back()["place"] = g.params.place;
    placement.back()["targets"] = gen::toString(g.params.targets);
  }
  return {{"lengths", run.guardLengths},
          {"tolerance", run.guardTolerance},
          {"repeats_up_to", run.guardRepeatsUpTo},
          {"candidates", candidates},
          {"runoff", runoff},
          {"middle", middle},
          {"middle_lengths", run.middleLengths},
          {"placement", placement},
          {"placement_profile",
           run.placementProfile ? json{{"at_own_placement", ratioJson(run.placementProfile->first)},
                                       {"at_least_losing", ratioJson(run.placementProfile->second)}}
                                : json()}};
}

// Code size as a second objective: the smallest kernel of the space, the Pareto front of the
// evaluations, and the fastest kernel within each size limit measured with the winner.
json codeSizeJson(const TuneRun& run) {
  json front = json::array();
  for (const ParetoPoint& p : paretoFront(run.evaluations))
    front.push_back({{"params", p.params.toString()}, {"bytes", p.bytes}, {"score", p.score}});
  json limits = json::array();
  for (const SizeLimitResult& l : run.sizeLimits) {
    limits.push_back({{"limit_bytes", l.limit ? json(l.limit) : json()},
                      {"params", l.params.toString()},
                      {"bytes", l.bytes},
                      {"speedup", ratioJson(l.speedup)},
                      {"relative_to_winner", l.relative}});
  }
  return {{"max_bytes", run.measure.maxBytes ? json(run.measure.maxBytes) : json()},
          {"smallest_in_space",
           {{"params", run.smallestParams.toString()}, {"bytes", run.smallestBytes}}},
          {"pareto", front},
          {"limits", limits}};
}

json contentionJson(const ContentionReport& c) {
  json phases = json::array();
  for (const PhaseContention& p : c.phases) {
    phases.push_back({{"phase", p.name},
                      {"measurements", p.measurements},
                      {"disturbed", p.disturbed},
                      {"disturbed_share", p.disturbedShare()},
                      {"kept_seconds", p.keptSeconds},
                      {"disturbed_seconds", p.disturbedSeconds},
                      {"seconds", p.seconds},
                      {"run_queue_wait_share", p.waitShare},
                      {"steal_share", p.stealShare},
                      {"measured_again", p.measuredAgain},
                      {"rounds_discarded", p.roundsDiscarded},
                      {"waited_seconds", p.waitedSeconds}});
  }
  json probes = json::array();
  for (const ProbeRecord& p : c.probes) {
    probes.push_back({{"at", p.at},
                      {"chain", p.figures.chain},
                      {"reference", p.figures.baseline},
                      {"loads", p.figures.loads},
                      {"loads_per_chain", loadsPerChain(p.figures)},
                      {"run_queue_wait_share", p.waitShare},
                      {"steal_share", p.stealShare},
                      {"slowdown", p.slowdown},
                      {"load_slowdown", p.loadSlowdown}});
  }
  return {{"phases", phases},
          {"probes", probes},
          {"probe_slowdown", c.probeSlowdown()},
          {"quiet_loads_per_chain_remembered", c.referenceLoadsPerChain},
          {"quiet_reference_file", c.referenceFile},
          {"quietest_loads_per_chain", c.quietestLoadsPerChain},
          {"wait_quiet_limit_seconds", c.waitLimitSeconds},
          {"waited_seconds", c.waitedSeconds},
          {"wait_limit_ran_out", c.gaveUp},
          {"unavailable", c.unavailable}};
}

results::RunHeader headerOf(const TuneRun& run) {
  results::RunHeader h;
  h.cpuKey = run.cpuKey;
  h.cpuBrand = run.cpu.brand;
  h.cpuFields = results::RunHeader::CpuFields{run.cpu.vendor, run.cpu.family, run.cpu.model,
                                              run.cpu.stepping};
  for (const auto& f : run.cpu.features) h.cpuFeatures[f.name] = f.present;
  h.profile = run.profile.name;
  h.sizes = run.profile.entries;
  h.cache = toString(run.cache);
  h.kernelSafe = run.kernelSafe;
  h.complete = run.complete();
  // Only a finished run has a winner (verified with the full plan, winner.S written beside):
  // an interrupted or failed one keeps its finalists as figures, and its winner is null.
  if (run.complete() && !run.finalists.empty())
    h.winnerParams = run.finalists.front().params.toString();
  if (!run.contention.probes.empty()) {
    h.disturbed = run.contention.disturbed();
    h.contentionSummary = run.contention.summary();
  }
  return h;
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
  json evaluations = json::array();
  std::size_t ok = 0, wrong = 0, refused = 0, tooBig = 0;
  for (const Evaluation& e : run.evaluations) {
    evaluations.push_back(evaluationJson(e));
    (e.status == EvalStatus::Ok       ? ok
     : e.status == EvalStatus::Wrong  ? wrong
     : e.status == EvalStatus::TooBig ? tooBig
                                      : refused)++;
  }
  json finalists = json::array();
  for (const auto& f : run.finalists) finalists.push_back(finalistJson(f));
  json sweep = json::array();
  for (const auto& p : run.sweep) {
    json point = {{"size", p.size},
                  {"cache", toString(p.cache)},
                  {"winner_per_byte", p.winnerPerByte},
                  {"baseline_per_byte", p.baselinePerByte},
                  {"time_ratio", p.ratio()}};
    if (p.pairedMeasured()) point["time_ratio_paired"] = ratioJson(p.paired);
    if (!p.placedPerByte.empty()) {
      point["baseline_placed_per_byte"] = p.placedPerByte;
      point["time_ratio_to_slowest_placement"] = p.ratioToSlowestPlacement();
    }
    sweep.push_back(std::move(point));
  }
  json j = {
      {"generator_version", gen::kGeneratorVersion},
      {"created", run.created},
      {"host", run.host},
      {"cpu",
       {{"vendor", run.cpu.vendor},
        {"family", run.cpu.family},
        {"model", run.cpu.model},
        {"stepping", run.cpu.stepping},
        {"microcode", run.cpu.microcode ? json(*run.cpu.microcode) : json()}}},
      {"pinned_cpu", run.pinnedCpu},
      {"workload",
       {{"description", run.profile.description},
        {"set_size_bytes", run.setSizeBytes},
        {"score",
         "sum(weight * median time per call) / sum(weight * length), in timer units per byte; "
         "the search ranks by the same figure divided by the baseline's, measured interleaved"}}},
      {"search",
       {{"algorithm", run.search.algorithm},
        {"seed", run.search.seed},
        {"budget", run.budget},
        {"short_path_bounds", run.strictBounds ? "strict" : "strict and aligned"},
        {"code_addresses", run.sharedAddresses ? "shared" : "own"},
        {"time_limit_seconds", run.timeLimitSeconds},
        {"stall", run.search.stall},
        {"unique_evaluations", run.uniqueThisRun},
        {"revisits", run.revisits},
        {"noise_retries", run.noiseRetries},
        {"evaluations_total", run.evaluations.size()},
        {"ok", ok},
        {"wrong", wrong},
        {"refused", refused},
        {"too_big", tooBig},
        {"max_bytes", run.measure.maxBytes},
        {"elapsed_seconds", run.elapsedSeconds},
        {"stopped_because", run.stoppedBecause},
        {"phases", run.phases}}},
      {"timer",
       {{"unit", run.timerUnit}, {"source", run.timerSource}, {"overhead", run.timerOverhead}}},
      {"clock",
       {{"tsc_hz", run.clock.tscHz},
        {"core_cycles_per_unit", run.clock.cyclesPerUnit},
        {"core_hz", run.clock.coreHz()}}},
      {"measure",
       {{"reference", run.baseline},
        {"search_repeat", run.measure.repeat},
        {"search_batch_ticks", run.measure.targetBatchTicks},
        {"noise_tolerance", run.measure.noiseTolerance},
        {"final_repeat", run.final.repeat},
        {"final_batch_ticks", run.final.targetBatchTicks}}},
      {"evaluations", evaluations},
      {"finalists", finalists},
      {"sweep", sweep},
      {"guard", guardJson(run)},
      {"finalists_widened", run.widened},
      {"code_size", codeSizeJson(run)},
  };
  // The contention record (its summary and verdict are header fields: best() reads them).
  if (!run.contention.probes.empty()) j["contention"] = contentionJson(run.contention);
  results::writeHeader(j, headerOf(run));
  if (run.complete() && !run.finalists.empty()) {
    const FinalistResult& w = run.finalists.front();
    j["winner"].update({{"score_per_byte", w.scorePerByte},
                        {"baseline", run.baseline},
                        {"baseline_per_byte", w.baselinePerByte},
                        {"speedup", ratioJson(w.speedup)},
                        {"bytes", w.bytes},
                        {"verdict", verdict(w, run.baseline)},
                        {"source", fmt::format("winner.S ({} style)", toString(run.style))}});
  }
  return j;
}

namespace {

// A figure of an evaluation: absent or null (the writer's NaN) is `otherwise`.
double figure(const json& e, const char* key, double otherwise) {
  const auto it = e.find(key);
  return it == e.end() || it->is_null() ? otherwise : it->get<double>();
}

// The evaluations of a document read by readDocument (its fields checked by checkDocument).
std::vector<Evaluation> evaluationsFromJson(const json& j, const std::string& path,
                                            std::string_view purpose) {
  try {
    std::vector<Evaluation> out;
    if (!j.contains("evaluations") || !j.at("evaluations").is_array())
      results::fail(path, purpose, "is malformed: \"evaluations\" is not an array");
    for (const auto& e : j.at("evaluations")) {
      Evaluation ev;
      ev.params = gen::parseParams(e.at("params").get<std::string>());
      const auto status = evalStatusFromString(e.at("status").get<std::string>());
      if (!status) results::fail(path, purpose, "has an evaluation of unknown status");
      ev.status = *status;
      ev.message = e.value("message", "");
      ev.score = figure(e, "score", ev.score);
      ev.scorePerByte = figure(e, "score_per_byte", ev.scorePerByte);
      ev.baselinePerByte = figure(e, "reference_per_byte", 0.0);
      ev.perCall = e.value("per_call", std::vector<double>{});
      ev.seconds = figure(e, "seconds", 0.0);
      if (const auto b = e.find("bytes"); b != e.end() && !b->is_null()) {
        if (!b->is_number_unsigned() || b->get<std::uint64_t>() > (1u << 24))
          results::fail(path, purpose, "has an evaluation with a bad code size");
        ev.bytes = b->get<std::size_t>();
      }
      out.push_back(std::move(ev));
    }
    return out;
  } catch (const json::exception& e) {
    results::fail(path, purpose, "is missing fields (" + results::printable(e.what()) + ")");
  } catch (const gen::ParamsError& e) {
    results::fail(path, purpose, "holds bad params (" + results::printable(e.what()) + ")");
  }
}

}  // namespace

gen::Params readWinnerParams(const std::string& path) {
  constexpr std::string_view purpose = "read the winner";
  const auto header = results::readHeader(results::readDocument(path, purpose), path, purpose);
  // All or nothing: the winner of a run that did not finish was never verified.
  if (!header.complete) {
    results::fail(path, purpose,
                  "is from a run that was interrupted or failed (complete: false): its winner is "
                  "not used; resume it with tune --resume");
  }
  if (!header.winnerParams) results::fail(path, purpose, "has none (the run did not finish)");
  try {
    return gen::parseParams(*header.winnerParams);
  } catch (const gen::ParamsError& e) {
    results::fail(path, purpose, "holds bad params (" + results::printable(e.what()) + ")");
  }
}

std::string tunedOnText(const std::string& brand, const std::string& vendor, const std::string& key,
                        const std::string& created) {
  return fmt::format("{} ({}, key {}) on {}", brand, vendor, key, created);
}

std::string figuresText(const std::string& profile, const std::string& cache, double scorePerByte,
                        const std::string& unit, const std::string& verdict) {
  return fmt::format("profile {} ({} cache): {:.4f} {}/byte, {}", profile, cache, scorePerByte,
                     unit, verdict);
}

SourceRequest readWinnerSource(const std::string& path) {
  constexpr std::string_view purpose = "read the winner";
  SourceRequest request;
  request.params = readWinnerParams(path);
  const json j = results::readDocument(path, purpose);
  const json& winner = j.at("winner");
  const std::string source = winner.value("source", std::string());
  if (source.find("(gas style)") != std::string::npos) {
    request.style = SourceStyle::Gas;
  } else if (source.find("(kernel style)") != std::string::npos) {
    request.style = SourceStyle::Kernel;
  } else {
    request.style =
        gen::traitsOf(request.params.carry).kernelSafe() ? SourceStyle::Kernel : SourceStyle::Gas;
  }
  request.symbol = defaultSymbol(request.params, request.style);
  try {
    const json& cpu = j.at("cpu");
    request.tunedOn =
        tunedOnText(cpu.at("brand").get<std::string>(), cpu.at("vendor").get<std::string>(),
                    cpu.at("key").get<std::string>(), j.at("created").get<std::string>());
    const json& workload = j.at("workload");
    if (winner.contains("score_per_byte") && winner.contains("verdict"))
      request.figures = figuresText(
          workload.at("profile").get<std::string>(), workload.at("cache").get<std::string>(),
          winner.at("score_per_byte").get<double>(), j.at("timer").at("unit").get<std::string>(),
          winner.at("verdict").get<std::string>());
  } catch (const json::exception& e) {
    results::fail(path, purpose, std::string("lacks what winner.S says of it (") + e.what() + ")");
  }
  return request;
}

std::vector<Evaluation> readEvaluations(const std::string& path) {
  return evaluationsFromJson(results::readDocument(path, "replay"), path, "replay");
}

std::vector<Evaluation> readEvaluationsForResume(const std::string& path, const TuneRun& current) {
  constexpr std::string_view purpose = "--resume";
  const json j = results::readDocument(path, purpose);
  const auto header = results::readHeader(j, path, purpose);
  if (header.cpuKey != current.cpuKey) {
    results::fail(path, purpose,
                  fmt::format("was tuned on CPU {}, this is {}",
                              results::printable(header.cpuKey, 60), current.cpuKey));
  }
  const std::string spec = results::profileSpec(header.sizes);
  if (spec != current.profile.spec() || header.cache != toString(current.cache)) {
    results::fail(path, purpose,
                  fmt::format("tuned for {} ({}), this run is for {} ({})", spec, header.cache,
                              current.profile.spec(), toString(current.cache)));
  }
  if (header.kernelSafe != current.kernelSafe) {
    results::fail(path, purpose, "searched a different space (--kernel-safe differs)");
  }
  // Kernels recorded as too big under one limit are not under another.
  if (header.maxBytes != current.measure.maxBytes) {
    results::fail(path, purpose,
                  fmt::format("was tuned with --max-bytes {}, this run has {}", header.maxBytes,
                              current.measure.maxBytes));
  }
  std::vector<Evaluation> earlier = evaluationsFromJson(j, path, purpose);
  // A summing run's figures say nothing about copying kernels, and the other way round.
  for (const Evaluation& e : earlier) {
    if (e.params.kind != current.kind) {
      results::fail(path, purpose,
                    fmt::format("searched {} kernels, this run searches {} kernels (--kind)",
                                gen::toString(e.params.kind), gen::toString(current.kind)));
    }
  }
  // Times taken where each code was built and times taken at shared addresses differ at short
  // lengths by where the codes happened to sit: not one search's figures.
  std::string addresses = "own";
  if (const auto search = j.find("search"); search != j.end() && search->is_object()) {
    const auto it = search->find("code_addresses");
    if (it != search->end() && it->is_string()) addresses = it->get<std::string>();
  }
  if ((addresses == "shared") != current.sharedAddresses) {
    results::fail(path, purpose,
                  fmt::format("timed its kernels at {} code addresses, this run at {} "
                              "(--own-addresses differs)",
                              addresses == "shared" ? "shared" : "their own",
                              current.sharedAddresses ? "shared" : "their own"));
  }
  return earlier;
}

}  // namespace csumtune::tuner
