#include "verify/verify.hpp"

#include "csumtune/jit.hpp"

namespace csumtune::tuner {

VerifyOutcome verifyCompiled(const Kernel& kernel, const VerifyFixture& fixture,
                             const VerifyPlan& plan) {
  return kernel.copies() ? verifyCopyKernel(kernel.copyFn(), fixture, plan)
                         : verifyKernel(kernel.fn(), fixture, plan);
}

}  // namespace csumtune::tuner
