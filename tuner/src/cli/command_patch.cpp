// csumtune patch --tree DIR (--params P | --results FILE) [-o FILE] [--no-figures]: the change a
// kernel developer would send — the tree's csum-partial_64.c replaced by the tuned .S — as a
// unified diff with a kernel-style commit message and figures measured against the tree's
// own file.
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli_support.hpp"
#include "commands.hpp"
#include "csumtune/cpu.hpp"
#include "csumtune/gen/kernel_program.hpp"
#include "csumtune/gen/version.hpp"
#include "csumtune/jit.hpp"
#include "csumtune/results/document.hpp"
#include "measure/clock_rates.hpp"
#include "measure/code_size.hpp"
#include "measure/harness.hpp"
#include "measure/kernel_source.hpp"
#include "measure/placement.hpp"
#include "measure/stats.hpp"
#include "measure/timed_kernels.hpp"
#include "patch/git_identity.hpp"
#include "patch/kernel_patch.hpp"
#include "report/results_file.hpp"
#include "source_file.hpp"

namespace csumtune::cli {
namespace {

struct PatchOptions {
  std::string tree;
  std::string params;
  std::string results;
  std::string out = "-";
  bool noFigures = false;
  int cpu = -1;
};

// Where the params came from, for the commit message.
struct Provenance {
  gen::Params params;
  std::string tuned;  // "tuned with csumtune tune ... on <cpu>" or "given as --params"
  std::string regenerate;
  std::string cpu;  // the CPU the results were tuned on ("" for --params)
};

// Trailing and repeated spaces go (CPUID brand strings are padded).
std::string squeezeSpaces(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// The results file as the patch's "Regenerate:" line names it: from its results/<key>/
// folder on (where it is committed), else its file name, never a machine's absolute path.
std::string portableResultsPath(const std::string& path) {
  const std::size_t at = path.rfind("results/");
  if (at != std::string::npos && (at == 0 || path[at - 1] == '/')) return path.substr(at);
  return std::filesystem::path(path).filename().string();
}

// "x86/csum: Replace FUNCTION with a loop tuned for CPU", at most 72 columns: the CPU is the
// results' (not the machine patch runs on), cut at a word when it would not fit.
std::string subjectOf(std::string_view function, const Provenance& from) {
  if (from.cpu.empty())
    return fmt::format("x86/csum: Replace {} with a generated {} loop", function,
                       gen::toString(from.params.carry));
  const std::string head = fmt::format("x86/csum: Replace {} with a loop tuned for ", function);
  std::string cpu = from.cpu;
  while (head.size() + cpu.size() > 72 && cpu.find(' ') != std::string::npos)
    cpu = cpu.substr(0, cpu.rfind(' '));
  if (head.size() + cpu.size() > 72)
    cpu = cpu.substr(0, 72 - std::min<std::size_t>(head.size(), 72));
  return head + cpu;
}

Provenance provenanceOf(const PatchOptions& o) {
  if (o.params.empty() == o.results.empty())
    throw UsageError("patch needs --params P or --results FILE");
  if (!o.params.empty()) {
    const gen::Params p = parseParamsOption(o.params);
    return {p, "Its parameters were given explicitly (csumtune patch --params).",
            fmt::format("csumtune patch --tree . --params {}", p.toString()), ""};
  }
  const gen::Params p = tuner::readWinnerParams(o.results);
  const auto header = results::readHeader(results::readDocument(o.results, "read the winner"),
                                          o.results, "read the winner");
  return {p,
          fmt::format("It is the winner of a csumtune tuning run on {} (key {}) for the {} "
                      "profile ({}), {} cache{}.",
                      header.cpuBrand, header.cpuKey, header.profile,
                      results::profileSpec(header.sizes), header.cache,
                      header.disturbed ? " (" + header.contentionSummary + ")" : ""),
          fmt::format("csumtune patch --tree . --results {}", portableResultsPath(o.results)),
          squeezeSpaces(header.cpuBrand)};
}

// A paragraph wrapped at 72 columns, as commit messages are.
std::string wrap(const std::string& text) {
  std::string out, line;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const std::string word = text.substr(at, end - at);
    if (!line.empty() && line.size() + 1 + word.size() > 72) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    at = end + 1;
  }
  return out + line;
}

std::string utcRfc2822() {
  const std::time_t now = std::time(nullptr);
  char text[64];
  std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S +0000", std::gmtime(&now));
  return text;
}

// What the file needs of the CPU, said in the commit message: a distribution kernel boots on
// CPUs the results never saw.
std::string cpuNeeds(const gen::Params& params, std::string_view symbol) {
  if (!tuner::needsAdxFallback(params, tuner::SourceStyle::Kernel))
    return "It needs nothing of the CPU beyond x86-64.\n\n";
  return fmt::format(
      "Its loop uses ADCX/ADOX, which need ADX. An ALTERNATIVE on X86_FEATURE_ADX\n"
      "at the entry of {}() jumps to a second body in the same function,\n"
      "the same loop with ADC, on CPUs without ADX: the file runs on every\n"
      "x86-64 CPU.\n\n",
      symbol);
}

// The tree's git identity ("Name <email>"), or "" when DIR is not a git checkout, has none,
// or has one that cannot go into a mail header (said on stderr).
std::string gitAuthor(const tuner::KernelTree& tree) {
  if (!tree.git) return "";
  const tuner::GitIdentity identity = tuner::gitIdentity(tree.root);
  if (!identity.refused.empty()) {
    std::cerr << "csumtune: note: the tree's git identity is not used as the patch's author: "
              << identity.refused << "\n";
  }
  return identity.author;
}

// The 2013 thread's table: the tree's own file (before) and the tuned kernel (after), hot
// and cold, core cycles per byte, measured interleaved on this CPU.
std::string measureFigures(const PatchOptions& o, const tuner::TimedKernel& before,
                           const tuner::TimedKernel& after, std::string_view file) {
  const int cpu = o.cpu >= 0 ? o.cpu : tuner::defaultBenchCpu();
  if (auto error = tuner::pinToCpu(cpu)) throw UsageError(*error);
  auto timer = tuner::makeTimer();
  const tuner::ClockRates clock = tuner::measureClockRates(*timer);
  const bool cycles = timer->unit() == "cycles";
  const double perUnit = cycles ? 1.0 : clock.cyclesPerUnit;
  tuner::MeasureConfig config;
  config.sizes = {40, 1500, 9000, 65536};
  config.repeat = 101;
  std::string table = fmt::format("  {:>6} | {:>10} | {:>8} | {:>8} | {}\n", "length", "Set Sz",
                                  "before", "after", "speedup [95% CI]");
  for (auto cache : {tuner::CacheState::Hot, tuner::CacheState::Cold}) {
    tuner::WorkloadConfig wc;
    wc.cache = cache;
    tuner::Workload workload(wc, 65536);
    const auto samples = tuner::measureInterleaved({before, after}, config, *timer, workload);
    for (std::size_t i = 0; i < config.sizes.size(); ++i) {
      const int size = config.sizes[i];
      const double before = tuner::summarize(samples[0].sizes[i].perCall).median / size;
      const double after = tuner::summarize(samples[1].sizes[i].perCall).median / size;
      const auto speedup =
          tuner::pairedRatio(samples[0].sizes[i].perCall, samples[1].sizes[i].perCall);
      table += fmt::format(
          "  {:>6} | {:>10} | {:>8.3f} | {:>8.3f} | {:.2f}x [{:.2f}, {:.2f}]\n", size,
          cache == tuner::CacheState::Hot ? fmt::format("{}B hot", size)
                                          : fmt::format("{}M", workload.setSize() >> 20),
          before * perUnit, after * perUnit, speedup.median, speedup.low, speedup.high);
    }
  }
  return wrap(fmt::format(
             "Measured in user space on {} (CPU {} pinned), the tree's own {} {} "
             "against the new code, calls chained through the sum, median of "
             "{} interleaved samples, {} per byte{}:",
             squeezeSpaces(hostCpu().brand), cpu, file,
             file.ends_with(".S") ? "assembled for user space" : "built for user space (gcc -O2)",
             config.repeat, cycles ? "cycles" : "core cycles",
             cycles ? ""
                    : fmt::format(" (TSC ticks x {:.3f} core cycles per tick, measured)",
                                  clock.cyclesPerUnit))) +
         "\n\n" + table;
}

// The tree, read for the file a patch of these params replaces. UsageError if it cannot.
tuner::KernelTree readTree(const PatchOptions& o, const gen::Params& params) {
  try {
    return tuner::readKernelTree(o.tree, params.kind == gen::Kind::Copy ? tuner::PatchTarget::Copy
                                                                        : tuner::PatchTarget::Sum);
  } catch (const tuner::TreeError& e) {
    throw UsageError(e.what());
  }
}

// A .S file as a patch adds it: no blank line at the end (git and checkpatch flag it).
std::string withoutTrailingBlankLines(std::string text) {
  while (text.size() > 1 && text.back() == '\n' && text[text.size() - 2] == '\n') text.pop_back();
  return text;
}

// kind=copy: the tree's arch/x86/lib/csum-copy_64.S rewritten as the tuned copy, in place.
int runCopyPatch(const PatchOptions& o, const Provenance& from) {
  if (!gen::traitsOf(from.params.carry).kernelSafe()) {
    throw UsageError(fmt::format(
        "carry={} uses vector registers, which the kernel's csum_partial_copy_generic may not "
        "touch (tune with --kind copy --kernel-safe)",
        gen::toString(from.params.carry)));
  }
  const tuner::KernelTree tree = readTree(o, from.params);
  checkOutput(o.out);
  tuner::SourceRequest request;
  request.params = from.params;
  request.style = tuner::SourceStyle::Kernel;
  request.symbol = "csum_partial_copy_generic";
  request.kernelVersion = tree.version;
  request.tunedOn = from.tuned;
  const std::string sFile = withoutTrailingBlankLines(tuner::renderSource(request));
  const std::size_t after =
      gen::KernelProgram(from.params, tuner::programOptions(from.params, request.style))
          .bytes()
          .size();

  // The tree's own file, assembled for user space: its size and (unless --no-figures) the
  // figures, measured against the very same loop as a csum_and_copy.
  std::string figures, before;
  const std::string sPath = o.tree + "/" + tuner::kCopyS;
  try {
    tuner::SourceBaseline source(sPath, tuner::SourceKind::Copy);
    if (!source.copies()) throw tuner::SourceBaselineError("no csum_partial_copy_generic");
    before = fmt::format("{} bytes",
                         tuner::functionSize(reinterpret_cast<const void*>(source.copyGeneric())));
    if (!o.noFigures) {
      const Kernel tuned = Jit::compile(from.params);
      tuner::TimedKernel was = tuner::timedBaseline(source.baseline());
      was.name = "before";
      figures = measureFigures(o, was, tuner::timedKernel(tuned, "after"), tuner::kCopyS);
    }
  } catch (const tuner::SourceBaselineError& e) {
    before = "unknown";
    std::cerr << "csumtune: note: no figures or size for " << sPath << ": " << e.what() << "\n";
  }
  tuner::PatchText patch;
  patch.subject = subjectOf("csum_partial_copy_generic()", from);
  patch.body = fmt::format(
      "csum_partial_copy_generic() copies and sums in one pass what the network\n"
      "stack moves between user space and packets without checksum offload\n"
      "(csum_and_copy_from_user() on send, csum_and_copy_to_user() on receive).\n"
      "Replace {} with assembly generated by csumtune {}:\n\n"
      "  {}\n\n"
      "{}\n\n"
      "Same contract: copies len bytes, returns their 32-bit partial sum\n"
      "starting from 0xffffffff (never 0 on success), and returns 0 when a load\n"
      "or a store faults: every one has an _ASM_EXTABLE_UA() entry, and each\n"
      "fixup pops what the code has pushed at that point. It touches nothing\n"
      "outside the two buffers, uses general-purpose registers only, no stack\n"
      "memory but pushes of callee-saved registers, and leaves only through RET.\n\n"
      "{}"
      "{}"
      "Code size of csum_partial_copy_generic(): {} before, {} bytes after\n"
      "(without the fault fixups).\n\n"
      "Regenerate: {}\n",
      tuner::kCopyS, gen::kGeneratorVersion, from.params.toString(), wrap(from.tuned),
      cpuNeeds(from.params, "csum_partial_copy_generic"), figures.empty() ? "" : figures + "\n",
      before, after, from.regenerate);
  patch.author = gitAuthor(tree);
  patch.date = utcRfc2822();
  patch.generator = fmt::format("csumtune {}", gen::kGeneratorVersion);
  patch.files = {{tuner::kCopyS, {tree.cFile, sFile}}};
  writeOutput(o.out, tuner::renderPatch(patch));
  return 0;
}

int runPatch(const PatchOptions& o) {
  const Provenance from = provenanceOf(o);
  if (from.params.kind == gen::Kind::Copy) return runCopyPatch(o, from);
  const tuner::KernelTree tree = readTree(o, from.params);
  if (!gen::traitsOf(from.params.carry).kernelSafe()) {
    throw UsageError(fmt::format(
        "carry={} uses vector registers, which the kernel's csum_partial may not touch (tune "
        "with --kernel-safe)",
        gen::toString(from.params.carry)));
  }
  checkOutput(o.out);
  tuner::SourceRequest request;
  request.params = from.params;
  request.style = tuner::SourceStyle::Kernel;
  request.kernelVersion = tree.version;
  request.tunedOn = from.tuned;
  const std::string sFile = withoutTrailingBlankLines(tuner::renderSource(request));
  const std::size_t after = gen::KernelProgram(from.params).bytes().size();

  // The tree's own file built for user space: its size, and (unless --no-figures) the
  // figures. A tree whose file our stand-in headers cannot build still gets its patch.
  std::string figures, before;
  const std::string cPath = o.tree + "/" + tuner::kCsumC;
  try {
    tuner::SourceBaseline source(cPath);
    before =
        fmt::format("{} bytes", tuner::functionSize(reinterpret_cast<const void*>(source.fn())));
    if (!o.noFigures) {
      const Kernel tuned = Jit::compile(from.params);
      figures = measureFigures(o, {"before", "", "baseline-source", source.fn()},
                               {"after", "", "jit", tuned.fn()}, tuner::kCsumC);
    }
  } catch (const tuner::SourceBaselineError& e) {
    before = "unknown";
    std::cerr << "csumtune: note: no figures or size for " << cPath << ": " << e.what() << "\n";
  }
  tuner::PatchText patch;
  patch.subject = subjectOf("csum_partial()", from);
  patch.body = fmt::format(
      "csum_partial() is the sum the network stack takes of every packet it\n"
      "checks or builds without checksum offload. Replace the C version in\n"
      "{} with assembly generated by csumtune {}:\n\n"
      "  {}\n\n"
      "{}\n\n"
      "The new file provides what the old one did: csum_partial() (exported)\n"
      "and ip_compute_csum(). It reads no byte outside the buffer (the C\n"
      "version's load_unaligned_zeropad() may read up to 7 bytes past it), uses\n"
      "general-purpose registers only, leaves only through RET, has no indirect\n"
      "jumps, and exports through <{}> as {} wants.\n\n"
      "{}"
      "{}"
      "Code size of csum_partial(): {} before (the tree's file built for user\n"
      "space, gcc -O2), {} bytes after.\n\n"
      "Regenerate: {}\n",
      tuner::kCsumC, gen::kGeneratorVersion, from.params.toString(), wrap(from.tuned),
      tree.version >= std::pair{6, 5} ? "linux/export.h" : "asm/export.h", tree.versionText(),
      cpuNeeds(from.params, "csum_partial"), figures.empty() ? "" : figures + "\n", before, after,
      from.regenerate);
  patch.author = gitAuthor(tree);
  patch.date = utcRfc2822();
  patch.generator = fmt::format("csumtune {}", gen::kGeneratorVersion);
  patch.files = {{tuner::kCsumC, {tree.cFile, ""}}, {tuner::kCsumS, {"", sFile}}};
  const std::string text = tuner::renderPatch(patch);
  if (tree.git && patch.author.empty()) {
    std::cerr << "csumtune: note: " << o.tree
              << " has no git user.name/user.email: a plain patch, not git format-patch\n";
  }
  writeOutput(o.out, text);
  return 0;
}

}  // namespace

void addPatchCommand(CLI::App& app, int& exitCode) {
  auto o = std::make_shared<PatchOptions>();
  auto* cmd = app.add_subcommand(
      "patch",
      "Write the kernel patch that replaces a tree's arch/x86/lib/csum-partial_64.c with the "
      "tuned .S, or for a copying kernel (kind=copy) its csum-copy_64.S (git format-patch "
      "shape for a git checkout; no Signed-off-by: add yours)");
  cmd->add_option("--tree", o->tree, "The kernel tree (its top directory)")->required();
  cmd->add_option("--params", o->params, "Kernel parameters (kernel-safe)");
  cmd->add_option("--results", o->results, "A results.json whose winner to use");
  cmd->add_option("-o,--output", o->out, "Output file (- = stdout)")->capture_default_str();
  cmd->add_flag("--no-figures", o->noFigures,
                "Do not build and time the tree's own file for the commit message");
  cmd->add_option("--cpu", o->cpu, "CPU to pin the measurement to (default: the last one)")
      ->check(CLI::Range(0, 4095));
  cmd->callback([o, &exitCode] {
    if (!dryRun()) exitCode = runPatch(*o);
  });
}

}  // namespace csumtune::cli
