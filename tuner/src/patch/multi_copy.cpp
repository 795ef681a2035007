#include "patch/multi_copy.hpp"

#include <fmt/format.h>

#include "patch/kernel_bodies.hpp"
#include "source_file.hpp"

namespace csumtune::tuner {
namespace {

constexpr const char* kCopySymbol = "csum_partial_copy_generic";

}  // namespace

std::string copyBodyLabel(const std::string& cpuKey) {
  return variantSymbol("copy", cpuKey);
}

std::string renderMultiCopyAssembly(const std::vector<LibraryVariant>& variants,
                                    const gen::Params& generic, const std::string& command) {
  std::string text = "/* SPDX-License-Identifier: GPL-2.0 OR MIT */\n/*\n";
  text += " * csum_partial_copy_generic(): one body tuned per CPU and a generic one, in one\n";
  text +=
      fmt::format(" * function whose entry jumps on {}, which csum-select_64.c sets\n", kCopyByte);
  text += " * at boot.\n";
  text += generatedBodiesBlock(variants, generic, command);
  text +=
      " *\n"
      " * __wsum csum_partial_copy_generic(const void *src, void *dst, int len);\n"
      " *                                                         rdi, rsi, edx -> eax\n"
      " *\n"
      " * Copies src[0..len) to dst[0..len) and returns the unfolded 32-bit ones'-complement\n"
      " * sum of those bytes plus 0xffffffff, in one pass: never 0 when it succeeds. Every\n"
      " * load and store has an exception-table entry; on a fault the fixup pops what the body\n"
      " * pushed there and returns 0 (the callers in csum-wrappers_64.c then report -EFAULT;\n"
      " * dst is left partly written). Touches nothing outside src and dst; len <= 0 touches\n"
      " * neither. No stack memory but pushes of callee-saved registers.\n"
      " *\n"
      " * One function, not one per body: csum-wrappers_64.c calls it with user access enabled,\n"
      " * where objtool refuses a call or jump to another function (a static call's trampoline\n"
      " * included). The bodies are local labels, and the entry reads one byte the selection\n"
      " * writes once at boot (__ro_after_init): 0 runs the generic body, N the Nth variant.\n"
      " */\n"
      "#include <linux/linkage.h>\n"
      "#include <asm/asm.h>\t\t/* _ASM_EXTABLE_UA */\n\n"
      "\t.text\n";
  text += fmt::format("SYM_FUNC_START({})\n", kCopySymbol);
  // eax is the result: every body writes it before it reads it.
  text += fmt::format("\tmovzbl\t{}(%rip), %eax\n", kCopyByte);
  for (std::size_t i = 0; i < variants.size(); ++i)
    text +=
        fmt::format("\tcmpl\t${}, %eax\n\tje\t.L{}\n", i + 1, copyBodyLabel(variants[i].cpuKey));
  SourceRequest genericSource;
  genericSource.params = generic;
  genericSource.tunedOn = "not tuned: the generic body, for CPUs without a variant of their own";
  const RenderedBody genericBody = renderBody(genericSource, kCopySymbol);
  text += genericBody.header + "\n" + genericBody.code;
  for (const auto& v : variants) {
    const std::string label = copyBodyLabel(v.cpuKey);
    const RenderedBody body = renderBody(v.source, label);
    text += body.header + "\n.L" + label + ":\n" + body.code;
  }
  text += fmt::format("SYM_FUNC_END({})\n", kCopySymbol);
  return text;
}

}  // namespace csumtune::tuner
