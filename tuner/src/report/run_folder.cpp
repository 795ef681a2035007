#include "report/run_folder.hpp"

#include <utility>

#include <fmt/format.h>

#include "atomic_file.hpp"
#include "report/pareto_svg.hpp"
#include "report/results_file.hpp"
#include "report/tune_report.hpp"
#include "source_file.hpp"

namespace csumtune::tuner {

std::vector<std::string> writeRunFolder(const TuneRun& run, const std::string& folder) {
  std::vector<std::pair<std::string, std::string>> files{
      {"results.json", toJson(run).dump(1) + "\n"}};
  std::vector<std::string> plotNames, notes;
  if (run.complete()) {
    const auto& winner = run.finalists.front();
    SourceRequest request;
    request.params = winner.params;
    request.style = run.style;
    request.symbol = defaultSymbol(winner.params, request.style);
    request.tunedOn = tunedOnText(run.cpu.brand, run.cpu.vendor, run.cpuKey, run.created);
    request.figures = figuresText(run.profile.name, toString(run.cache), winner.scorePerByte,
                                  run.timerUnit, verdict(winner, run.baseline));
    files.emplace_back("winner.S", renderSource(request));
    if (auto svg = paretoSvg(run.evaluations, paretoFront(run.evaluations), run.baseline);
        !svg.empty())
      files.emplace_back("pareto.svg", std::move(svg));
    std::string why;
    for (auto& plot : drawPlots(run, &why)) {
      plotNames.push_back(plot.name);
      files.emplace_back(plot.name, std::move(plot.svg));
    }
    if (!why.empty()) notes.push_back(why);
  }
  files.emplace_back("report.md", renderTuneReport(run, plotNames));
  writeFilesTogether(
      folder, files,
      {"results.json", "winner.S", "report.md", "sweep.svg", "space.svg", "pareto.svg"});
  return notes;
}

}  // namespace csumtune::tuner
