#include "merge/speedup_table.hpp"

#include "measure/baselines.hpp"

namespace csumtune::tuner {

std::string referenceFor(gen::Kind kind) {
  return kind == gen::Kind::Copy ? kLinuxCsumCopyName : kLinuxV68Name;
}

std::string canonicalParams(const std::string& text) {
  return gen::parseParams(text).canonical().toString();
}

}  // namespace csumtune::tuner
