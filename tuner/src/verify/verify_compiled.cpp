#include "verify/verify.hpp"

#include "csumtune/jit.hpp"

namespace csumtune::tuner {

VerifyOutcome verifyCompiled(const Kernel& kernel, const VerifyFixture& fixture,
                             const VerifyPlan& plan) {
  // A kernel allowed to over-read (bounds=aligned) is held to exactly that.
  return kernel.copies() ? verifyCopyKernel(kernel.copyFn(), fixture, plan)
                         : verifyKernel(kernel.fn(), fixture, forParams(plan, kernel.params()));
}

}  // namespace csumtune::tuner
