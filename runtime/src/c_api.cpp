// The C API is a thin shell over the C++ one: no logic of its own beyond catching
// exceptions at the boundary and copying messages out.
#include <cstring>
#include <new>

#include "csumtune/csumtune.h"
#include "csumtune/jit.hpp"

struct csumtune_kernel {
  csumtune::Kernel kernel;
};

namespace {

void writeError(char* err, size_t errlen, const char* message) {
  if (!err || errlen == 0) return;
  std::strncpy(err, message, errlen - 1);
  err[errlen - 1] = '\0';
}

}  // namespace

extern "C" {

csumtune_kernel* csumtune_compile(const char* params, char* err, size_t errlen) {
  if (!params) {
    writeError(err, errlen, "params is NULL");
    return nullptr;
  }
  try {
    return new csumtune_kernel{csumtune::Jit::compile(std::string_view(params))};
  } catch (const std::exception& e) {
    writeError(err, errlen, e.what());
  } catch (...) {
    writeError(err, errlen, "unknown error");
  }
  return nullptr;
}

csumtune_fn csumtune_kernel_fn(const csumtune_kernel* k) { return k ? k->kernel.fn() : nullptr; }

const char* csumtune_kernel_params(const csumtune_kernel* k) {
  return k ? k->kernel.canonical().c_str() : nullptr;
}

void csumtune_kernel_free(csumtune_kernel* k) { delete k; }

uint16_t csumtune_fold(uint32_t sum) { return csumtune::fold16(sum); }

}  // extern "C"
