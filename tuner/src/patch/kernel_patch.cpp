#include "patch/kernel_patch.hpp"

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "csumtune/bounded_file.hpp"
#include "one_line.hpp"
#include "patch/git_identity.hpp"

namespace csumtune::tuner {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    lines.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return lines;
}

// Counts of a file change for the diffstat.
struct Change {
  std::string path;
  std::size_t added = 0, removed = 0;
  bool created = false, deleted = false;
};

Change changeOf(const std::string& path, const std::string& before, const std::string& after) {
  return {path, linesOf(after).size(), linesOf(before).size(), before.empty(), after.empty()};
}

std::string diffstat(const std::vector<Change>& changes) {
  std::size_t width = 0, added = 0, removed = 0, widest = 0;
  for (const Change& c : changes) {
    width = std::max(width, c.path.size());
    added += c.added;
    removed += c.removed;
    widest = std::max(widest, c.added + c.removed);
  }
  std::string out;
  const std::size_t bar = 60;
  for (const Change& c : changes) {
    const std::size_t total = c.added + c.removed;
    std::size_t plus = c.added, minus = c.removed;
    if (widest > bar) {
      plus = (c.added * bar + widest - 1) / widest;
      minus = (c.removed * bar + widest - 1) / widest;
    }
    out += fmt::format(" {:<{}} | {:>4} {}{}\n", c.path, width, total, std::string(plus, '+'),
                       std::string(minus, '-'));
  }
  out += fmt::format(" {} {} changed, {} insertions(+), {} deletions(-)\n", changes.size(),
                     changes.size() == 1 ? "file" : "files", added, removed);
  for (const Change& c : changes) {
    if (c.created) out += fmt::format(" create mode 100644 {}\n", c.path);
    if (c.deleted) out += fmt::format(" delete mode 100644 {}\n", c.path);
  }
  return out;
}

// The first component of `relative` under `top` that is a symbolic link ("" when none is).
std::string firstLink(const fs::path& top, const fs::path& relative) {
  std::error_code ec;
  fs::path at = top, walked;
  for (const fs::path& part : relative) {
    at /= part;
    walked /= part;
    if (fs::is_symlink(at, ec)) return walked.string();
  }
  return "";
}

// Refuses `relative` when it resolves (links followed) outside the tree: a tree whose arch or
// arch/x86/lib is a link elsewhere would have the patch read, and measure, another file.
void requireInside(const std::string& root, const fs::path& canonicalRoot,
                   const std::string& relative) {
  const fs::path top(root);
  std::error_code ec;
  const fs::path resolved = fs::weakly_canonical(top / relative, ec);
  if (ec) throw TreeError(fmt::format("cannot resolve {}/{}: {}", root, relative, ec.message()));
  const fs::path inside = resolved.lexically_relative(canonicalRoot);
  if (!inside.empty() && *inside.begin() != ".." && inside.is_relative()) return;
  const std::string link = firstLink(top, relative);
  throw TreeError(fmt::format("{}/{} is a symbolic link out of the tree (to {}): refused", root,
                              link.empty() ? relative : link, resolved.string()));
}

}  // namespace

std::string KernelTree::versionText() const {
  return fmt::format("v{}.{}{}", version.first, version.second,
                     sublevel.empty() || sublevel == "0" ? "" : "." + sublevel);
}

KernelTree readKernelTree(const std::string& root, PatchTarget target) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) throw TreeError(root + " is not a directory");
  const fs::path top(root);
  if (!fs::exists(fs::symlink_status(top / "Makefile", ec)))
    throw TreeError(root + " is not a kernel tree (no Makefile)");
  if (!fs::is_directory(top / "arch/x86/lib", ec))
    throw TreeError(root + " is not an x86 kernel tree (no arch/x86/lib)");
  const fs::path canonicalRoot = fs::canonical(top, ec);
  if (ec) throw TreeError(fmt::format("cannot resolve {}: {}", root, ec.message()));
  requireInside(root, canonicalRoot, "Makefile");
  requireInside(root, canonicalRoot, "arch/x86/lib");
  KernelTree tree;
  tree.root = root;
  tree.git = fs::exists(top / ".git", ec);
  // VERSION = 6 / PATCHLEVEL = 1 / SUBLEVEL = 76 at the top of the Makefile.
  std::string makefile;
  try {
    makefile = readFileHead(top / "Makefile", 4096, Links::Refuse);
  } catch (const FileReadError& e) {
    throw TreeError(std::string("not a kernel tree: ") + e.what());
  }
  auto field = [&](const char* name) -> std::optional<std::string> {
    std::smatch m;
    const std::regex re(std::string("(^|\\n)") + name + "\\s*=\\s*([0-9]*)");
    if (std::regex_search(makefile, m, re)) return m[2].str();
    return std::nullopt;
  };
  const auto version = field("VERSION"), patchlevel = field("PATCHLEVEL");
  if (!version || !patchlevel || version->empty() || patchlevel->empty() || version->size() > 3 ||
      patchlevel->size() > 3)
    throw TreeError(root + "/Makefile has no VERSION and PATCHLEVEL: not a kernel tree");
  tree.version = {std::stoi(*version), std::stoi(*patchlevel)};
  tree.sublevel = field("SUBLEVEL").value_or("");
  if (tree.version < std::pair{5, 10})
    throw TreeError(
        fmt::format("{} is {}: csumtune patches v5.10 and later", root, tree.versionText()));
  constexpr std::size_t kMaxSource = std::size_t{1} << 20;
  auto readSource = [&](const char* path, const char* mustDefine) {
    if (!fs::exists(fs::symlink_status(top / path, ec)))
      throw TreeError(fmt::format("{} has no {}", root, path));
    requireInside(root, canonicalRoot, path);
    std::string text;
    try {
      text = readBoundedFile(top / path, {kMaxSource, Links::Refuse});
    } catch (const FileReadError& e) {
      throw TreeError(fmt::format("not the kernel's file: {}", e.what()));
    }
    if (text.find(mustDefine) == std::string::npos)
      throw TreeError(fmt::format("{}/{} does not define {}", root, path, mustDefine));
    return text;
  };
  if (target == PatchTarget::Copy) {
    tree.cFile = readSource(kCopyS, "csum_partial_copy_generic");
    if (tree.cFile.find("Generated by csumtune") != std::string::npos)
      throw TreeError(fmt::format(
          "{}/{} is csumtune's already: its csum_partial_copy_generic was replaced", root, kCopyS));
    return tree;
  }
  // (A dangling symlink in the .S's place counts as there: the patch could not create it.)
  if (fs::exists(fs::symlink_status(top / kCsumS, ec)))
    throw TreeError(
        fmt::format("{} already has {}: its csum_partial was replaced already", root, kCsumS));
  tree.cFile = readSource(kCsumC, "csum_partial");
  return tree;
}

std::string wrapParagraph(const std::string& text) {
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

std::string fileDiff(const std::string& path, const std::string& before, const std::string& after) {
  const auto oldLines = linesOf(before), newLines = linesOf(after);
  std::string out = fmt::format("diff --git a/{0} b/{0}\n", path);
  if (before.empty()) out += "new file mode 100644\n";
  if (after.empty()) out += "deleted file mode 100644\n";
  out += before.empty() ? "--- /dev/null\n" : fmt::format("--- a/{}\n", path);
  out += after.empty() ? "+++ /dev/null\n" : fmt::format("+++ b/{}\n", path);
  // A whole-file change: one hunk.
  out += fmt::format("@@ -{},{} +{},{} @@\n", oldLines.empty() ? 0 : 1, oldLines.size(),
                     newLines.empty() ? 0 : 1, newLines.size());
  auto emit = [&](const std::vector<std::string>& lines, const std::string& text, char sign) {
    for (const std::string& line : lines) out += sign + line + "\n";
    if (!text.empty() && text.back() != '\n') out += "\\ No newline at end of file\n";
  };
  emit(oldLines, before, '-');
  emit(newLines, after, '+');
  return out;
}

std::string contextDiff(const std::string& path, const std::string& before,
                        const std::string& after) {
  const auto oldLines = linesOf(before), newLines = linesOf(after);
  std::size_t head = 0;
  while (head < oldLines.size() && head < newLines.size() && oldLines[head] == newLines[head])
    ++head;
  std::size_t tail = 0;
  while (tail < oldLines.size() - head && tail < newLines.size() - head &&
         oldLines[oldLines.size() - 1 - tail] == newLines[newLines.size() - 1 - tail])
    ++tail;
  const std::size_t context = 3;
  const std::size_t from = head > context ? head - context : 0;
  const std::size_t keep = std::min(tail, context);
  const std::size_t oldEnd = oldLines.size() - tail + keep, newEnd = newLines.size() - tail + keep;
  std::string out = fmt::format("diff --git a/{0} b/{0}\n--- a/{0}\n+++ b/{0}\n", path);
  out += fmt::format("@@ -{},{} +{},{} @@\n", from + 1, oldEnd - from, from + 1, newEnd - from);
  for (std::size_t i = from; i < head; ++i) out += " " + oldLines[i] + "\n";
  for (std::size_t i = head; i < oldLines.size() - tail; ++i) out += "-" + oldLines[i] + "\n";
  for (std::size_t i = head; i < newLines.size() - tail; ++i) out += "+" + newLines[i] + "\n";
  for (std::size_t i = oldLines.size() - tail; i < oldEnd; ++i) out += " " + oldLines[i] + "\n";
  return out;
}

std::string renderPatch(const PatchText& patch) {
  std::vector<Change> changes;
  std::string diffs;
  for (const auto& [path, texts] : patch.files) {
    if (std::find(patch.contextDiffs.begin(), patch.contextDiffs.end(), path) !=
        patch.contextDiffs.end()) {
      const std::string diff = contextDiff(path, texts.first, texts.second);
      Change change{path};
      for (const std::string& line : linesOf(diff)) {
        if (line.starts_with("+") && !line.starts_with("+++")) ++change.added;
        if (line.starts_with("-") && !line.starts_with("---")) ++change.removed;
      }
      changes.push_back(change);
      diffs += diff;
      continue;
    }
    changes.push_back(changeOf(path, texts.first, texts.second));
    diffs += fileDiff(path, texts.first, texts.second);
  }
  std::sort(changes.begin(), changes.end(),
            [](const Change& a, const Change& b) { return a.path < b.path; });
  std::string out;
  if (!patch.author.empty()) {
    out += "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n";
    out += fmt::format("From: {}\nDate: {}\nSubject: [PATCH] {}\n\n", patch.author, patch.date,
                       patch.subject);
  } else {
    out += patch.subject + "\n\n";
  }
  out += patch.body;
  if (!out.empty() && out.back() != '\n') out += "\n";
  out += "---\n" + diffstat(changes) + "\n" + diffs;
  if (!patch.author.empty()) out += "-- \n" + patch.generator + "\n";
  return out;
}

void setAuthorFromTree(const KernelTree& tree, const std::string& treeArgument, PatchText& patch,
                       std::vector<std::string>& notes) {
  if (!tree.git) return;
  const GitIdentity identity = gitIdentity(tree.root);
  if (!identity.refused.empty())
    notes.push_back("the tree's git identity is not used as the patch's author: " +
                    identity.refused + ": a plain patch, not git format-patch");
  patch.author = identity.author;
  if (patch.author.empty() && identity.refused.empty())
    notes.push_back(treeArgument +
                    " has no git user.name/user.email: a plain patch, not git format-patch");
}

std::string copyrightNotice(const std::string& replacedText, const char* replacedPath) {
  std::vector<std::string> notices;
  std::size_t start = 0;
  for (int n = 0; n < 40 && start < replacedText.size(); ++n) {
    const std::size_t end = std::min(replacedText.find('\n', start), replacedText.size());
    const std::string line = replacedText.substr(start, end - start);
    start = end + 1;
    const std::size_t at = line.find("Copyright");
    if (at != std::string::npos) notices.push_back(oneLine(line.substr(at)));
  }
  if (notices.empty()) return "";
  std::string quoted;
  for (const std::string& n : notices) quoted += (quoted.empty() ? "\"" : "; \"") + n + "\"";
  return fmt::format(
      "{} carries {}: that notice goes with the code this replaces, which was that work.",
      replacedPath, quoted);
}

std::string portableResultsPath(const std::string& path) {
  const std::size_t at = path.rfind("results/");
  if (at != std::string::npos && (at == 0 || path[at - 1] == '/')) return path.substr(at);
  return std::filesystem::path(path).filename().string();
}

std::string utcRfc2822() {
  const std::time_t now = std::time(nullptr);
  char text[64];
  std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S +0000", std::gmtime(&now));
  return text;
}

std::string withoutTrailingBlankLines(std::string text) {
  while (text.size() > 1 && text.back() == '\n' && text[text.size() - 2] == '\n') text.pop_back();
  return text;
}

}  // namespace csumtune::tuner
