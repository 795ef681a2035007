#!/usr/bin/env bash
# The one instrumented build (clang, AddressSanitizer + UBSan, libFuzzer coverage) that both
# scripts/fuzz.sh and scripts/sanitize.sh run from: one build instead of two keeps a fresh
# machine's test run short. Idempotent; prints the build directory.
#
#   scripts/sanitized-build.sh        (CSUMTUNE_SANITIZED_BUILD overrides build-sanitized/)
set -euo pipefail
cd "$(dirname "$0")/.."
source tests/e2e/packages.sh
ensure_packages sanitized-build clang libclang-rt-14-dev >&2
BUILD=${CSUMTUNE_SANITIZED_BUILD:-build-sanitized}
mkdir -p "$BUILD"
# fuzz.sh and sanitize.sh may start together (CTest runs them side by side): one configures and
# builds while the other waits, so neither reads a half-configured folder.
(
  flock 9
  # The loop shapes are linked as .S without their frame variants (the plain build links
  # and runs those); a unity build, as scripts/build.sh makes.
  # Line tables, not full debug info: ASan's reports need only files and lines, and the
  # build runs serially in the test run, so every second of it is a second of the run.
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
    -DCMAKE_CXX_COMPILER=clang++ -DCSUMTUNE_FUZZ=ON -DCSUMTUNE_LINKED_FRAMES=OFF \
    -DCMAKE_UNITY_BUILD=ON >/dev/null
  cmake --build "$BUILD" -j"$(nproc)" \
    --target fuzz_params fuzz_results fuzz_generator fuzz_cli csumtune_tests csumtune >/dev/null
) 9>"$BUILD/.sanitized-build.lock" >&2
echo "$BUILD"
