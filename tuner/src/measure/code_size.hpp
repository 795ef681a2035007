// The size in bytes of a compiled function the tuner compares with (the baselines compiled
// into csumtune, a kernel tree's file built as a shared object): from the symbol table of the
// object it lives in. JIT kernels know their size (Kernel::size()).
#pragma once

#include <cstddef>

namespace csumtune::tuner {

// The function's st_size, or 0 when no symbol table says (a stripped binary).
std::size_t functionSize(const void* function);

}  // namespace csumtune::tuner
