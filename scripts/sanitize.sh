#!/usr/bin/env bash
# The unit suites and the command-line checks under AddressSanitizer and UBSan (gcc), in a
# build directory of their own. The whole-space suites (AllShapes/*: every loop shape, summing
# and copying) run for a representative subset under the sanitizers — every family and chain
# count at unroll 3 (tails dominate) and 16 — since the plain build runs them all. The fault trap of the correctness checker catches SIGSEGV
# itself (a read past a buffer is a finding it reports), so ASan leaves that signal alone.
#
#   scripts/sanitize.sh        exit 1 on any finding or failed test
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${CSUMTUNE_SANITIZE_BUILD:-build-asan}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCSUMTUNE_SANITIZE=ON >/dev/null
cmake --build "$BUILD" -j"$(nproc)" --target csumtune_tests csumtune >/dev/null
export ASAN_OPTIONS=handle_segv=0:allow_user_segv_handler=1:detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$BUILD/tests/csumtune_tests" --gtest_brief=1 --gtest_filter='-AllShapes/*'
"$BUILD/tests/csumtune_tests" --gtest_brief=1 --gtest_filter='AllShapes/*_u16*:AllShapes/*_u3_*:AllShapes/*_u3'
tests/e2e/cli.sh "$BUILD/tuner/csumtune"
echo "sanitize: unit suites and CLI checks clean under ASan + UBSan"
