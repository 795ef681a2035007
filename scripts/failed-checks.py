#!/usr/bin/env python3
"""Prints, for each test CTest recorded as failed, the lines that say what failed.

    scripts/failed-checks.py build/Testing/Temporary/LastTest.log

scripts/test.sh runs it last: CI keeps only the end of a run's output, and a failed test's
full output sits far above it, among a thousand others. Each failed test gets its FAIL lines
(the e2e scripts' checks, Google Test's failures and the lines under them) and its last lines,
at most a screenful per test.
"""
import re
import sys

MARKERS = re.compile(r"FAIL|Failure|FAILED|error:|Error|Assertion|Traceback|Expected|Which is|"
                     r"Value of|Actual|timed out|Timeout", re.IGNORECASE)
MOST_MARKED = 12
LAST_LINES = 3


def tests(log):
    """(name, output lines, passed) for each test in a LastTest.log."""
    name, lines, inside, lines_to_skip = None, [], False, 0
    for line in log:
        line = line.rstrip("\n")
        started = re.match(r"^\d+/\d+ Test: (.+)$", line)
        if started:
            name, lines, inside = started.group(1), [], False
        elif line == "Output:":
            inside = True
            lines_to_skip = 1  # the dashes under "Output:"
        elif line == "<end of output>":
            inside = False
        elif inside and lines_to_skip:
            lines_to_skip -= 1
        elif inside:
            lines.append(line)
        elif name and re.match(r"^Test (?!time)\w+", line):
            # "Test Passed.", "Test Failed.", or another ending (a timeout, a crash).
            yield name, lines, line == "Test Passed."
            name = None


def main():
    if len(sys.argv) != 2:
        print("usage: failed-checks.py LastTest.log", file=sys.stderr)
        return 2
    try:
        log = open(sys.argv[1], errors="replace")
    except OSError as error:
        print(f"failed-checks.py: {error}", file=sys.stderr)
        return 2
    failed = [(name, lines) for name, lines, passed in tests(log) if not passed]
    for name, lines in failed:
        print(f"What failed in {name}:")
        marked = [line for line in lines if MARKERS.search(line)
                  and not line.lstrip().startswith(("ok:", "[       OK ]"))]
        # The checks' own verdicts first: a noisy log must not push them past the cap.
        marked.sort(key=lambda line: 0 if re.match(r"\s*(FAIL|\[  FAILED)", line) else 1)
        for line in marked[:MOST_MARKED]:
            print(f"  {line[:300]}")
        if len(marked) > MOST_MARKED:
            print(f"  ... and {len(marked) - MOST_MARKED} more such lines")
        print("  its last lines:")
        for line in lines[-LAST_LINES:]:
            print(f"  | {line[:300]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
