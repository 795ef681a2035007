#!/usr/bin/env python3
"""The extension points of docs/extending.md, counted: each registry line has its file, its
build line and its documentation, and each file is registered.

    carry families    every CSUMTUNE_CARRY_FAMILY(Name, function) of carry_families.def has
                      gen/src/families/<name>.cpp defining function() and naming "<name>", a
                      line in gen/CMakeLists.txt, and a value in docs/parameters.md; every
                      CpuFeature has its name and its CPUID case in runtime/src/cpu.cpp
    frame options     every key Params::toString() prints has its row in the parser's table
                      (kKeyRules) and in docs/parameters.md's table, and every row is printed
    search strategies every {name, help, run} of strategies/registry.cpp has its run function
                      declared in runners.hpp and defined in a strategies/*.cpp file that
                      tuner/CMakeLists.txt builds, and is named in docs/tuning.md and docs/cli.md
    CLI verbs         every add<Verb>Command of addAllCommands() is declared in commands.hpp,
                      defined in a tuner/src/cli/ file that tuner/CMakeLists.txt builds, names
                      its verb with add_subcommand, honours dryRun(), and has a section in
                      docs/cli.md and a row in README.md; every declared one is called

The patterns read the code as it is written today; when a registry changes shape, this
script says it cannot find it rather than passing quietly.

Usage: check_extension_points.py [REPO]   (REPO defaults to the checkout this script sits in)
Exit status: 0 when every touch point is there, 1 with one line per missing one otherwise.
"""

import pathlib
import re
import sys


class Repo:
    def __init__(self, root):
        self.root = root
        self.problems = []
        self.counted = {}

    def text(self, rel):
        path = self.root / rel
        if not path.is_file():
            self.fail(f"{rel}: missing")
            return ""
        return path.read_text(encoding="utf-8", errors="replace")

    def fail(self, message):
        self.problems.append(message)

    def count(self, what, n):
        self.counted[what] = n


def without_comments(code):
    code = re.sub(r"/\*.*?\*/", "", code, flags=re.DOTALL)
    return re.sub(r"//[^\n]*", "", code)


def cmake_sources(cmake):
    """The source paths a CMakeLists.txt names (relative to its folder)."""
    return set(re.findall(r"(?<![\w/.-])((?:src/)?[\w/.-]+\.(?:cpp|S|c))\b", cmake))


def doc_heading_words(doc):
    """The first word of every heading, backticks and a leading 'csumtune' dropped."""
    words = set()
    for line in doc.splitlines():
        m = re.match(r"^#{1,6}\s+(.*)$", line)
        if m:
            text = m.group(1).replace("`", "").split()
            if text and text[0] == "csumtune":
                text = text[1:]
            if text:
                words.add(text[0].rstrip(":"))
    return words


def check_carry_families(repo):
    defs = "gen/include/csumtune/gen/carry_families.def"
    entries = re.findall(
        r"^\s*CSUMTUNE_CARRY_FAMILY\(\s*(\w+)\s*,\s*(\w+)\s*\)", repo.text(defs), re.MULTILINE
    )
    if not entries:
        repo.fail(f"{defs}: no CSUMTUNE_CARRY_FAMILY(Name, function) line found")
    cmake = repo.text("gen/CMakeLists.txt")
    built = cmake_sources(cmake)
    params_doc = repo.text("docs/parameters.md")
    carry_row = next((l for l in params_doc.splitlines() if l.startswith("| `carry` |")), "")
    if not carry_row:
        repo.fail("docs/parameters.md: no table row for the key `carry`")
    for enum_name, function in entries:
        name = enum_name.lower()
        rel = f"gen/src/families/{name}.cpp"
        if not (repo.root / rel).is_file():
            repo.fail(f"carry family {enum_name}: {rel} missing ({defs} registers it)")
        else:
            code = without_comments(repo.text(rel))
            if not re.search(r"const\s+CarryFamily\s*&\s*" + function + r"\s*\(\s*\)\s*\{", code):
                repo.fail(f"carry family {enum_name}: {rel} does not define {function}()")
            if f'"{name}"' not in code:
                repo.fail(f'carry family {enum_name}: {rel} does not name it "{name}" in its traits')
        if f"src/families/{name}.cpp" not in built:
            repo.fail(f"carry family {enum_name}: src/families/{name}.cpp is not in gen/CMakeLists.txt")
        if carry_row and f"`{name}`" not in carry_row:
            repo.fail(f"carry family {enum_name}: `{name}` is not in docs/parameters.md's carry row")
    # Every family file is registered (helpers such as vector_family.cpp define no family).
    functions = {f for _, f in entries}
    for path in sorted((repo.root / "gen/src/families").glob("*.cpp")):
        code = without_comments(path.read_text(encoding="utf-8", errors="replace"))
        for function in re.findall(r"const\s+CarryFamily\s*&\s*(\w+Family)\s*\(\s*\)\s*\{", code):
            if function not in functions:
                repo.fail(
                    f"gen/src/families/{path.name} defines {function}() but {defs} does not register it"
                )
    repo.count("carry families", len(entries))

    # CPU features: the enum, its names and its CPUID bits come in step.
    header = repo.text("gen/include/csumtune/gen/params.hpp")
    m = re.search(r"enum\s+class\s+CpuFeature\s*:\s*[\w:]+\s*\{([^}]*)\}", header)
    if not m:
        repo.fail("gen/include/csumtune/gen/params.hpp: enum class CpuFeature not found")
        return
    features = [f.strip() for f in m.group(1).split(",") if f.strip()]
    names = re.search(r"kFeatureNames\s*\{([^}]*)\}", repo.text("gen/src/params.cpp"))
    if not names:
        repo.fail("gen/src/params.cpp: kFeatureNames not found")
    elif len(re.findall(r'"[^"]*"', names.group(1))) != len(features):
        count = len(re.findall(r'"[^"]*"', names.group(1)))
        repo.fail(
            f"gen/src/params.cpp: kFeatureNames has {count} names for {len(features)} "
            "CpuFeature values"
        )
    cpu = repo.text("runtime/src/cpu.cpp")
    for feature in features:
        if not re.search(r"case\s+gen::CpuFeature::" + feature + r"\s*:", cpu):
            repo.fail(f"CpuFeature::{feature}: no case in runtime/src/cpu.cpp (its CPUID bit)")
    repo.count("CPU features", len(features))


def check_frame_options(repo):
    params = without_comments(repo.text("gen/src/params.cpp"))
    m = re.search(r"std::string\s+Params::toString\(\)\s*const\s*\{(.*?)\n\}", params, re.DOTALL)
    if not m:
        repo.fail("gen/src/params.cpp: Params::toString() not found")
        return
    printed = []
    for key in re.findall(r"(?:\"|,)([a-z]+)=\{\}", m.group(1)):
        if key not in printed:
            printed.append(key)
    if len(printed) < 5:
        repo.fail(f"gen/src/params.cpp: Params::toString() prints only {printed}")
    # The parser's table: one {"name", setter} row per key.
    table = re.search(r"kKeyRules\[\]\s*=\s*\{(.*?)\n\};", params, re.DOTALL)
    if not table:
        repo.fail("gen/src/params.cpp: no kKeyRules table (the parser's keys)")
        return
    parsed = re.findall(r'^\s*\{"([a-z]+)",', table.group(1), re.MULTILINE)
    for key in printed:
        if key not in parsed:
            repo.fail(f"key {key}: printed by Params::toString() but not in kKeyRules (the parser)")
    for key in parsed:
        if key not in printed:
            repo.fail(f"key {key}: in kKeyRules but Params::toString() never prints it")
    doc = repo.text("docs/parameters.md")
    for key in printed:
        if not re.search(r"^\|\s*`" + key + r"`\s*\|", doc, re.MULTILINE):
            repo.fail(f"key {key}: no row in docs/parameters.md's table")
    repo.count("Params keys", len(printed))


def check_strategies(repo):
    base = "tuner/src/search/strategies"
    registry = without_comments(repo.text(f"{base}/registry.cpp"))
    entries = re.findall(r'\{\s*"([\w-]+)"\s*,\s*"(?:[^"\\]|\\.)*"\s*,\s*(\w+)\s*\}', registry)
    if not entries:
        repo.fail(f"{base}/registry.cpp: no {{name, help, run}} line found")
    runners = without_comments(repo.text(f"{base}/runners.hpp"))
    built = cmake_sources(repo.text("tuner/CMakeLists.txt"))
    definitions = {}
    for path in sorted((repo.root / base).glob("*.cpp")):
        rel = f"src/search/strategies/{path.name}"
        if rel not in built:
            repo.fail(f"{base}/{path.name}: not in tuner/CMakeLists.txt")
        code = without_comments(path.read_text(encoding="utf-8", errors="replace"))
        for function in re.findall(r"SearchOutcome\s+(\w+)\s*\([^;{]*\)\s*\{", code):
            definitions.setdefault(function, path.name)
    tuning = repo.text("docs/tuning.md")
    cli = repo.text("docs/cli.md")
    for name, run in entries:
        if not re.search(r"SearchOutcome\s+" + run + r"\s*\(", runners):
            repo.fail(f"strategy {name}: {run} is not declared in {base}/runners.hpp")
        if run not in definitions:
            repo.fail(f"strategy {name}: {run} is defined in no {base}/*.cpp file")
        for page, text in (("docs/tuning.md", tuning), ("docs/cli.md", cli)):
            if f"`{name}`" not in text:
                repo.fail(f"strategy {name}: not named (as `{name}`) in {page}")
    repo.count("search strategies", len(entries))


def check_verbs(repo):
    cli_dir = "tuner/src/cli"
    commands = without_comments(repo.text(f"{cli_dir}/commands.cpp"))
    m = re.search(r"void\s+addAllCommands\s*\([^)]*\)\s*\{(.*?)\n\}", commands, re.DOTALL)
    if not m:
        repo.fail(f"{cli_dir}/commands.cpp: addAllCommands() not found")
        return
    called = re.findall(r"\badd(\w+)Command\s*\(", m.group(1))
    if not called:
        repo.fail(f"{cli_dir}/commands.cpp: addAllCommands() registers no add<Verb>Command")
    header = without_comments(repo.text(f"{cli_dir}/commands.hpp"))
    declared = re.findall(r"\bvoid\s+add(\w+)Command\s*\(", header)
    for verb in declared:
        if verb not in called:
            repo.fail(f"add{verb}Command: declared in commands.hpp but not called in addAllCommands()")
    built = cmake_sources(repo.text("tuner/CMakeLists.txt"))
    files = {}
    for path in sorted((repo.root / cli_dir).glob("*.cpp")):
        code = without_comments(path.read_text(encoding="utf-8", errors="replace"))
        if path.name != "main.cpp" and f"src/cli/{path.name}" not in built:
            repo.fail(f"{cli_dir}/{path.name}: not in tuner/CMakeLists.txt")
        for verb in re.findall(r"\bvoid\s+add(\w+)Command\s*\([^)]*\)\s*\{", code):
            files[verb] = (path.name, code)
    cli_doc = doc_heading_words(repo.text("docs/cli.md"))
    readme = repo.text("README.md")
    for verb in called:
        if verb not in declared:
            repo.fail(f"add{verb}Command: called in addAllCommands() but not declared in commands.hpp")
        if verb not in files:
            repo.fail(f"add{verb}Command: defined in no {cli_dir}/*.cpp file")
            continue
        name, code = files[verb]
        body = code[code.index(f"add{verb}Command") :]
        sub = re.search(r'add_subcommand\(\s*"([a-z][\w-]*)"', body)
        if not sub:
            repo.fail(f"{cli_dir}/{name}: add{verb}Command names no verb with add_subcommand(\"...\")")
            continue
        word = sub.group(1)
        if "dryRun()" not in code:
            repo.fail(f"verb {word}: {cli_dir}/{name} never checks dryRun() (the CLI fuzz target)")
        if word not in cli_doc:
            repo.fail(f"verb {word}: no section (## {word}) in docs/cli.md")
        if not re.search(r"^\|\s*`" + re.escape(word) + r"`\s*\|", readme, re.MULTILINE):
            repo.fail(f"verb {word}: no row in README.md's verb table")
    repo.count("CLI verbs", len(called))


def main():
    here = pathlib.Path(__file__).resolve()
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else here.parents[2]).resolve()
    if not (root / "gen").is_dir() or not (root / "tuner").is_dir():
        print(f"check_extension_points: {root} is not a csumtune checkout", file=sys.stderr)
        return 2
    repo = Repo(root)
    check_carry_families(repo)
    check_frame_options(repo)
    check_strategies(repo)
    check_verbs(repo)
    for p in repo.problems:
        print(p)
    if repo.problems:
        print(f"check_extension_points: {len(repo.problems)} touch point(s) missing", file=sys.stderr)
        return 1
    print("check_extension_points: every touch point there: " +
          ", ".join(f"{n} {what}" for what, n in repo.counted.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
