#include "csumtune/jit.hpp"

#include <mutex>

#include <asmjit/core.h>
#include <fmt/format.h>

#include "csumtune/cpu.hpp"
#include "csumtune/gen/kernel_program.hpp"

namespace csumtune {

// Executable memory comes from one process-wide JitRuntime; every kernel holds a reference
// so the runtime outlives the last kernel, whatever the order of static destruction.
// asmjit's JitRuntime is not documented as thread-safe for add/release, so we serialize.
// Memory a kernel gives back is filled with int3 at once: the runtime outlives its kernels, so
// the next kernel lands where the last one was, and code that runs past its own end must trap
// there, not run on through what the last one left.
struct SharedRuntime {
  SharedRuntime() : runtime(&kParams) {}
  static constexpr asmjit::JitAllocator::CreateParams kParams{
      asmjit::JitAllocatorOptions::kFillUnusedMemory |
          asmjit::JitAllocatorOptions::kCustomFillPattern,
      0, 0, 0xccccccccu};
  asmjit::JitRuntime runtime;
  std::mutex mutex;
};

struct Kernel::Code {
  std::shared_ptr<SharedRuntime> shared;
  void* entry = nullptr;
  ~Code() {
    if (entry) {
      std::lock_guard lock(shared->mutex);
      shared->runtime.release(entry);
    }
  }
};

namespace {

// The runtime lives from the first compile to the end of the process (and after, for as long as
// a kernel does): one made per kernel would map and unmap its executable block every time, and
// verifying the space compiles kernels one at a time.
std::shared_ptr<SharedRuntime> sharedRuntime() {
  static const auto runtime = std::make_shared<SharedRuntime>();
  return runtime;
}

}  // namespace

Kernel::Kernel(std::unique_ptr<Code> code, void* entry, const gen::Params& params, std::size_t size)
    : code_(std::move(code)),
      fn_(reinterpret_cast<KernelFn>(entry)),
      copyFn_(reinterpret_cast<CopyFn>(entry)),
      params_(params),
      canonical_(params.toString()),
      size_(size) {}

void Kernel::wrongKind() const {
  throw Error(Error::Kind::BadParams,
              copies() ? canonical_ + " copies (kind=copy): call copy(src, dst, len, sum)"
                       : canonical_ + " only sums: call it as kernel(buf, len, sum)");
}
Kernel::Kernel(Kernel&&) noexcept = default;
Kernel& Kernel::operator=(Kernel&&) noexcept = default;
Kernel::~Kernel() = default;

Kernel Jit::compile(const gen::Params& params) {
  if (std::string problem = gen::validationError(params); !problem.empty()) {
    throw Error(Error::Kind::BadParams, problem);
  }
  if (auto missing = missingFeatures(params); !missing.empty()) {
    std::string names;
    for (auto f : missing)
      names += fmt::format("{}{}", names.empty() ? "" : ", ", gen::toString(f));
    throw Error(Error::Kind::MissingCpuFeature,
                fmt::format("{} needs {}, which this CPU does not have; refusing to run it",
                            params.toString(), names));
  }
  auto code = std::make_unique<Kernel::Code>();
  code->shared = sharedRuntime();
  std::size_t size = 0;
  try {
    gen::KernelProgram program(params, code->shared->runtime.environment());
    program.finalize();
    size = program.code().codeSize();
    std::lock_guard lock(code->shared->mutex);
    void* entry = nullptr;
    if (asmjit::Error err = code->shared->runtime.add(&entry, &program.code())) {
      throw Error(Error::Kind::Codegen,
                  fmt::format("cannot place {} in executable memory: {}", params.toString(),
                              asmjit::DebugUtils::errorAsString(err)));
    }
    code->entry = entry;
  } catch (const gen::CodegenError& e) {
    throw Error(Error::Kind::Codegen, e.what());
  }
  void* entry = code->entry;
  return Kernel(std::move(code), entry, params, size);
}

Kernel Jit::compile(std::string_view params) {
  gen::Params parsed;
  try {
    parsed = gen::parseParamsUnchecked(params);
  } catch (const gen::ParamsError& e) {
    throw Error(Error::Kind::BadParams, e.what());
  }
  return compile(parsed);
}

std::uint16_t fold16(std::uint32_t sum) {
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(sum);
}

}  // namespace csumtune
