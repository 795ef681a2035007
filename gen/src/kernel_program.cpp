#include "csumtune/gen/kernel_program.hpp"

#include <fmt/format.h>

#include "emit_context.hpp"
#include "node_encoding.hpp"

namespace csumtune::gen {
namespace {

// asmjit reports errors through return codes or a handler; we keep the first one and turn
// it into an exception once control is back in our code (never throw through asmjit).
class FirstErrorHandler : public asmjit::ErrorHandler {
 public:
  void handleError(asmjit::Error err, const char* message, asmjit::BaseEmitter*) override {
    if (error == asmjit::kErrorOk) {
      error = err;
      text = message ? message : "";
    }
  }
  void throwIfFailed(const char* stage, const Params& params) const {
    if (error != asmjit::kErrorOk) {
      throw CodegenError(fmt::format("asmjit failed while {} {}: {} ({})", stage, params.toString(),
                                     text, asmjit::DebugUtils::errorAsString(error)));
    }
  }
  asmjit::Error error = asmjit::kErrorOk;
  std::string text;
};

asmjit::Environment x86_64SysV() {
  asmjit::Environment env(asmjit::Arch::kX64);
  env.setPlatform(asmjit::Platform::kLinux);
  env.setPlatformABI(asmjit::PlatformABI::kGNU);
  return env;
}

}  // namespace

KernelProgram::KernelProgram(const Params& params, ProgramOptions options)
    : KernelProgram(params, x86_64SysV(), options) {}

KernelProgram::KernelProgram(const Params& params, const asmjit::Environment& environment,
                             ProgramOptions options)
    : params_(params), registers_(planRegisters(params)) {
  if (environment.arch() != asmjit::Arch::kX64) {
    throw CodegenError("csumtune generates x86-64 code only");
  }
  code_.init(environment);
  FirstErrorHandler handler;
  code_.setErrorHandler(&handler);
  builder_ = std::make_unique<asmjit::x86::Builder>(&code_);
  if (options.validate) {
    builder_->addDiagnosticOptions(asmjit::DiagnosticOptions::kValidateIntermediate |
                                   asmjit::DiagnosticOptions::kValidateAssembler);
  }
  detail::EmitContext ctx{*builder_, params_, registers_, detail::familyOf(params_.carry),
                          options.kernelCopyEntry};
  detail::emitFunction(ctx);
  if (params_.targets == Targets::Aligned) {
    // Multi-byte NOPs: the fill never runs, but a disassembly reads it as one instruction.
    builder_->addEncodingOptions(asmjit::EncodingOptions::kOptimizedAlign);
    detail::alignJumpOnlyTargets(*builder_, kTargetAlignment);
  }
  detail::relaxJumps(*builder_);
  code_.resetErrorHandler();
  handler.throwIfFailed("generating", params_);
}

KernelProgram::~KernelProgram() = default;

void KernelProgram::finalize() {
  if (finalized_) return;
  FirstErrorHandler handler;
  code_.setErrorHandler(&handler);
  const asmjit::Error err = builder_->finalize();
  code_.resetErrorHandler();
  handler.throwIfFailed("encoding", params_);
  if (err != asmjit::kErrorOk) {
    throw CodegenError(fmt::format("asmjit failed while encoding {}: {}", params_.toString(),
                                   asmjit::DebugUtils::errorAsString(err)));
  }
  finalized_ = true;
}

std::vector<std::uint8_t> KernelProgram::bytes() {
  finalize();
  code_.flatten();
  code_.resolveUnresolvedLinks();
  const asmjit::CodeBuffer& text = code_.textSection()->buffer();
  return {text.data(), text.data() + text.size()};
}

}  // namespace csumtune::gen
