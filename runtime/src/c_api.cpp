// The C API is a thin shell over the C++ one: no logic of its own beyond catching
// exceptions at the boundary and copying messages out.
#include <cstring>
#include <new>
#include <string>

#include "csumtune/csumtune.h"
#include "csumtune/jit.hpp"
#include "csumtune/loader.hpp"

struct csumtune_kernel {
  csumtune::Kernel kernel;
  std::string origin;
  csumtune::Fallback fallback = csumtune::Fallback::None;
};

namespace {

void writeError(char* err, size_t errlen, const char* message) {
  if (!err || errlen == 0) return;
  std::strncpy(err, message, errlen - 1);
  err[errlen - 1] = '\0';
}

// Runs `make` (which returns a LoadedKernel) at the C boundary: a new handle, or NULL with
// the exception's message in err. No exception ever crosses into C.
template <typename Make>
csumtune_kernel* create(char* err, size_t errlen, Make make) {
  try {
    csumtune::LoadedKernel loaded = make();
    return new csumtune_kernel{std::move(loaded.kernel), std::move(loaded.origin), loaded.fallback};
  } catch (const std::exception& e) {
    writeError(err, errlen, e.what());
  } catch (...) {
    writeError(err, errlen, "unknown error");
  }
  return nullptr;
}

}  // namespace

extern "C" {

csumtune_kernel* csumtune_compile(const char* params, char* err, size_t errlen) {
  if (!params) {
    writeError(err, errlen, "params is NULL");
    return nullptr;
  }
  return create(err, errlen, [&] {
    auto kernel = csumtune::Jit::compile(std::string_view(params));
    std::string origin = "compiled from " + kernel.canonical();
    return csumtune::LoadedKernel{std::move(kernel), std::move(origin)};
  });
}

csumtune_kernel* csumtune_load(const char* path, char* err, size_t errlen) {
  if (!path) {
    writeError(err, errlen, "path is NULL");
    return nullptr;
  }
  return create(err, errlen, [&] { return csumtune::Jit::load(path); });
}

csumtune_kernel* csumtune_best(char* err, size_t errlen) {
  return create(err, errlen, [&] {
    auto loaded = csumtune::best();
    writeError(err, errlen, loaded.origin.c_str());
    return loaded;
  });
}

const char* csumtune_kernel_origin(const csumtune_kernel* k) {
  return k ? k->origin.c_str() : nullptr;
}

int csumtune_kernel_fallback(const csumtune_kernel* k) {
  using csumtune::Fallback;
  switch (k ? k->fallback : Fallback::None) {
    case Fallback::None:
      return CSUMTUNE_TUNED;
    case Fallback::NoResultsDirectory:
      return CSUMTUNE_FALLBACK_NO_RESULTS_DIR;
    case Fallback::NoRunForThisCpu:
      return CSUMTUNE_FALLBACK_NO_RUN_FOR_CPU;
    case Fallback::RunForAnotherCpu:
      return CSUMTUNE_FALLBACK_OTHER_CPU;
    case Fallback::NoUsableRun:
      return CSUMTUNE_FALLBACK_NO_USABLE_RUN;
    case Fallback::SearchFailed:
      return CSUMTUNE_FALLBACK_SEARCH_FAILED;
  }
  return CSUMTUNE_FALLBACK_SEARCH_FAILED;
}

csumtune_fn csumtune_kernel_fn(const csumtune_kernel* k) {
  return k ? k->kernel.fn() : nullptr;
}

csumtune_copy_fn csumtune_kernel_copy_fn(const csumtune_kernel* k) {
  return k ? k->kernel.copyFn() : nullptr;
}

const char* csumtune_kernel_params(const csumtune_kernel* k) {
  return k ? k->kernel.canonical().c_str() : nullptr;
}

size_t csumtune_kernel_size(const csumtune_kernel* k) {
  return k ? k->kernel.size() : 0;
}

void csumtune_kernel_free(csumtune_kernel* k) {
  delete k;
}

uint16_t csumtune_fold(uint32_t sum) {
  return csumtune::fold16(sum);
}

}  // extern "C"
