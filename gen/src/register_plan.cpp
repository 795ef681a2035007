#include <algorithm>
#include <array>

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

  const detail::RegisterNeeds needs = detail::familyOf(params.carry).registerNeeds(params);
  plan.vectorAccumulators = needs.vectorAccumulators;
  const auto chains = static_cast<std::size_t>(needs.accumulators);
  std::size_t counters = 0;
  if (needs.carryCounters) {
    // One counter per accumulator while registers last; with many chains, accumulators
    // share counters round-robin (the counter chain is lea+cmov, two cycles per word).
    counters = std::min(chains, kPool.size() - chains - 1);
  }
  std::size_t next = 0;
  for (std::size_t i = 0; i < chains; ++i) plan.accumulators.push_back(kPool[next++]);
  for (std::size_t i = 0; i < counters; ++i) plan.carryCounters.push_back(kPool[next++]);
  plan.scratch = kPool[next++];
  for (std::size_t i = kFirstCalleeSaved; i < next; ++i) plan.calleeSaved.push_back(kPool[i]);
  return plan;
}

}  // namespace csumtune::gen
