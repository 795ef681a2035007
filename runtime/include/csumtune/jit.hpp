// The C++ runtime API: compile Params into a callable kernel that owns its code.
//
//   auto kernel = csumtune::Jit::compile("carry=adc,chains=4,unroll=16");
//   uint32_t partial = kernel(buf, len, 0);
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "csumtune/gen/params.hpp"
#include "csumtune/kernel_fn.hpp"

namespace csumtune {

class Error : public std::runtime_error {
 public:
  enum class Kind { BadParams, MissingCpuFeature, Codegen, BadResults, OtherCpu };
  Error(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// A compiled kernel. Move-only; the code is released when the last owner goes away: filled
// with int3 and kept for the next kernel (the process keeps one block of executable memory).
// Calling it is thread-safe.
class Kernel {
 public:
  Kernel(Kernel&&) noexcept;
  Kernel& operator=(Kernel&&) noexcept;
  ~Kernel();

  // The summing function (csum_partial); nullptr for a copying kernel.
  KernelFn fn() const { return copies() ? nullptr : fn_; }
  // The copying function (csum_and_copy, kind=copy); nullptr for a summing kernel.
  CopyFn copyFn() const { return copies() ? copyFn_ : nullptr; }
  bool copies() const { return params_.kind == gen::Kind::Copy; }
  const gen::Params& params() const { return params_; }
  const std::string& canonical() const { return canonical_; }
  // Bytes of machine code (what the .S assembles to).
  std::size_t size() const { return size_; }

  // Summing kernels only (a copying kernel throws Error::BadParams: call copy()).
  std::uint32_t operator()(const void* buf, int len, std::uint32_t sum) const {
    if (copies()) wrongKind();
    return fn_(buf, len, sum);
  }
  // Copying kernels only (a summing kernel throws Error::BadParams).
  std::uint32_t copy(const void* src, void* dst, int len, std::uint32_t sum) const {
    if (!copies()) wrongKind();
    return copyFn_(src, dst, len, sum);
  }

 private:
  friend class Jit;
  struct Code;  // the executable memory and the runtime that owns it
  Kernel(std::unique_ptr<Code> code, void* entry, const gen::Params& params, std::size_t size);
  [[noreturn]] void wrongKind() const;

  std::unique_ptr<Code> code_;
  KernelFn fn_ = nullptr;
  CopyFn copyFn_ = nullptr;
  gen::Params params_;
  std::string canonical_;
  std::size_t size_ = 0;
};

struct LoadOptions;
struct LoadedKernel;

class Jit {
 public:
  // Throws Error: BadParams (with the rule that failed), MissingCpuFeature (never runs a
  // kernel the CPU cannot execute), Codegen (a generator bug).
  static Kernel compile(const gen::Params& params);
  static Kernel compile(std::string_view params);

  // Compiles the winner of a results.json. Throws Error: BadResults (missing, unreadable,
  // truncated, not JSON, another schema, no winner), OtherCpu (tuned on a CPU with another
  // fingerprint; see LoadOptions), or what compile() throws.
  static LoadedKernel load(const std::string& path);
  static LoadedKernel load(const std::string& path, const LoadOptions& options);
};

// The best tuned kernel for this CPU on resultsSearchPath() (loader.hpp: CSUMTUNE_RESULTS,
// then $XDG_DATA_HOME/csumtune/results, then the installed results; the first directory with
// a usable run for this CPU wins), else the safe default. Never throws on a working x86-64
// machine; `origin` says which it used and, for the default, why (`fallback` too).
LoadedKernel best();

// The 16-bit ones'-complement fold of a partial sum (not complemented).
std::uint16_t fold16(std::uint32_t sum);

}  // namespace csumtune
