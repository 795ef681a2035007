#include "patch/boot_selection.hpp"

#include <fmt/format.h>

#include "patch/multi_copy.hpp"
#include "source_file.hpp"

namespace csumtune::tuner {
namespace {

// The banner: what the file picks, from which bodies, and how.
std::string banner(const KernelVariants& variants, const gen::Params& fallback,
                   const std::string& command) {
  const bool sums = !variants.sums.empty(), copies = !variants.copies.empty();
  std::string text = "// SPDX-License-Identifier: GPL-2.0\n/*\n";
  if (sums && copies) {
    text +=
        " * csum_partial() and csum_partial_copy_generic() for the CPU the kernel boots on: one\n"
        " * of the bodies in csum-partial_64.S and one of those in csum-copy_64.S, picked at\n"
        " * boot.\n";
  } else if (sums) {
    text +=
        " * csum_partial() for the CPU the kernel boots on: one of the bodies in\n"
        " * csum-partial_64.S, picked at boot.\n";
  } else {
    text +=
        " * csum_partial_copy_generic() for the CPU the kernel boots on: one of the bodies in\n"
        " * csum-copy_64.S, picked at boot.\n";
  }
  text += generatedByBlock(command);
  if (sums && copies) {
    text += bodiesBlock(
        "csum_partial()'s bodies, tried in this order (the same stepping first, then any\n"
        " * stepping):",
        variants.sums, fallback);
    text += bodiesBlock("csum_partial_copy_generic()'s bodies, in the same order:", variants.copies,
                        copyFallbackOf(fallback));
  } else {
    text += bodiesBlock("Bodies, tried in this order (the same stepping first, then any stepping):",
                        sums ? variants.sums : variants.copies,
                        sums ? fallback : copyFallbackOf(fallback));
  }
  text += " *\n";
  if (sums) {
    text +=
        " * csum_partial() is a tail call through the static call csumtune_csum_partial. It\n"
        " * starts as the generic body, right on every x86-64 CPU, and the initcall points it at\n"
        " * the body picked. With HAVE_STATIC_CALL_INLINE the call site itself is rewritten:\n"
        " * csum_partial() jumps straight to the body, loading no function pointer.\n";
  }
  if (copies) {
    text += fmt::format(
        " * csum_partial_copy_generic() runs with user access enabled, where objtool allows no\n"
        " * jump to another function: its bodies are local labels of that one function, whose\n"
        " * entry jumps on {}. It is 0 (the generic body) until the initcall\n"
        " * sets it, and never changes after boot.\n",
        kCopyByte);
  }
  text +=
      " *\n"
      " * The pick: the variant whose vendor, family and model match boot_cpu_data, the same\n"
      " * stepping first, and only when the CPU has every feature that variant needs. Boot\n"
      " * parameter: csumtune=generic keeps the generic bodies; csumtune=<key> asks for that\n"
      " * CPU's variants (refused on a CPU without the features they need).\n"
      " */\n";
  return text;
}

std::string includes(bool sums) {
  return std::string("#define pr_fmt(fmt) \"csumtune: \" fmt\n\n") + "#include <linux/cache.h>\n" +
         (sums ? "#include <linux/export.h>\n" : "") +
         "#include <linux/init.h>\n"
         "#include <linux/kernel.h>\n"
         "#include <linux/printk.h>\n" +
         (sums ? "#include <linux/static_call.h>\n" : "") + "#include <linux/string.h>\n" +
         (sums ? "#include <asm/checksum.h>\n" : "") +
         "#include <asm/cpufeature.h>\n"
         "#include <asm/processor.h>\n\n";
}

// csum_partial() through the static call, and ip_compute_csum(), as the removed .c had it.
std::string sumDefinitions(const std::vector<LibraryVariant>& sums) {
  std::string text =
      fmt::format("__wsum {}(const void *buff, int len, __wsum sum);\n", kernelGenericSymbol());
  for (const auto& v : sums)
    text += fmt::format("__wsum {}(const void *buff, int len, __wsum sum);\n",
                        kernelBodySymbol(v.cpuKey));
  text += fmt::format(
      "\nDEFINE_STATIC_CALL(csumtune_csum_partial, {});\n\n"
      "__wsum csum_partial(const void *buff, int len, __wsum sum)\n"
      "{{\n"
      "\treturn static_call(csumtune_csum_partial)(buff, len, sum);\n"
      "}}\n"
      "EXPORT_SYMBOL(csum_partial);\n\n"
      "/*\n"
      " * ip_compute_csum - Compute an 16bit IP checksum.\n"
      " * @buff: buffer address.\n"
      " * @len: length of buffer.\n"
      " *\n"
      " * Returns the 16bit folded/inverted checksum of the passed buffer.\n"
      " * Ready to fill in.\n"
      " */\n"
      "__sum16 ip_compute_csum(const void *buff, int len)\n"
      "{{\n"
      "\treturn csum_fold(csum_partial(buff, len, 0));\n"
      "}}\n"
      "EXPORT_SYMBOL(ip_compute_csum);\n\n",
      kernelGenericSymbol());
  return text;
}

// One function's table of variants, in the order they are tried.
std::string bodyTable(const std::string& name, const std::vector<LibraryVariant>& variants) {
  std::string text = fmt::format("static const struct csumtune_body {}[] __initconst = {{\n", name);
  for (const auto& v : variants) {
    const std::string feature = kernelFeature(v.source.params);
    text += fmt::format(
        "\t{{ \"{}\", {}, 0x{:x}, 0x{:x}, {}, {}, {}, {} }},\n", v.cpuKey, kernelVendor(v.vendor),
        v.family, v.model, v.stepping, feature.empty() ? "false" : "true",
        feature.empty() ? "0" : feature,
        feature.empty() ? "\"nothing\"" : "\"" + cpuFeatureList(v.source.params) + "\"");
  }
  return text + "};\n\n";
}

constexpr const char* kPicker =
    "static char csumtune_choice[32] __initdata;\n\n"
    "static int __init csumtune_setup(char *arg)\n"
    "{\n"
    "\tstrscpy(csumtune_choice, arg, sizeof(csumtune_choice));\n"
    "\treturn 1;\n"
    "}\n"
    "__setup(\"csumtune=\", csumtune_setup);\n\n"
    "static bool __init csumtune_usable(const struct csumtune_body *b)\n"
    "{\n"
    "\treturn !b->needs_feature || boot_cpu_has(b->feature);\n"
    "}\n\n"
    "/*\n"
    " * The index in bodies[0..n) of the body for this CPU, or -1 for the generic body. Logs\n"
    " * one line: the function, the body, and why.\n"
    " */\n"
    "static int __init csumtune_pick(const char *function, const struct csumtune_body *bodies,\n"
    "\t\t\t\tint n)\n"
    "{\n"
    "\tconst struct cpuinfo_x86 *c = &boot_cpu_data;\n"
    "\tchar why[96] = \"no variant for this CPU\";\n"
    "\tint pick = -1, i, any_stepping;\n\n"
    "\tif (!strcmp(csumtune_choice, \"generic\")) {\n"
    "\t\tstrscpy(why, \"csumtune=generic\", sizeof(why));\n"
    "\t} else if (csumtune_choice[0]) {\n"
    "\t\tsnprintf(why, sizeof(why), \"csumtune=%s: no such variant of this function\",\n"
    "\t\t\t csumtune_choice);\n"
    "\t\tfor (i = 0; i < n; i++) {\n"
    "\t\t\tif (strcmp(bodies[i].key, csumtune_choice))\n"
    "\t\t\t\tcontinue;\n"
    "\t\t\tif (csumtune_usable(&bodies[i])) {\n"
    "\t\t\t\tpick = i;\n"
    "\t\t\t\tsnprintf(why, sizeof(why), \"csumtune=%s\", bodies[i].key);\n"
    "\t\t\t} else {\n"
    "\t\t\t\tsnprintf(why, sizeof(why),\n"
    "\t\t\t\t\t \"csumtune=%s needs %s, which this CPU lacks\",\n"
    "\t\t\t\t\t bodies[i].key, bodies[i].needs);\n"
    "\t\t\t}\n"
    "\t\t}\n"
    "\t} else {\n"
    "\t\tfor (any_stepping = 0; pick < 0 && any_stepping < 2; any_stepping++) {\n"
    "\t\t\tfor (i = 0; i < n; i++) {\n"
    "\t\t\t\tconst struct csumtune_body *b = &bodies[i];\n\n"
    "\t\t\t\tif (c->x86_vendor != b->vendor || c->x86 != b->family ||\n"
    "\t\t\t\t    c->x86_model != b->model ||\n"
    "\t\t\t\t    (!any_stepping && c->x86_stepping != b->stepping))\n"
    "\t\t\t\t\tcontinue;\n"
    "\t\t\t\tif (!csumtune_usable(b)) {\n"
    "\t\t\t\t\tsnprintf(why, sizeof(why),\n"
    "\t\t\t\t\t\t \"the variant %s needs %s, which this CPU lacks\",\n"
    "\t\t\t\t\t\t b->key, b->needs);\n"
    "\t\t\t\t\tcontinue;\n"
    "\t\t\t\t}\n"
    "\t\t\t\tpick = i;\n"
    "\t\t\t\tsnprintf(why, sizeof(why), \"tuned on this family and model, %s\",\n"
    "\t\t\t\t\t any_stepping ? \"another stepping\" : \"this stepping\");\n"
    "\t\t\t\tbreak;\n"
    "\t\t\t}\n"
    "\t\t}\n"
    "\t}\n"
    "\tpr_info(\"%s: %s (%s; CPU vendor %u family 0x%x model 0x%x stepping %u)\\n\",\n"
    "\t\tfunction, pick >= 0 ? bodies[pick].key : \"generic\", why, c->x86_vendor, c->x86,\n"
    "\t\tc->x86_model, c->x86_stepping);\n"
    "\treturn pick;\n"
    "}\n\n";

}  // namespace

std::string renderSelectC(const KernelVariants& variants, const gen::Params& fallback,
                          const std::string& command) {
  const bool sums = !variants.sums.empty(), copies = !variants.copies.empty();
  std::string text = banner(variants, fallback, command) + includes(sums);
  if (sums) text += sumDefinitions(variants.sums);
  if (copies) {
    text += fmt::format(
        "/*\n"
        " * csum_partial_copy_generic() jumps on it: 0 runs the generic body, N the Nth of\n"
        " * csumtune_copy_bodies.\n"
        " */\n"
        "extern u8 {0};\n"
        "u8 {0} __ro_after_init;\n\n",
        kCopyByte);
  }
  text +=
      "struct csumtune_body {\n"
      "\tconst char *key;\n"
      "\tu8 vendor;\t\t/* X86_VENDOR_* */\n"
      "\tu8 family, model, stepping;\n"
      "\tbool needs_feature;\n"
      "\tu16 feature;\t\t/* the X86_FEATURE_* the body needs, if needs_feature */\n"
      "\tconst char *needs;\t/* its name, for the log */\n"
      "};\n\n";
  if (sums) {
    text += bodyTable("csumtune_sum_bodies", variants.sums);
    text +=
        "static __wsum (*const csumtune_sum_fns[])(const void *buff, int len, __wsum sum) "
        "__initconst = {\n";
    for (const auto& v : variants.sums) text += "\t" + kernelBodySymbol(v.cpuKey) + ",\n";
    text += "};\n\n";
  }
  if (copies) text += bodyTable("csumtune_copy_bodies", variants.copies);
  text += kPicker;
  text +=
      "static int __init csumtune_select(void)\n"
      "{\n"
      "\tint pick;\n\n";
  if (sums) {
    text +=
        "\tpick = csumtune_pick(\"csum_partial\", csumtune_sum_bodies,\n"
        "\t\t\t     ARRAY_SIZE(csumtune_sum_bodies));\n"
        "\tif (pick >= 0)\n"
        "\t\tstatic_call_update(csumtune_csum_partial, csumtune_sum_fns[pick]);\n";
  }
  if (copies) {
    text += fmt::format(
        "\tpick = csumtune_pick(\"csum_partial_copy_generic\", csumtune_copy_bodies,\n"
        "\t\t\t     ARRAY_SIZE(csumtune_copy_bodies));\n"
        "\tif (pick >= 0)\n"
        "\t\t{} = pick + 1;\n",
        kCopyByte);
  }
  text +=
      "\treturn 0;\n"
      "}\n"
      "early_initcall(csumtune_select);\n";
  return text;
}

}  // namespace csumtune::tuner
