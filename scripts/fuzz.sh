#!/usr/bin/env bash
# Fuzzes csumtune with libFuzzer (clang, AddressSanitizer, UBSan): the Params parser, the
# results.json readers (Jit::load, show's and --resume's reader, kmod's), the command-line
# parser (every verb's options, actions replaced by nothing) and the generator
# (random points of the space, every short-path key, compiled and compared with the
# reference on random buffers). Each target runs SECONDS (default 60) from the committed
# seed corpus (tests/fuzz/corpus/<target>/), in the instrumented build that
# scripts/sanitized-build.sh makes (shared with scripts/sanitize.sh).
#
#   scripts/fuzz.sh [SECONDS]        exit 1 on a finding (its input is kept in the build directory)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
BUILD=$(scripts/sanitized-build.sh)
status=0
for target in params results generator cli; do
  work="$BUILD/corpus-$target"
  mkdir -p "$work" "$BUILD/findings-$target"
  log="$BUILD/fuzz-$target.log"
  if ASAN_OPTIONS=detect_leaks=0 "$BUILD/tests/fuzz/fuzz_$target" "$work" "tests/fuzz/corpus/$target" \
      -max_total_time="$SECONDS_EACH" -artifact_prefix="$BUILD/findings-$target/" -print_final_stats=1 \
      >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "fuzz: $target: $runs executions in ${SECONDS_EACH} s, no finding"
  else
    echo "fuzz: $target: FINDING (see $log and $BUILD/findings-$target/)"
    tail -30 "$log"
    status=1
  fi
done
exit $status
