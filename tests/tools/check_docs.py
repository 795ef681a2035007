#!/usr/bin/env python3
"""The documentation stays true to the repository and to the binary.

    (a) every link in README.md, docs/*.md and results/README.md resolves: a relative path to
        a file or folder of the repository, and a #anchor to a heading of the target page;
        no link leaves the repository (no URL, no absolute path, no ../ that climbs out);
    (b) every long option that `csumtune --help` and `csumtune VERB --help` print (for every
        verb --help lists) appears in README.md or docs/*.md, and every verb has a row in
        README.md's verb table and a page reachable from it;
    (c) README.md stays a front door: at most 200 lines, and it links every page of docs/.

Usage: check_docs.py CSUMTUNE [REPO]   (REPO defaults to the checkout this script sits in)
Exit status: 0 when all holds, 1 with one line per problem otherwise, 2 for bad usage.
"""

import pathlib
import re
import subprocess
import sys

README_MAX_LINES = 200

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
# [text](target "title") and ![alt](target): the target up to whitespace or the closing paren.
INLINE_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
AUTOLINK = re.compile(r"<([a-zA-Z][a-zA-Z0-9+.-]*:[^>\s]*)>")
BARE_URL = re.compile(r"\b(?:https?|ftp)://\S+")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
LONG_OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def prose_lines(text):
    """(line number, line) outside fenced code blocks."""
    fenced = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m:
            if fenced is None:
                fenced = m.group(1)
            elif m.group(1) == fenced:
                fenced = None
            continue
        if fenced is None:
            yield number, line


def slug(heading):
    """The anchor GitHub gives a heading: its text as rendered, lower case, punctuation but
    hyphens and underscores dropped, spaces turned into hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link shows its text
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors_of(path, cache={}):
    if path not in cache:
        seen = {}
        anchors = set()
        for _, line in prose_lines(path.read_text(encoding="utf-8")):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            anchors.add(base if n == 0 else f"{base}-{n}")
        cache[path] = anchors
    return cache[path]


def links_of(text):
    """(line number, target) of every link outside code: inline, reference definitions,
    autolinks, and bare URLs (which GitHub turns into links)."""
    for number, line in prose_lines(text):
        m = REFERENCE_DEF.match(line)
        if m:
            yield number, m.group(1)
            continue
        line = INLINE_CODE.sub("", line)
        for m in INLINE_LINK.finditer(line):
            yield number, m.group(1)
        line = INLINE_LINK.sub("", line)
        for m in AUTOLINK.finditer(line):
            yield number, m.group(1)
        for m in BARE_URL.finditer(AUTOLINK.sub("", line)):
            yield number, m.group(0)


def check_link(repo, page, number, target, problems):
    where = f"{page.relative_to(repo).as_posix()}:{number}"
    if not target:
        problems.append(f"{where}: an empty link target")
        return None
    if SCHEME.match(target) or target.startswith("//"):
        problems.append(f"{where}: '{target}' leaves the repository (the docs stand alone)")
        return None
    if target.startswith("/"):
        problems.append(f"{where}: '{target}' is an absolute path; link relative to the page")
        return None
    path_part, _, anchor = target.partition("#")
    resolved = (page.parent / path_part).resolve() if path_part else page.resolve()
    try:
        resolved.relative_to(repo)
    except ValueError:
        problems.append(f"{where}: '{target}' climbs out of the repository")
        return None
    if not resolved.exists():
        problems.append(f"{where}: '{target}' names no file of the repository")
        return None
    if anchor:
        if resolved.is_file() and resolved.suffix == ".md":
            if anchor not in anchors_of(resolved):
                problems.append(
                    f"{where}: '{target}': {resolved.relative_to(repo).as_posix()} has no "
                    f"heading with the anchor #{anchor}"
                )
        else:
            problems.append(f"{where}: '{target}': an anchor into a file that is not markdown")
    return resolved


def help_text(binary, *args):
    result = subprocess.run(
        [binary, *args, "--help"], capture_output=True, text=True, timeout=120, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(
            f"'{binary} {' '.join(args)} --help' exited {result.returncode}: {result.stderr.strip()}"
        )
    return result.stdout


def verbs_of(top_help):
    """The verbs in the Subcommands section of `csumtune --help`."""
    verbs = []
    section = False
    for line in top_help.splitlines():
        if re.match(r"^\S.*:\s*$", line):
            section = line.strip().lower().startswith("subcommands")
            continue
        m = re.match(r"^\s{1,8}([a-z][a-z0-9-]*)(\s|$)", line)
        if section and m:
            verbs.append(m.group(1))
    return verbs


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    binary = sys.argv[1]
    here = pathlib.Path(__file__).resolve()
    repo = pathlib.Path(sys.argv[2] if len(sys.argv) == 3 else here.parents[2]).resolve()
    readme = repo / "README.md"
    docs = sorted((repo / "docs").glob("*.md"))
    pages = [readme, *docs]
    if (repo / "results" / "README.md").is_file():
        pages.append(repo / "results" / "README.md")
    missing = [p for p in (readme,) if not p.is_file()]
    if missing or not docs:
        print(f"check_docs: no README.md or docs/*.md under {repo}", file=sys.stderr)
        return 2
    problems = []

    # (a) links.
    linked_from_readme = set()
    count = 0
    for page in pages:
        for number, target in links_of(page.read_text(encoding="utf-8")):
            count += 1
            resolved = check_link(repo, page, number, target, problems)
            if page == readme and resolved is not None:
                linked_from_readme.add(resolved)

    # (c) the front door.
    readme_text = readme.read_text(encoding="utf-8")
    lines = len(readme_text.splitlines())
    if lines > README_MAX_LINES:
        problems.append(
            f"README.md: {lines} lines, more than {README_MAX_LINES}: move reference to docs/"
        )
    for doc in docs:
        if doc.resolve() not in linked_from_readme:
            problems.append(f"README.md: does not link docs/{doc.name}")

    # (b) every option the binary prints is documented.
    documented = "\n".join(p.read_text(encoding="utf-8") for p in (readme, *docs))
    try:
        top = help_text(binary)
        verbs = verbs_of(top)
        helps = {"csumtune --help": top}
        for verb in verbs:
            helps[f"csumtune {verb} --help"] = help_text(binary, verb)
    except (OSError, RuntimeError, subprocess.TimeoutExpired) as e:
        print(f"check_docs: cannot run {binary}: {e}", file=sys.stderr)
        return 2
    if not verbs:
        problems.append(f"'{binary} --help' lists no verbs under Subcommands:")
    options = {}
    for source, text in helps.items():
        for option in LONG_OPTION.findall(text):
            options.setdefault(option, source)
    for option, source in sorted(options.items()):
        if not re.search(re.escape(option) + r"(?![a-z0-9-])", documented):
            problems.append(f"{option} (printed by '{source}') appears in no page of README.md or docs/")
    for verb in verbs:
        if not re.search(r"^\|\s*`" + re.escape(verb) + r"`\s*\|", readme_text, re.MULTILINE):
            problems.append(f"README.md: the verb table has no row for `{verb}`")

    for p in problems:
        print(p)
    if problems:
        print(f"check_docs: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(
        f"check_docs: {len(pages)} pages, {count} links resolve inside the repository; "
        f"{len(options)} long options of {len(verbs)} verbs documented; README.md {lines} lines"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
