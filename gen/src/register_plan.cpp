#include <algorithm>
#include <array>
#include <vector>

#include "carry_family.hpp"
#include "csumtune/gen/kernel_program.hpp"

namespace csumtune::gen {
namespace {

using namespace asmjit::x86;

// rdi (buffer) and rsi (length) are the arguments and keep those roles. rax comes first
// because it returns the result. Caller-saved registers are used before callee-saved ones,
// which cost a push and a pop; rbp comes last so frame-pointer builds are disturbed least.
const std::array<Gp, 13> kPool{rax, rcx, rdx, r8, r9, r10, r11, rbx, r12, r13, r14, r15, rbp};
constexpr std::size_t kFirstCalleeSaved = 7;

}  // namespace

RegisterPlan planRegisters(const Params& params) {
  validate(params);
  RegisterPlan plan;
  plan.buffer = rdi;
  plan.remaining = rsi;
  // A copying kernel keeps r10 and r11 for itself (both caller-saved, neither named by the
  // frame): the pool loses them.
  std::vector<Gp> pool(kPool.begin(), kPool.end());
  std::size_t firstCalleeSaved = kFirstCalleeSaved;
  if (params.kind == Kind::Copy) {
    plan.delta = r11;
    plan.copyWord = r10;
    std::erase_if(pool, [](const Gp& reg) { return reg == r10 || reg == r11; });
    firstCalleeSaved -= 2;
  }

  const detail::RegisterNeeds needs = detail::familyOf(params.carry).registerNeeds(params);
  plan.vectorAccumulators = needs.vectorAccumulators;
  const auto chains = static_cast<std::size_t>(needs.accumulators);
  std::size_t counters = 0;
  if (needs.carryCounters) {
    // One counter per accumulator while registers last; with many chains, accumulators
    // share counters round-robin (the counter chain is lea+cmov, two cycles per word).
    counters = std::min(chains, pool.size() - chains - 1);
  }
  std::size_t next = 0;
  for (std::size_t i = 0; i < chains; ++i) plan.accumulators.push_back(pool[next++]);
  for (std::size_t i = 0; i < counters; ++i) plan.carryCounters.push_back(pool[next++]);
  plan.scratch = pool[next++];
  for (std::size_t i = firstCalleeSaved; i < next; ++i) plan.calleeSaved.push_back(pool[i]);
  return plan;
}

}  // namespace csumtune::gen
