// `csumtune patch`: the change a kernel developer would send — a tree's
// arch/x86/lib/csum-partial_64.c replaced by the emitted .S — as a unified diff with a
// kernel-style commit message (git format-patch shape for a git checkout).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace csumtune::tuner {

// A tree this cannot patch (not x86, no csum-partial_64.c, already replaced).
struct TreeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct KernelTree {
  std::string root;
  std::pair<int, int> version;  // Makefile VERSION, PATCHLEVEL
  std::string sublevel;         // SUBLEVEL as written ("" when absent)
  bool git = false;             // a git checkout (ROOT/.git exists)
  std::string cFile;            // the file the patch replaces, read (csum-partial_64.c or,
                                // for a copy, csum-copy_64.S)
  std::string versionText() const;
};

inline constexpr const char* kCsumC = "arch/x86/lib/csum-partial_64.c";
inline constexpr const char* kCsumS = "arch/x86/lib/csum-partial_64.S";
// csum_partial_copy_generic, rewritten in place by a kind=copy patch.
inline constexpr const char* kCopyS = "arch/x86/lib/csum-copy_64.S";

// Which file a patch replaces: csum-partial_64.c (by a new .S) or csum-copy_64.S.
enum class PatchTarget { Sum, Copy };

// Reads what the patch needs from `root` (for Copy, the tree's csum-copy_64.S into cFile).
// Throws TreeError.
KernelTree readKernelTree(const std::string& root, PatchTarget target = PatchTarget::Sum);

// One file's change as a unified diff hunk set, git style (`diff --git`, new/deleted file).
// `before` or `after` empty: the file is created or deleted.
std::string fileDiff(const std::string& path, const std::string& before, const std::string& after);

// One hunk from the first to the last line that differs, with three lines of context each
// side: how a patch changes a line of a file it keeps (both texts non-empty).
std::string contextDiff(const std::string& path, const std::string& before,
                        const std::string& after);

struct PatchText {
  std::string subject;  // "x86/csum: ..."
  std::string body;     // the commit message after the subject
  std::string author;   // "Name <email>" for the format-patch From: ("" = plain style)
  std::string date;     // RFC 2822, for format-patch
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>>
      files;              // path, before, after
  std::string generator;  // "csumtune 0.1.0", the signature line
  // Paths of `files` diffed as one hunk around the changed lines with three lines of context
  // (a line changed in a file the patch keeps, e.g. a Makefile), not as a whole-file change.
  std::vector<std::string> contextDiffs;
};

// A paragraph wrapped at 72 columns, as commit messages are (words never split).
std::string wrapParagraph(const std::string& text);

// The replaced file's copyright lines leave with its code: the sentence a patch's message
// says it with, in the file's own words ("" when its first 40 lines have none).
std::string copyrightNotice(const std::string& replacedText, const char* replacedPath);

// The patch: format-patch shape when `author` is set, else the message, "---", a diffstat
// and the diffs (what `patch -p1` and `git apply` take).
std::string renderPatch(const PatchText& patch);

// A git checkout's configured identity as the patch's author (format-patch shape); else a note
// in `notes` saying why it stays a plain patch. `treeArgument` is the tree as the user named it.
void setAuthorFromTree(const KernelTree& tree, const std::string& treeArgument, PatchText& patch,
                       std::vector<std::string>& notes);

// The results file as a patch's "Regenerate:" line names it: from its results/<key>/ folder on
// (where it is committed), else its file name, never a machine's absolute path.
std::string portableResultsPath(const std::string& path);

// Now, as format-patch's Date: line writes it.
std::string utcRfc2822();

// A file as a patch adds it: no blank line at the end (git and checkpatch flag one).
std::string withoutTrailingBlankLines(std::string text);

}  // namespace csumtune::tuner
