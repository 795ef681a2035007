#!/usr/bin/env bash
# Builds and runs every test: unit suites, end-to-end scripts, the installed-package check.
# Ends with the ten slowest tests (the run must stay under 40 minutes on a fresh 2-core machine)
# and, when a test failed, the lines that say what failed (scripts/failed-checks.py).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
status=0
ctest --test-dir build -j"$(nproc)" --output-on-failure --timeout 2700 | tee build/ctest.log || status=$?
echo "The ten slowest tests (seconds):"
# (awk reads all its input: no SIGPIPE under pipefail, so the status is ctest's.)
sed -nE 's/.*Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec$/\2 \1/p' build/ctest.log | sort -rn |
  awk 'NR <= 10' || true
# Last, what failed: CI keeps the end of the output, and a failed test's own lines are far above.
if [[ $status -ne 0 && -f build/Testing/Temporary/LastTest.log ]]; then
  python3 scripts/failed-checks.py build/Testing/Temporary/LastTest.log || true
fi
exit "$status"
