#include "measure/code_size.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstdint>
#include <fstream>
#include <vector>

namespace csumtune::tuner {
namespace {

// Looks `offset` (from the object's load address) up among the FUNC symbols of the ELF file
// at `path` (its full .symtab: the compiled-in baselines are not exported dynamically).
// (A position-independent executable's symbols hold offsets, a fixed one's addresses.)
std::size_t sizeFromSymtab(const char* path, std::uintptr_t offset, std::uintptr_t address) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return 0;
  in.seekg(0, std::ios::end);
  const auto length = static_cast<std::size_t>(in.tellg());
  if (length < sizeof(ElfW(Ehdr)) || length > (std::size_t{1} << 31)) return 0;
  std::vector<char> file(length);
  in.seekg(0);
  if (!in.read(file.data(), static_cast<std::streamsize>(length))) return 0;
  const auto* ehdr = reinterpret_cast<const ElfW(Ehdr)*>(file.data());
  if (ehdr->e_shoff == 0 || ehdr->e_shentsize != sizeof(ElfW(Shdr)) ||
      ehdr->e_shoff + std::size_t{ehdr->e_shnum} * sizeof(ElfW(Shdr)) > length)
    return 0;
  const auto* sections = reinterpret_cast<const ElfW(Shdr)*>(file.data() + ehdr->e_shoff);
  for (unsigned i = 0; i < ehdr->e_shnum; ++i) {
    const ElfW(Shdr)& s = sections[i];
    if (s.sh_type != SHT_SYMTAB || s.sh_entsize != sizeof(ElfW(Sym)) ||
        s.sh_offset + s.sh_size > length)
      continue;
    const auto* symbols = reinterpret_cast<const ElfW(Sym)*>(file.data() + s.sh_offset);
    for (std::size_t k = 0; k < s.sh_size / sizeof(ElfW(Sym)); ++k) {
      if (ELF64_ST_TYPE(symbols[k].st_info) == STT_FUNC &&
          (symbols[k].st_value == offset || symbols[k].st_value == address))
        return symbols[k].st_size;
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
