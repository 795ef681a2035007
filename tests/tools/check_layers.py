#!/usr/bin/env python3
"""The layers of the source tree, and the rule that holds them: a file may include only from
its own layer or a lower one.

    gen, templates < runtime < tuner/src's own files < verify < measure < search < tune
                   < report, patch, merge < jobs, library < cli

Every quoted #include of every source file under gen/, runtime/ and tuner/src/ is resolved
as the compiler would (the including file's folder first, then the targets' include folders)
and its layer compared with the includer's. Two folders of one layer (report/, patch/) must
not include each other both ways. An include that resolves to no file is an error too, so a
new folder cannot slip past the table: give it a row.

Usage: check_layers.py [REPO]   (REPO defaults to the checkout this script sits in)
Exit status: 0 when the rule holds, 1 with one line per offending include otherwise.
"""

import pathlib
import re
import sys

# (path prefix, layer name, rank), the most specific prefix first. Lower ranks are lower
# layers; equal ranks may include each other (but not in a circle, checked below).
LAYERS = [
    ("gen/", "gen", 0),
    ("templates/", "templates", 0),
    ("runtime/", "runtime", 1),
    ("tuner/src/verify/", "verify", 3),
    ("tuner/src/measure/", "measure", 4),
    ("tuner/src/search/", "search", 5),
    ("tuner/src/tune/", "tune", 6),
    ("tuner/src/report/", "report", 7),
    ("tuner/src/patch/", "patch", 7),
    ("tuner/src/merge/", "merge", 7),
    ("tuner/src/jobs/", "jobs", 8),
    # The ahead-of-time library (emit --library): winners read through report/.
    ("tuner/src/library/", "library", 8),
    ("tuner/src/cli/", "cli", 9),
    # tuner/src's own files (atomic_file, source_file): helpers on gen and templates only.
    ("tuner/src/", "tuner-common", 2),
]

# The folders the build adds to the include path (target_include_directories).
INCLUDE_DIRS = [
    "tuner/src",
    "gen/include",
    "runtime/include",
    "runtime/internal",
    "templates/include",
]

# Headers the build generates (configure_file): where they belong.
GENERATED = {"csumtune/gen/version.hpp": "gen/version.hpp.in"}

SCANNED = ["gen", "runtime", "tuner/src"]
SUFFIXES = {".cpp", ".hpp", ".h", ".c", ".cc", ".S", ".def"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(rel):
    for prefix, name, rank in LAYERS:
        if rel.startswith(prefix):
            return name, rank
    return None


def resolve(repo, includer, target):
    candidates = [includer.parent / target] + [repo / d / target for d in INCLUDE_DIRS]
    for c in candidates:
        if c.is_file():
            return c.resolve().relative_to(repo).as_posix()
    return GENERATED.get(target)


def main():
    repo = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parents[2])
    repo = repo.resolve()
    problems = []
    edges = {}  # (from layer, to layer) -> an example "file:line"
    files = sorted(
        p for d in SCANNED for p in (repo / d).rglob("*") if p.is_file() and p.suffix in SUFFIXES
    )
    if not files:
        print(f"check_layers: no sources under {repo}", file=sys.stderr)
        return 2
    for path in files:
        rel = path.relative_to(repo).as_posix()
        mine = layer_of(rel)
        if mine is None:
            problems.append(f"{rel}: in no layer (add a row to LAYERS in {__file__})")
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            where = f"{rel}:{number}"
            target = resolve(repo, path, m.group(1))
            if target is None:
                problems.append(f'{where}: "{m.group(1)}" resolves to no file of the repository')
                continue
            theirs = layer_of(target)
            if theirs is None:
                problems.append(f'{where}: "{m.group(1)}" ({target}) is in no layer')
                continue
            if theirs[1] > mine[1]:
                problems.append(
                    f'{where}: "{m.group(1)}" runs up from {mine[0]} to {theirs[0]} ({target})'
                )
            if theirs[0] != mine[0]:
                edges.setdefault((mine[0], theirs[0]), where)
    # Layers of one rank: no two that include each other.
    for (a, b), where in sorted(edges.items()):
        if a < b and (b, a) in edges:
            problems.append(f"{where} and {edges[(b, a)]}: {a} and {b} include each other")
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} include(s) break the layer order", file=sys.stderr)
        return 1
    print(f"check_layers: {len(files)} files, every include points to its own or a lower layer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
