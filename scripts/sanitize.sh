#!/usr/bin/env bash
# The unit suites and the command-line checks under AddressSanitizer and UBSan, in the
# instrumented build scripts/sanitized-build.sh makes (clang; shared with scripts/fuzz.sh).
# What runs is a representative subset, since the plain build runs everything: the
# whole-space suites (AllShapes/*: every loop shape, summing and copying) for every family and
# chain count at unroll 3 (tails dominate) and 16; the suites that sweep the whole space
# through the same code paths (the golden digests, the linked-kernel and lint sweeps, which
# mostly wait on the assembler; the generator's structural sweeps; the instruction counts of
# whole shape families and of the short paths length by length (the counter's own tests stay),
# which single-step JIT code ASan does not instrument; the round trips
# of whole-space tables through results.json, whose readers fuzz_results runs instrumented)
# are left to the plain build, and so are the command-line checks' copying, size-limited and
# frame-stage tunes (CSUMTUNE_CLI_TUNES=one: the first tune and its --resume still run). The
# fault trap of the correctness checker catches SIGSEGV itself (a read past a buffer is a
# finding it reports), so ASan leaves that signal alone.
#
#   scripts/sanitize.sh        exit 1 on any finding or failed test
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=$(scripts/sanitized-build.sh)
export ASAN_OPTIONS=handle_segv=0:allow_user_segv_handler=1:detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
whole_space='GoldenBytes.*:LinkedKernels.PassTheFullCorrectnessSuite:KernelStyle.Every*'
whole_space+=':Codegen.EveryShapePassesValidation*:Codegen.NoJumpOrLoopLoadIsLonger*:Codegen.AlignedTargets*'
whole_space+=':InstructionCount.MiddleBounds*:InstructionCount.ShortTailChain*'
whole_space+=':InstructionCount.ByteLoadStraight*:InstructionCount.Block80Loop*'
whole_space+=':InstructionCount.EntryFortyExecutes*:InstructionCount.SumLastCosts*'
whole_space+=':InstructionCount.Block80Pair*:InstructionCount.EntryInline*:InstructionCount.EntryRange*'
whole_space+=':InstructionCount.SumLastLoads*'
whole_space+=':ResultsRoundTrip.EveryReaderReads*:ResultsRoundTrip.BestPrefers*'
whole_space+=':ResultsRoundTrip.ARunInterruptedAfterTheFinalists*'
"$BUILD/tests/csumtune_tests" --gtest_brief=1 --gtest_filter="-AllShapes/*:$whole_space"
"$BUILD/tests/csumtune_tests" --gtest_brief=1 --gtest_filter='AllShapes/*_u16*:AllShapes/*_u3_*:AllShapes/*_u3'
CSUMTUNE_CLI_TUNES=one tests/e2e/cli.sh "$BUILD/tuner/csumtune"
echo "sanitize: unit suites and CLI checks clean under ASan + UBSan"
