// How close a kernel's long-buffer loop comes to this CPU's load ports: a probe loop of plain
// loads into independent sums (no carries, no folds: fewer instructions a byte than any
// checksum loop can have), 256 bytes an iteration, timed hot with the bench harness,
// interleaved with the kernel at the same lengths (multiples of 256). Prints bytes per core
// cycle of each and the kernel's share of the probe's speed with its 95 % interval: the
// measured ceiling an issue's "or at 95 % of the load ports" is judged by.
//
// --probe gpr (the default): `add r64, m64` into seven registers, for the general-purpose
// families. --probe mov: plain `mov r64, m64` into four registers, nothing done with the
// words: the load ports alone, a ceiling no summing loop can pass. --probe avx2:
// `vpaddq ymm, ymm, m256` into eight registers, for the vector families on a CPU without
// AVX-512 (a 32-byte load is the widest it has).
//
//   build/tests/load_ceiling [--params P] [--repeat N] [--probe gpr|mov|avx2]
#include <asmjit/x86.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string>

#include "csumtune/cpu.hpp"
#include "csumtune/gen/params.hpp"
#include "csumtune/jit.hpp"
#include "measure/clock_rates.hpp"
#include "measure/harness.hpp"
#include "measure/placement.hpp"
#include "measure/stats.hpp"
#include "measure/timer.hpp"
#include "measure/workload.hpp"

using namespace csumtune;

namespace {

constexpr int kProbeBlock = 256;

// rdi = buffer, esi = length (a multiple of kProbeBlock, at least one block). The sum it
// returns is not a checksum: only its time counts.
enum class ProbeKind { Gpr, Mov, Avx2 };

KernelFn buildProbe(asmjit::JitRuntime& runtime, ProbeKind kind) {
  using namespace asmjit;
  using namespace asmjit::x86;
  CodeHolder code;
  code.init(runtime.environment());
  Assembler a(&code);
  Label loop = a.newLabel();
  // Every probe steps 256 bytes an iteration until the length is spent.
  auto nextBlock = [&] {
    a.add(rdi, kProbeBlock);
    a.sub(esi, kProbeBlock);
    a.jnz(loop);
  };
  if (kind == ProbeKind::Avx2) {
    const Ymm accumulators[] = {ymm0, ymm1, ymm2, ymm3, ymm4, ymm5, ymm6, ymm7};
    constexpr int kAccumulators = static_cast<int>(std::size(accumulators));
    for (const Ymm& acc : accumulators) a.vpxor(acc, acc, acc);
    a.bind(loop);
    for (int lane = 0; lane < kProbeBlock / 32; ++lane) {
      const Ymm& acc = accumulators[lane % kAccumulators];
      a.vpaddq(acc, acc, ymmword_ptr(rdi, 32 * lane));
    }
    nextBlock();
    for (int i = 1; i < kAccumulators; ++i) a.vpaddq(ymm0, ymm0, accumulators[i]);
    a.vmovq(rax, xmm0);
    a.vzeroupper();
  } else if (kind == ProbeKind::Mov) {
    const Gp targets[] = {r8, r9, r10, r11};
    constexpr int kTargets = static_cast<int>(std::size(targets));
    a.bind(loop);
    for (int word = 0; word < kProbeBlock / 8; ++word)
      a.mov(targets[word % kTargets], qword_ptr(rdi, 8 * word));
    nextBlock();
    a.mov(rax, r8);
  } else {
    const Gp accumulators[] = {rax, rcx, rdx, r8, r9, r10, r11};
    constexpr int kAccumulators = static_cast<int>(std::size(accumulators));
    for (const Gp& acc : accumulators) a.xor_(acc.r32(), acc.r32());
    a.bind(loop);
    for (int word = 0; word < kProbeBlock / 8; ++word)
      a.add(accumulators[word % kAccumulators], qword_ptr(rdi, 8 * word));
    nextBlock();
    for (int i = 1; i < kAccumulators; ++i) a.add(rax, accumulators[i]);
  }
  a.ret();
  KernelFn fn = nullptr;
  if (runtime.add(&fn, &code) != kErrorOk) throw std::runtime_error("the probe did not assemble");
  return fn;
}

}  // namespace

int main(int argc, char** argv) {
  std::string params = "carry=adc,chains=4,unroll=32";
  int repeat = 201;
  std::string probeKind = "gpr";
  auto usage = [] {
    std::fprintf(stderr, "usage: load_ceiling [--params P] [--repeat N] [--probe gpr|mov|avx2]\n");
    return 2;
  };
  if (argc % 2 == 0) return usage();
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--params") == 0) {
      params = argv[i + 1];
    } else if (std::strcmp(argv[i], "--repeat") == 0) {
      char* end = nullptr;
      errno = 0;
      const long value = std::strtol(argv[i + 1], &end, 10);
      if (errno != 0 || end == argv[i + 1] || *end != '\0' || value > 1000000) return usage();
      repeat = static_cast<int>(value);
    } else if (std::strcmp(argv[i], "--probe") == 0) {
      probeKind = argv[i + 1];
    } else {
      return usage();
    }
  }
  if (probeKind != "gpr" && probeKind != "mov" && probeKind != "avx2") return usage();
  const ProbeKind kind = probeKind == "avx2"  ? ProbeKind::Avx2
                         : probeKind == "mov" ? ProbeKind::Mov
                                              : ProbeKind::Gpr;
  if (kind == ProbeKind::Avx2 && !hostHas(gen::CpuFeature::Avx2)) {
    std::fprintf(stderr, "load_ceiling: --probe avx2 needs AVX2, which this CPU lacks\n");
    return 2;
  }
  if (repeat < 1) {
    std::fprintf(stderr, "load_ceiling: --repeat takes a count of at least 1\n");
    return 2;
  }
  gen::Params wanted;
  try {
    wanted = gen::parseParams(params);
  } catch (const gen::ParamsError& e) {
    std::fprintf(stderr, "load_ceiling: %s\n", e.what());
    return 2;
  }
  if (wanted.kind != gen::Kind::Sum || !missingFeatures(wanted).empty()) {
    std::fprintf(stderr, "load_ceiling: %s is not a summing kernel this CPU runs\n",
                 params.c_str());
    return 2;
  }
  tuner::pinToCpu(tuner::defaultBenchCpu());
  auto timer = tuner::makeTimer();
  const tuner::ClockRates clock = tuner::measureClockRates(*timer);
  tuner::Workload workload({}, 65536);
  asmjit::JitRuntime runtime;
  const KernelFn probe = buildProbe(runtime, kind);
  const Kernel kernel = Jit::compile(std::string_view(params));
  tuner::MeasureConfig config;
  config.sizes = {1536, 4096, 8960, 16384};
  config.repeat = repeat;
  const auto samples =
      tuner::measureInterleaved({{"probe", "", tuner::TimedKind::Jit, probe},
                                 {"kernel", "", tuner::TimedKind::Jit, kernel.fn()}},
                                config, *timer, workload);
  std::printf("%s against the %s probe (hot; %.3f core cycles per %s, core %.2f GHz)\n",
              kernel.canonical().c_str(), probeKind.c_str(), clock.cyclesPerUnit,
              timer->unit().c_str(), clock.coreHz() / 1e9);
  std::printf("%8s %14s %14s %s\n", "bytes", "probe B/cycle", "kernel B/cycle",
              "kernel speed / probe speed [95% CI]");
  for (std::size_t i = 0; i < config.sizes.size(); ++i) {
    const auto& p = samples[0].sizes[i].perCall;
    const auto& k = samples[1].sizes[i].perCall;
    const double bytes = config.sizes[i];
    const auto share = tuner::pairedRatio(p, k);
    std::printf("%8d %14.2f %14.2f %.3f [%.3f, %.3f]\n", config.sizes[i],
                bytes / (tuner::summarize(p).median * clock.cyclesPerUnit),
                bytes / (tuner::summarize(k).median * clock.cyclesPerUnit), share.median, share.low,
                share.high);
  }
  std::printf("(median of %d interleaved batches)\n", repeat);
  return 0;
}
