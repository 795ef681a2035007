#!/usr/bin/env bash
# csumtune merge from the command line: the portable winner of recorded tables of three CPU
# keys (tests/golden/merge/: made-up figures, nothing is timed), its text and JSON reports and
# -o, and every bad input refused with exit 2 and a message, nothing written. bench
# --candidates' own refusals come before it times anything.
set -u
CSUMTUNE=${1:?usage: merge.sh path/to/csumtune}
source "$(dirname "$0")/lib.sh"
golden="$(dirname "$0")/../golden/merge"
results="$(dirname "$0")/../../results"
scratch=$(tmpdir)
cpus=("$golden/zen4.json" "$golden/zen5.json" "$golden/intel.json")

expect 0 "" -- "$CSUMTUNE" merge --help
expect --output 0 "portable winner  carry=avx2" -- "$CSUMTUNE" merge "${cpus[@]}"
expect --output 0 "no CPU's own best" -- "$CSUMTUNE" merge --kernel-safe "${cpus[@]}"
check "the kernel-safe winner is the adc 4x16 kernel" \
  contains "$last_output" "portable winner  carry=adc,chains=4,unroll=16,prefetch=0,hint=t0" \
  "worst speed-up   1.250x" "slower than its own best"

# JSON, written atomically to -o: the same pick, every CPU with its own best.
expect 0 "" -- "$CSUMTUNE" merge --kernel-safe --format json -o "$scratch/merged.json" "${cpus[@]}"
if python3 - "$scratch/merged.json" <<'PY'; then
import json, sys
j = json.load(open(sys.argv[1]))
assert j["schema"] == "csumtune-merge/1" and j["kernel_safe"] is True
kernel = j["profiles"][0]
assert kernel["profile"] == "kernel"
assert kernel["winner"]["params"] == "carry=adc,chains=4,unroll=16,prefetch=0,hint=t0"
assert len(kernel["cpus"]) == 3 and not kernel["own_winner_somewhere"]
assert all(c["share_of_own_best"] < 1 for c in kernel["cpus"])
PY
  pass "merge --format json -o writes the pick and every CPU"
else
  fail "merge --format json -o: unexpected JSON"
fi

# The committed tune runs of the kernel profile on two CPU keys merge over the kernels both
# searches measured.
expect --output 0 "profile kernel" -- "$CSUMTUNE" merge --kernel-safe \
  "$results/amd-19-11-1-0a1bbd54/kernel/results.json" "$results/amd-1a-02-1-5d4b381f/kernel/results.json"

# Bad input: exit 2, a message, and no output file.
bad() {
  local text=$1
  shift
  rm -f "$scratch/out.json"
  expect --message 2 "$text" -- "$CSUMTUNE" merge -o "$scratch/out.json" "$@"
  if [[ -e $scratch/out.json ]]; then fail "merge wrote a file for bad input: $*"; fi
}
bad "merge one kind at a time" "${cpus[@]}" "$golden/bad-copy-kind.json"
bad "generator 0.0.9" "$golden/zen4.json" "$golden/bad-other-version.json"
bad "appears twice" "${cpus[@]}" "$golden/zen4.json"
bad "the file was edited" "$golden/zen4.json" "$golden/bad-edited-key.json"
bad "the same sizes" "$golden/zen4.json" "$golden/bad-other-sizes.json"
bad "without candidates" "$golden/zen4.json" "$golden/bad-no-candidates.json"
bad "two or more CPU keys" "$golden/zen4.json"
bad "" "$golden/zen4.json" "$golden/bad-malformed.json"
bad "" "$golden/zen4.json" "$scratch/no-such-file.json"
echo '{"schema": "csumtune-merge/1"}' >"$scratch/other-schema.json"
bad "not a bench --candidates JSON nor a results.json" "$golden/zen4.json" "$scratch/other-schema.json"
bad "is not JSON" "$golden/zen4.json" "$0"
expect --message 2 "" -- "$CSUMTUNE" merge
expect --message 2 "" -- "$CSUMTUNE" merge --format yaml "${cpus[@]}"

# bench --candidates refuses before it times anything.
printf 'carry=adc,chains=4,unroll=16\n# a comment\ncarry=nope\n' >"$scratch/bad-list.txt"
printf 'carry=adc,chains=4,unroll=16\n' >"$scratch/list.txt"
expect --message 2 "bad-list.txt:3: bad candidate" -- \
  "$CSUMTUNE" bench --candidates "$scratch/bad-list.txt"
expect --message 2 "no such file" -- "$CSUMTUNE" bench --candidates "$scratch/none.txt"
expect --message 2 "--profile goes with --candidates" -- "$CSUMTUNE" bench --profile kernel
expect --message 2 "not --sizes" -- \
  "$CSUMTUNE" bench --candidates "$scratch/list.txt" --sizes 40
expect --message 2 "unknown --profile 'huge'" -- \
  "$CSUMTUNE" bench --candidates "$scratch/list.txt" --profile huge
printf 'carry=avx2,chains=1,unroll=4\n' >"$scratch/simd-list.txt"
expect --message 2 "this CPU can run none of the candidates" -- \
  env CSUMTUNE_DISABLE_FEATURES=AVX2 "$CSUMTUNE" bench --candidates "$scratch/simd-list.txt"

finish
