#include "csumtune/jit.hpp"

#include <cstdint>
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
  void* block = nullptr;  // what the allocator gave; the entry is `place` bytes into it
  ~Code() {
    if (block) {
      std::lock_guard lock(shared->mutex);
      shared->runtime.allocator()->release(block);
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

// What JitRuntime::add does, with the code `place` bytes into its block: the allocator's
// blocks start on its granularity (64 bytes, a line), so the entry sits at that offset of a
// line. The bytes in front of it are the allocator's int3 fill. Returns the block, or an error.
void* placeCode(asmjit::JitAllocator& allocator, asmjit::CodeHolder& code, int place,
                const gen::Params& params) {
  auto fail = [&](asmjit::Error err) {
    return Error(Error::Kind::Codegen,
                 fmt::format("cannot place {} in executable memory: {}", params.toString(),
                             asmjit::DebugUtils::errorAsString(err)));
  };
  if (asmjit::Error err = code.flatten()) throw fail(err);
  if (asmjit::Error err = code.resolveUnresolvedLinks()) throw fail(err);
  const std::size_t size = code.codeSize();
  void* rx = nullptr;
  void* rw = nullptr;
  if (asmjit::Error err = allocator.alloc(&rx, &rw, size + place)) throw fail(err);
  if (reinterpret_cast<std::uintptr_t>(rx) % gen::ParamLimits::kPlacementLine != 0) {
    allocator.release(rx);
    throw Error(Error::Kind::Codegen, "the JIT allocator's blocks do not start on a 64-byte line");
  }
  auto* entry = static_cast<std::uint8_t*>(rx) + place;
  if (asmjit::Error err = code.relocateToBase(reinterpret_cast<std::uint64_t>(entry))) {
    allocator.release(rx);
    throw fail(err);
  }
  {
    asmjit::VirtMem::ProtectJitReadWriteScope scope(entry, size);
    code.copyFlattenedData(static_cast<std::uint8_t*>(rw) + place, size,
                           asmjit::CopySectionFlags::kPadSectionBuffer);
  }
  return rx;
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
    code->block =
        placeCode(*code->shared->runtime.allocator(), program.code(), params.place, params);
  } catch (const gen::CodegenError& e) {
    throw Error(Error::Kind::Codegen, e.what());
  }
  void* entry = static_cast<std::uint8_t*>(code->block) + params.place;
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
