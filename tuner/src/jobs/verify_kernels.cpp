#include "jobs/verify_kernels.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "csumtune/cpu.hpp"
#include "csumtune/jit.hpp"
#include "verify/verify.hpp"

namespace csumtune::tuner {
namespace {

VerifyPlan planFor(const VerifySettings& settings, const gen::Params& params) {
  return forParams(settings.quick ? quickPlan(params, settings.seed) : fullPlan(settings.seed),
                   params);
}

KernelVerdict verifyWith(const gen::Params& params, const VerifySettings& settings,
                         const VerifyFixture& fixture) {
  KernelVerdict verdict;
  try {
    const Kernel kernel = Jit::compile(params);
    const auto plan = planFor(settings, params);
    const auto outcome = kernel.copies() ? verifyCopyKernel(kernel.copyFn(), fixture, plan)
                                         : verifyKernel(kernel.fn(), fixture, plan);
    verdict.calls = outcome.calls;
    if (!outcome.ok()) verdict.failure = *outcome.failure;
  } catch (const Error& e) {
    verdict.failure = e.what();
  }
  return verdict;
}

std::vector<gen::Params> frameSpace(bool kernelSafe) {
  std::vector<gen::Params> out;
  std::set<std::string> shapes;
  for (const gen::Params& p : gen::enumerateSpace({kernelSafe, true})) {
    const std::string shape = fmt::format("{}/{}/{}", gen::toString(p.carry), p.chains, p.unroll);
    if (!shapes.insert(shape).second) continue;
    gen::Params loop = p;
    loop.prefetch = static_cast<int>((shapes.size() * 7) % 65) * gen::ParamLimits::kPrefetchStep;
    loop.hint = static_cast<gen::Hint>(shapes.size() % gen::kHintCount);
    for (const gen::Params& v :
         gen::frameVariants(loop, kFrameCheckLengths, gen::FrameBounds::Both)) {
      // byteload=pointer (and straight) differs from its computed twin only in the load of the
      // last 1..7 bytes, code that does not depend on the loop: its frames are verified on the
      // shapes with the largest unroll of each family (every chain count that divides it). So does
      // block80=pair, entry=forty's 80-byte block; block80=loop on the smallest blocks (unroll
      // = chains) as well, where its short path passes the main loop's block.
      if ((v.byteLoad != gen::ByteLoad::Computed || v.block80 == gen::Block80::Pair) &&
          loop.unroll != gen::ParamLimits::kMaxUnroll)
        continue;
      if (v.block80 == gen::Block80::Loop && loop.unroll != gen::ParamLimits::kMaxUnroll &&
          loop.unroll != loop.chains)
        continue;
      out.push_back(v);
    }
  }
  return out;
}

// The kernels of `space` as kernels of `kind`: for copy, the ones that can copy.
std::vector<gen::Params> asKind(std::vector<gen::Params> space, gen::Kind kind) {
  if (kind == gen::Kind::Sum) return space;
  for (gen::Params& p : space) p.kind = gen::Kind::Copy;
  std::erase_if(space, [](const gen::Params& p) { return !gen::validationError(p).empty(); });
  return space;
}

}  // namespace

KernelVerdict verifyOneKernel(const gen::Params& params, const VerifySettings& settings) {
  return verifyWith(params, settings, VerifyFixture(settings.seed));
}

SpaceVerification verifySpace(
    const SpaceRequest& request, const VerifySettings& settings,
    const std::function<void(std::size_t, std::size_t, std::size_t)>& progress) {
  const bool generalOnly = request.kernelSafe;
  SpaceVerification result;
  result.points = asKind(gen::enumerateSpace({generalOnly, false}), request.kind).size();
  const auto space =
      asKind(request.frames ? frameSpace(generalOnly) : gen::enumerateSpace({generalOnly, true}),
             request.kind);
  result.kernels = space.size();
  const VerifyFixture fixture(settings.seed);
  std::atomic<std::size_t> next{0}, done{0}, skipped{0};
  std::atomic<std::uint64_t> calls{0};
  std::mutex mutex;  // the failures and the progress callback
  const auto start = std::chrono::steady_clock::now();
  auto worker = [&] {
    for (std::size_t i = next++; i < space.size(); i = next++) {
      if (!missingFeatures(space[i]).empty()) {
        ++skipped;
      } else {
        const KernelVerdict verdict = verifyWith(space[i], settings, fixture);
        calls += verdict.calls;
        if (!verdict.ok()) {
          std::lock_guard lock(mutex);
          result.failures.push_back(
              fmt::format("FAIL  {}: {}", space[i].toString(), verdict.failure));
        }
      }
      const std::size_t finished = ++done;
      if (progress && (finished % 256 == 0 || finished == space.size())) {
        std::lock_guard lock(mutex);
        progress(finished, space.size(), result.failures.size());
      }
    }
  };
  result.threads =
      settings.threads ? settings.threads : std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < result.threads; ++t) pool.emplace_back(worker);
  for (auto& thread : pool) thread.join();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.skipped = skipped;
  result.calls = calls;
  return result;
}

}  // namespace csumtune::tuner
