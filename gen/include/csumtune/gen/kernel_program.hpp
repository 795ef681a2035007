// KernelProgram: the one instruction stream every output is made from.
//
// It owns an asmjit CodeHolder with an x86::Builder attached. emitKernel() fills the
// Builder's node list; the JIT (runtime/) serializes that list to machine code, and the AT&T
// printer walks the very same nodes to write a .S file. Nothing else generates code, so the
// two outputs cannot drift apart.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <asmjit/x86.h>

#include "csumtune/gen/params.hpp"
#include "csumtune/gen/version.hpp"

namespace csumtune::gen {

// An asmjit failure while generating or encoding: a generator bug, never a user error.
class CodegenError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Which registers a kernel uses, decided from Params alone (printed in .S headers and
// checked by the tests: callee-saved registers must be pushed and popped).
struct RegisterPlan {
  asmjit::x86::Gp buffer;                      // rdi: advancing load pointer
  asmjit::x86::Gp remaining;                   // rsi: bytes left
  std::vector<asmjit::x86::Gp> accumulators;   // [0] is rax, which returns the sum
  std::vector<asmjit::x86::Gp> carryCounters;  // cmov only
  asmjit::x86::Gp scratch;                     // loads, lea+1, adcx zero, folding
  std::vector<asmjit::x86::Gp> calleeSaved;    // pushed in this order, popped reversed
  int vectorAccumulators = 0;                  // SIMD families: vector registers 0..n-1
  // kind=copy only (invalid otherwise): dst - src, so that a word loaded from disp(buffer)
  // is stored to disp(buffer, delta); and the register a word passes through on its way.
  asmjit::x86::Gp delta;     // r11
  asmjit::x86::Gp copyWord;  // r10
};

RegisterPlan planRegisters(const Params& params);

struct ProgramOptions {
  bool validate = false;  // asmjit's strict instruction validation (tests turn it on)
  // kind=copy with the kernel's signature, csum_partial_copy_generic(src, dst, len): there
  // is no sum argument; the sum starts at 0xffffffff, so that a correct result is never 0
  // (0 is how the kernel's callers learn of a fault). Ignored for kind=sum.
  bool kernelCopyEntry = false;
};

class KernelProgram {
 public:
  // Validates params (ParamsError) and emits the whole function into the Builder.
  // `environment` defaults to x86-64 System V, the only target.
  explicit KernelProgram(const Params& params, ProgramOptions options = {});
  explicit KernelProgram(const Params& params, const asmjit::Environment& environment,
                         ProgramOptions options = {});
  ~KernelProgram();
  KernelProgram(const KernelProgram&) = delete;
  KernelProgram& operator=(const KernelProgram&) = delete;

  const Params& params() const { return params_; }
  const RegisterPlan& registers() const { return registers_; }

  // The node list: read it, do not change it.
  const asmjit::x86::Builder& builder() const { return *builder_; }

  // Serializes the node list into machine code in code() (idempotent).
  void finalize();
  asmjit::CodeHolder& code() { return code_; }

  // The function's machine code, exactly as the JIT places it (finalizes first).
  std::vector<std::uint8_t> bytes();

 private:
  Params params_;
  RegisterPlan registers_;
  asmjit::CodeHolder code_;
  std::unique_ptr<asmjit::x86::Builder> builder_;
  bool finalized_ = false;
};

}  // namespace csumtune::gen
