#!/usr/bin/env bash
# The suite on a CPU that is not this one: the unit suites and the command-line checks with
# CSUMTUNE_DISABLE_FEATURES masking ADX, AVX2, AVX-512 and VNNI. The CPU key then differs (the
# features are part of it), no committed results folder has it, and the space shrinks to the
# general-purpose families without adcx: whatever a test assumed of the machine it was written
# on shows here, on any machine CI runs on.
#
#   tests/e2e/other-cpu.sh CSUMTUNE UNIT_TESTS SOURCE_DIR
set -uo pipefail
CSUMTUNE=${1:?usage: other-cpu.sh CSUMTUNE UNIT_TESTS SOURCE_DIR}
TESTS=${2:?}
SOURCE=${3:?}
source "$(dirname "$0")/lib.sh"
key_of() { "$@" "$CSUMTUNE" cpu --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])'; }
own=$(key_of env)
export CSUMTUNE_DISABLE_FEATURES=ADX,AVX2,AVX512F,AVX512_VNNI
other=$(key_of env)
log "this host is $own; masked, it is $other"
[[ -n $other && $other != "$own" ]] || die "the masked CPU has the same key"
[[ ! -e $SOURCE/results/$other ]] || die "results/$other exists: not a CPU without results"
# (The whole-space suites depend on the features, not the identity: a subset of them, and
# none of the linked kernels' full plans. The sweeps whose outcome no CPU changes stay with
# the host's run: the golden digests and the generator's structural and lint sweeps (code
# generation reads no CPUID), the bytes GNU as makes of each shape, and the instruction counts of
# whole shape families and of the short paths length by length.)
host_only='AllShapes/*:LinkedKernels.PassTheFullCorrectnessSuite:GoldenBytes.*:KernelStyle.Every*'
host_only+=':Codegen.EveryShapePassesValidation*:Codegen.NoJumpOrLoopLoadIsLonger*'
host_only+=':InstructionCount.MiddleBounds*:InstructionCount.ShortTailChain*'
host_only+=':InstructionCount.ByteLoadStraight*:InstructionCount.Block80Loop*'
host_only+=':InstructionCount.EntryFortyExecutes*:InstructionCount.SumLastCosts*'
host_only+=':InstructionCount.Block80Pair*:InstructionCount.EntryInline*:InstructionCount.EntryRange*'
host_only+=':InstructionCount.SumLastLoads*:LinkedKernels.GnuAsBytesEqualJitBytes'
check "unit suites as CPU $other" "$TESTS" --gtest_brief=1 --gtest_filter="-$host_only"
check "whole-space subset as CPU $other" \
  "$TESTS" --gtest_brief=1 --gtest_filter='AllShapes/*_u16*:AllShapes/*_u3_*:AllShapes/*_u3'
# The command-line checks with one real tune and its --resume (tests/e2e/cli.sh runs the
# copying, size-limited and frame-stage tunes in the host's plain run).
check "command-line checks as CPU $other" env CSUMTUNE_CLI_TUNES=one "$(dirname "$0")/cli.sh" "$CSUMTUNE"
finish
