#include "patch/kernel_module.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "atomic_file.hpp"
#include "csumtune/gen/kernel_program.hpp"
#include "csumtune/templates.hpp"
#include "request_errors.hpp"
#include "source_file.hpp"

namespace csumtune::tuner {

void writeKernelModule(const gen::Params& params, const std::optional<std::string>& tunedOn,
                       const std::string& folder) {
  const bool copying = params.kind == gen::Kind::Copy;
  const SourceRequest request{params,
                              SourceStyle::Kernel,
                              copying ? "csum_partial_copy_generic" : "csum_partial_tuned",
                              tunedOn,
                              {},
                              {}};
  std::string tuned;
  try {
    tuned = renderSource(request);  // refuses SIMD families: the kernel may not use them
  } catch (const gen::ParamsError& e) {
    throw BadRequest(e.what());
  }
  try {
    std::filesystem::create_directories(folder);
  } catch (const std::exception& e) {
    throw BadRequest(fmt::format("cannot create {}: {}", folder, e.what()));
  }
  const std::string harness =
      replaceAll(replaceAll(std::string(copying ? templates::harness_copy() : templates::harness()),
                            "@PARAMS@", params.toString()),
                 "@VERSION@", gen::kGeneratorVersion);
  try {
    writeFilesTogether(folder,
                       {{"Kbuild", std::string(templates::kbuild())},
                        {"Makefile", std::string(templates::makefile())},
                        {"harness.c", harness},
                        {"tuned.S", tuned}},
                       {});
  } catch (const FileError& e) {
    throw BadRequest(e.what());
  }
}

}  // namespace csumtune::tuner
