#include "measure/code_size.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstdint>
#include <fstream>
#include <vector>

namespace csumtune::tuner {
namespace {

// Reads `count` objects of T at `at` in the file; empty when the file is shorter.
template <typename T>
std::vector<T> readAt(std::ifstream& in, std::uint64_t at, std::size_t count) {
  std::vector<T> out(count);
  in.seekg(static_cast<std::streamoff>(at));
  if (!in.read(reinterpret_cast<char*>(out.data()),
               static_cast<std::streamsize>(count * sizeof(T))))
    out.clear();
  return out;
}

// Looks `offset` (from the object's load address) up among the FUNC symbols of the ELF file
// at `path` (its full .symtab: the compiled-in baselines are not exported dynamically). Only
// the headers and the symbol tables are read, not the whole (debug-info heavy) file.
// (A position-independent executable's symbols hold offsets, a fixed one's addresses.)
std::size_t sizeFromSymtab(const char* path, std::uintptr_t offset, std::uintptr_t address) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return 0;
  const auto header = readAt<ElfW(Ehdr)>(in, 0, 1);
  if (header.empty() || header[0].e_shoff == 0 || header[0].e_shentsize != sizeof(ElfW(Shdr)) ||
      header[0].e_shnum > 4096)
    return 0;
  for (const ElfW(Shdr) & s : readAt<ElfW(Shdr)>(in, header[0].e_shoff, header[0].e_shnum)) {
    if (s.sh_type != SHT_SYMTAB || s.sh_entsize != sizeof(ElfW(Sym)) ||
        s.sh_size > (std::uint64_t{1} << 30))
      continue;
    for (const ElfW(Sym) & symbol :
         readAt<ElfW(Sym)>(in, s.sh_offset, s.sh_size / sizeof(ElfW(Sym)))) {
      if (ELF64_ST_TYPE(symbol.st_info) == STT_FUNC &&
          (symbol.st_value == offset || symbol.st_value == address))
        return symbol.st_size;
    }
  }
  return 0;
}

}  // namespace

std::size_t functionSize(const void* function) {
  Dl_info info{};
  void* entry = nullptr;
  if (dladdr1(function, &info, &entry, RTLD_DL_SYMENT) == 0) return 0;
  const auto* symbol = static_cast<const ElfW(Sym)*>(entry);
  if (symbol && info.dli_saddr == function && symbol->st_size > 0) return symbol->st_size;
  if (!info.dli_fname || !info.dli_fbase) return 0;
  // The main program's dli_fname may be argv[0]-relative: read it through /proc.
  const std::uintptr_t offset =
      reinterpret_cast<std::uintptr_t>(function) - reinterpret_cast<std::uintptr_t>(info.dli_fbase);
  const auto address = reinterpret_cast<std::uintptr_t>(function);
  std::size_t size = sizeFromSymtab(info.dli_fname, offset, address);
  if (size == 0) size = sizeFromSymtab("/proc/self/exe", offset, address);
  return size;
}

}  // namespace csumtune::tuner
