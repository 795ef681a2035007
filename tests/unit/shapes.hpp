// The spread of kernels the suites check: one per (carry, chains, unroll) loop shape of the
// space (543 with today's families) — each with a different prefetch distance (0..4096) and hint,
// so that every instruction the generator can emit, every tail path and every register plan
// (callee-saved pushes included) appears.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "csumtune/gen/params.hpp"

namespace csumtune::testing {

inline std::vector<gen::Params> representativeShapes() {
  std::map<std::string, gen::Params> distinct;
  int i = 0;
  for (const gen::Params& p : gen::enumerateSpace({false, true})) {
    gen::Params shape = p;
    shape.prefetch = 0;
    shape.hint = gen::Hint::T0;
    const std::string key = shape.toString();
    if (distinct.count(key)) continue;
    shape.prefetch = (i * 7 % 65) * 64;
    shape.hint = static_cast<gen::Hint>(i % 4);
    distinct.emplace(key, shape);
    ++i;
  }
  std::vector<gen::Params> out;
  for (auto& entry : distinct) out.push_back(entry.second);
  return out;
}

inline std::string shapeName(const gen::Params& p) {
  return std::string(gen::toString(p.carry)) + "_c" + std::to_string(p.chains) + "_u" +
         std::to_string(p.unroll);
}

}  // namespace csumtune::testing
