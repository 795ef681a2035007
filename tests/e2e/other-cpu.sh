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
key_of() { "$@" "$CSUMTUNE" cpu --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])'; }
own=$(key_of env)
export CSUMTUNE_DISABLE_FEATURES=ADX,AVX2,AVX512F,AVX512_VNNI
other=$(key_of env)
echo "other-cpu: this host is $own; masked, it is $other"
[[ -n $other && $other != "$own" ]] || { echo "other-cpu: FAIL: the masked CPU has the same key"; exit 1; }
[[ ! -e $SOURCE/results/$other ]] || { echo "other-cpu: FAIL: results/$other exists: not a CPU without results"; exit 1; }
failures=0
# (The whole-space suites depend on the features, not the identity: a subset of them.)
"$TESTS" --gtest_brief=1 --gtest_filter='-AllShapes/*' || { echo "other-cpu: FAIL: unit suites"; failures=$((failures + 1)); }
"$TESTS" --gtest_brief=1 --gtest_filter='AllShapes/*_u16*:AllShapes/*_u3_*:AllShapes/*_u3' ||
  { echo "other-cpu: FAIL: whole-space subset"; failures=$((failures + 1)); }
"$(dirname "$0")/cli.sh" "$CSUMTUNE" || { echo "other-cpu: FAIL: command-line checks"; failures=$((failures + 1)); }
[[ $failures -eq 0 ]] && { echo "other-cpu: unit suites and CLI checks pass as CPU $other"; exit 0; }
exit 1
