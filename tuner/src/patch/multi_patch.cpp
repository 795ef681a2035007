#include "patch/multi_patch.hpp"

#include <algorithm>
#include <ctime>
#include <filesystem>

#include <fmt/format.h>

#include "csumtune/bounded_file.hpp"
#include "csumtune/gen/kernel_program.hpp"
#include "csumtune/gen/version.hpp"
#include "csumtune/results/document.hpp"
#include "one_line.hpp"
#include "patch/boot_selection.hpp"
#include "patch/kernel_bodies.hpp"
#include "patch/kernel_patch.hpp"
#include "patch/multi_copy.hpp"
#include "request_errors.hpp"
#include "source_file.hpp"
#include "text_wrap.hpp"

namespace csumtune::tuner {
namespace {

constexpr std::string_view kMultiPatchPurpose = "take a kernel body";

// The run's own record of what it is, read before the library's reader so the refusals name
// what is wrong across the runs (kinds, versions), not only in one of them.
struct RunFacts {
  std::string path;
  gen::Params winner;
  std::string generator;
};

RunFacts readFacts(const std::string& input) {
  RunFacts facts;
  facts.path = resultsFileOf(input);
  const auto document = results::readDocument(facts.path, kMultiPatchPurpose);
  const auto header = results::readHeader(document, facts.path, kMultiPatchPurpose);
  if (!header.winnerParams)
    results::fail(facts.path, kMultiPatchPurpose, "records no winner (the run did not finish)");
  facts.winner = gen::parseParams(*header.winnerParams);
  const auto version = document.find("generator_version");
  facts.generator =
      version != document.end() && version->is_string() ? version->get<std::string>() : "";
  return facts;
}

// One body of csum-partial_64.S: its header comment (params, size, registers, needs, where it
// was tuned) and the function, printed as a kernel-style file would print them.
std::string bodyPiece(const SourceRequest& source, const std::string& name) {
  const RenderedBody body = renderBody(source, name);
  return fmt::format("{}\n{}SYM_FUNC_START({})\n{}SYM_FUNC_END({})\n", body.header,
                     placementDirectives(source.params, SourceStyle::Kernel), name, body.code,
                     name);
}

std::string regenerateCommand(const KernelVariants& variants, const gen::Params& fallback) {
  std::string command = "csumtune patch --tree .";
  for (const auto* kind : {&variants.sums, &variants.copies})
    for (const auto& v : *kind) command += " --results " + portableResultsPath(v.resultsPath);
  if (fallback != defaultKernelFallback()) command += " --fallback " + fallback.toString();
  return oneLine(command);
}

// Each body as the message lists it: where it came from, its params (wrapped after commas),
// size and needs; then the generic body.
std::string bodyParagraph(const std::vector<LibraryVariant>& variants, const gen::Params& generic) {
  auto paramsLines = [](const gen::Params& params) {
    std::string out;
    for (const std::string& line : wrapWords(params.toString(), 70)) out += "    " + line + "\n";
    return out;
  };
  auto bytesOf = [](const gen::Params& params) {
    return gen::KernelProgram(params, programOptions(params, SourceStyle::Kernel)).bytes().size();
  };
  std::string bodies;
  for (const auto& v : variants) {
    bodies += fmt::format(
        "  {}: {} family 0x{:x} model 0x{:x}, tuned in\n    {}\n{}    {} bytes, needs {}\n",
        v.cpuKey, v.vendor, v.family, v.model, oneLine(portableResultsPath(v.resultsPath)),
        paramsLines(v.source.params), bytesOf(v.source.params), cpuFeatureNeeds(v.source.params));
  }
  bodies += fmt::format("  generic: every other x86-64 CPU, not tuned\n{}    {} bytes\n",
                        paramsLines(generic), bytesOf(generic));
  return bodies;
}

// The replaced file's copyright notice as a paragraph of the message ("" without one).
std::string noticeParagraph(const std::string& replacedText, const char* replacedPath) {
  const std::string notice = copyrightNotice(replacedText, replacedPath);
  return notice.empty() ? "" : wrapParagraph(notice) + "\n\n";
}

// Whether every body (the generic one included) reads only inside the buffer.
bool allStrict(const KernelVariants& variants, const gen::Params& fallback) {
  if (!variants.sums.empty() && fallback.bounds != gen::Bounds::Strict) return false;
  for (const auto* kind : {&variants.sums, &variants.copies})
    for (const auto& v : *kind)
      if (v.source.params.bounds != gen::Bounds::Strict) return false;
  return true;
}

// The trees' files the message speaks of: the sum's .c, the copy's .S (either may be unread).
struct ReplacedFiles {
  std::string sumC;
  std::string copyS;
};

std::string messageBody(const KernelVariants& variants, const gen::Params& fallback,
                        const ReplacedFiles& replaced, const std::string& command) {
  const bool sums = !variants.sums.empty(), copies = !variants.copies.empty();
  std::string out;
  if (sums) {
    out += fmt::format(
        "csum_partial() is the sum the network stack takes of every packet it\n"
        "checks or builds without checksum offload. Replace the C version in\n"
        "{} with assembly generated by csumtune {}:\n"
        "one body tuned on each of {} CPUs and a generic body, one of which is\n"
        "picked at boot:\n\n"
        "{}\n",
        kCsumC, gen::kGeneratorVersion, variants.sums.size(),
        bodyParagraph(variants.sums, fallback));
    out += wrapParagraph(fmt::format(
               "The generic body is the plain adc loop csumtune emit --library uses as its "
               "portable body unless told otherwise{}; it runs on every x86-64 CPU and is what "
               "every CPU runs until the selection below has run.",
               fallback == defaultKernelFallback() ? "" : " (here given with --fallback)")) +
           "\n\n";
  }
  if (copies) {
    out += fmt::format(
        "csum_partial_copy_generic() copies and sums in one pass what the network\n"
        "stack moves between user space and packets without checksum offload.\n"
        "Replace {}\n"
        "with assembly generated by csumtune {}: one body tuned on each of\n"
        "{} CPUs and a generic body, one of which is picked at boot:\n\n"
        "{}\n",
        kCopyS, gen::kGeneratorVersion, variants.copies.size(),
        bodyParagraph(variants.copies, copyFallbackOf(fallback)));
    out += wrapParagraph(
               "Same contract as the file it replaces: copies len bytes, returns their 32-bit "
               "partial sum starting from 0xffffffff (never 0 on success), and returns 0 when a "
               "load or a store faults: every one has an _ASM_EXTABLE_UA() entry, and each "
               "fixup pops what the body has pushed at that point.") +
           "\n\n";
  }
  std::string picks = sums ? "csum_partial()" : "";
  if (copies) picks += std::string(sums ? " and " : "") + "csum_partial_copy_generic()";
  out += wrapParagraph(fmt::format(
             "{} (new) {}An early_initcall picks the body of {} for boot_cpu_data: the variant "
             "whose vendor, family and model match (the same stepping first, then any "
             "stepping), and only when the CPU has every feature that body needs "
             "(boot_cpu_has(X86_FEATURE_ADX) for an ADCX/ADOX body); every other CPU keeps the "
             "generic body. It prints one line for each function, \"csumtune: <function>: "
             "<body> (<why>)\". The boot parameter csumtune=generic keeps the generic bodies; "
             "csumtune=<key> asks for that CPU's variants, which are still refused on a CPU "
             "without the features they need.",
             kSelectC,
             sums ? "defines csum_partial() as a tail call through "
                    "static_call(csumtune_csum_partial), which starts as the generic body, and "
                    "ip_compute_csum() as the removed C file did. "
                  : "",
             picks)) +
         "\n\n";
  if (sums)
    out += wrapParagraph(
               "Why static_call and not ALTERNATIVE: ALTERNATIVE patches code by CPU feature "
               "bit, and these bodies are picked by vendor, family and model, which no feature "
               "bit names (a synthetic X86_FEATURE per tuned CPU would mean changing "
               "cpufeatures.h for every variant). static_call_update() rewrites the call site "
               "itself (HAVE_STATIC_CALL_INLINE, found by objtool), so csum_partial() is a "
               "direct jump to the chosen body: no function pointer is loaded, no indirect "
               "branch or retpoline is taken.") +
           "\n\n";
  if (copies)
    out += wrapParagraph(fmt::format(
               "Why not a static call for the copy: csum-wrappers_64.c calls "
               "csum_partial_copy_generic() with user access enabled, where objtool refuses a "
               "call or jump to any function not known to be safe there, a static call's "
               "trampoline included. So its bodies are local labels of the one function, and "
               "its entry jumps on {}, a byte the selection writes once at boot "
               "(__ro_after_init): one load and one predicted branch per variant tried.",
               kCopyByte)) +
           "\n\n";
  out += wrapParagraph(fmt::format(
             "Every body {}, uses general-purpose registers only, leaves only through RET and "
             "has no indirect jumps.",
             allStrict(variants, fallback)
                 ? "reads no byte outside its buffers"
                 : "reads no byte outside its buffers but, in a summing body, the rest of the "
                   "aligned 8-byte blocks that hold the buffer's first and last bytes (never "
                   "across a page, so never a fault; those bytes never change the sum)")) +
         "\n\n";
  if (sums) out += noticeParagraph(replaced.sumC, kCsumC);
  if (copies) out += noticeParagraph(replaced.copyS, kCopyS);
  out += "Regenerate: " + wrapShellCommand(command, 75 - 12) + "\n";
  return out;
}

}  // namespace

void checkKernelFallback(const gen::Params& fallback) {
  if (fallback.kind != gen::Kind::Sum)
    throw BadRequest(fmt::format("--fallback {} copies: the generic body of csum_partial sums",
                                 fallback.toString()));
  if (!gen::traitsOf(fallback.carry).kernelSafe())
    throw BadRequest(fmt::format(
        "--fallback {} uses vector registers, which the kernel's csum_partial may not touch",
        fallback.toString()));
  const std::string needs = cpuFeatureList(fallback);
  if (!needs.empty())
    throw BadRequest(fmt::format(
        "--fallback {} needs {}: the generic body must run on every x86-64 CPU (e.g. carry=adc)",
        fallback.toString(), needs));
}

KernelVariants readKernelVariants(const std::vector<std::string>& inputs) {
  std::vector<RunFacts> facts;
  for (const std::string& input : inputs) facts.push_back(readFacts(input));
  std::vector<std::string> sumInputs, copyInputs;
  for (std::size_t i = 0; i < facts.size(); ++i) {
    const RunFacts& f = facts[i];
    if (!gen::traitsOf(f.winner.carry).kernelSafe())
      throw BadRequest(fmt::format(
          "{}: its winner {} uses vector registers, which the kernel may not touch (tune with "
          "--kernel-safe{})",
          f.path, f.winner.toString(), f.winner.kind == gen::Kind::Copy ? " --kind copy" : ""));
    if (f.generator != facts.front().generator)
      throw BadRequest(fmt::format(
          "{} was tuned with generator {} but {} with {}: the same params may mean other code "
          "across versions; tune again with one version",
          f.path, results::printable(f.generator, 40), facts.front().path,
          results::printable(facts.front().generator, 40)));
    (f.winner.kind == gen::Kind::Copy ? copyInputs : sumInputs).push_back(inputs[i]);
  }
  KernelVariants variants;
  variants.sums = readLibraryVariants(sumInputs, gen::Kind::Sum);
  variants.copies = readLibraryVariants(copyInputs, gen::Kind::Copy);
  // The copy's entry jumps on one byte: 0 is the generic body.
  if (variants.copies.size() > 255)
    throw BadRequest(
        fmt::format("{} copying runs: csum_partial_copy_generic picks among 255 at most",
                    variants.copies.size()));
  for (auto* kind : {&variants.sums, &variants.copies}) {
    for (LibraryVariant& v : *kind) {
      (void)kernelVendor(v.vendor);
      (void)kernelFeature(v.source.params);
      const std::string symbol =
          kind == &variants.sums ? kernelBodySymbol(v.cpuKey) : copyBodyLabel(v.cpuKey);
      if (!isKernelSymbol(symbol))
        throw BadRequest(
            fmt::format("{}: CPU key '{}' makes no kernel function name", v.resultsPath, v.cpuKey));
      v.source.style = SourceStyle::Kernel;
    }
  }
  return variants;
}

std::string patchedLibMakefile(const std::string& makefile) {
  const std::string from = "lib-y += csum-partial_64.o ";
  const std::size_t at = makefile.find(from);
  if (at == std::string::npos || makefile.find("csum-select_64.o") != std::string::npos)
    throw TreeError(
        fmt::format("{} has no line '{}...' to add csum-select_64.o to", kLibMakefile, from));
  std::string out = makefile;
  out.insert(at + from.size(), "csum-select_64.o ");
  return out;
}

std::string renderMultiAssembly(const std::vector<LibraryVariant>& variants,
                                const gen::Params& fallback, const std::string& command) {
  std::string text = "/* SPDX-License-Identifier: GPL-2.0 OR MIT */\n/*\n";
  text += " * The bodies of csum_partial(): one tuned per CPU and a generic one.\n";
  text += " * csum-select_64.c defines csum_partial() and picks one of them at boot.\n";
  text += generatedBodiesBlock(variants, fallback, command);
  text += " *\n";
  const bool aligned = fallback.bounds != gen::Bounds::Strict ||
                       std::any_of(variants.begin(), variants.end(), [](const auto& v) {
                         return v.source.params.bounds != gen::Bounds::Strict;
                       });
  text += " * __wsum BODY(const void *buff, int len, __wsum sum)   rdi, esi, edx -> eax\n *\n";
  text +=
      aligned
          ? " * Unfolded 32-bit ones'-complement sum of buff[0..len) plus sum. A body with\n"
            " * bounds=aligned may load bytes outside the buffer, but only inside the aligned\n"
            " * 8-byte blocks that hold its first and last bytes (never across a page, so never\n"
            " * a fault), and shifts them out. Others read no byte outside the buffer. len <= 0\n"
            " * reads nothing. Leaf functions, no stack memory, direct jumps only.\n"
          : " * Unfolded 32-bit ones'-complement sum of buff[0..len) plus sum. Reads no byte "
            "outside\n"
            " * the buffer; len <= 0 reads nothing. Leaf functions, no stack memory, direct "
            "jumps only.\n";
  text +=
      " */\n"
      "#include <linux/linkage.h>\n\n"
      "\t.text\n";
  SourceRequest generic;
  generic.params = fallback;
  generic.tunedOn = "not tuned: the generic body, for CPUs without a variant of their own";
  text += "\n" + bodyPiece(generic, kernelGenericSymbol());
  for (const auto& v : variants) text += "\n" + bodyPiece(v.source, kernelBodySymbol(v.cpuKey));
  return text;
}

namespace {

std::string readLibMakefile(const std::string& tree) {
  try {
    return readBoundedFile(std::filesystem::path(tree) / kLibMakefile,
                           {std::size_t{1} << 20, Links::Refuse});
  } catch (const FileReadError& e) {
    throw TreeError(fmt::format("cannot read {}/{}: {}", tree, kLibMakefile, e.what()));
  }
}

std::string subjectOf(const KernelVariants& variants) {
  if (variants.copies.empty())
    return fmt::format("x86/csum: Pick csum_partial() at boot from {} CPU-tuned bodies",
                       variants.sums.size());
  if (variants.sums.empty())
    return fmt::format("x86/csum: Pick the checksum copy at boot from {} CPU-tuned bodies",
                       variants.copies.size());
  return "x86/csum: Pick csum_partial() and its copy at boot from CPU-tuned bodies";
}

}  // namespace

PatchResult makeMultiPatch(const MultiPatchRequest& r) {
  checkKernelFallback(r.fallback);
  const KernelVariants variants = readKernelVariants(r.results);
  const bool sums = !variants.sums.empty(), copies = !variants.copies.empty();
  const KernelTree tree = readKernelTree(r.tree, sums ? PatchTarget::Sum : PatchTarget::Copy);
  ReplacedFiles replaced;
  if (sums) replaced.sumC = tree.cFile;
  if (copies) replaced.copyS = sums ? readKernelTree(r.tree, PatchTarget::Copy).cFile : tree.cFile;
  const std::string makefile = readLibMakefile(r.tree);
  const std::string newMakefile = patchedLibMakefile(makefile);
  if (r.accepted) r.accepted();
  const std::string command = regenerateCommand(variants, r.fallback);
  PatchResult result;
  PatchText patch;
  patch.subject = subjectOf(variants);
  patch.body = messageBody(variants, r.fallback, replaced, command);
  setAuthorFromTree(tree, r.tree, patch, result.notes);
  patch.date = utcRfc2822();
  patch.generator = fmt::format("csumtune {}", gen::kGeneratorVersion);
  patch.files = {{kLibMakefile, {makefile, newMakefile}}};
  if (sums) {
    patch.files.push_back({kCsumC, {replaced.sumC, ""}});
    patch.files.push_back(
        {kCsumS,
         {"", withoutTrailingBlankLines(renderMultiAssembly(variants.sums, r.fallback, command))}});
  }
  if (copies) {
    patch.files.push_back(
        {kCopyS,
         {replaced.copyS, withoutTrailingBlankLines(renderMultiCopyAssembly(
                              variants.copies, copyFallbackOf(r.fallback), command))}});
  }
  patch.files.push_back(
      {kSelectC, {"", withoutTrailingBlankLines(renderSelectC(variants, r.fallback, command))}});
  patch.contextDiffs = {kLibMakefile};
  result.text = renderPatch(patch);
  return result;
}

std::vector<std::string> multiPatchedFiles(const MultiPatchRequest& r) {
  return {r.tree + "/Makefile",  r.tree + "/" + kLibMakefile, r.tree + "/" + kCsumC,
          r.tree + "/" + kCsumS, r.tree + "/" + kCopyS,       r.tree + "/" + kSelectC};
}

}  // namespace csumtune::tuner
