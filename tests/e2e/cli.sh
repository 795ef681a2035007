#!/usr/bin/env bash
# The command line's contract: exit 0 on success, 1 when a check fails, 2 on bad usage or
# bad input, with a message on stderr; --help everywhere.
set -u
CSUMTUNE=${1:?usage: cli.sh path/to/csumtune}
source "$(dirname "$0")/lib.sh"
scratch=$(tmpdir)

# interrupt_tune SIGNAL DELAY OUT ARGS...: a tune into OUT in the background, the signal
# after DELAY seconds; its exit status in $status.
interrupt_tune() {
  local signal=$1 delay=$2 out=$3
  shift 3
  "$CSUMTUNE" tune "$@" --out "$out" --quiet >/dev/null 2>&1 &
  local pid=$!
  sleep "$delay"
  kill "-$signal" "$pid"
  wait "$pid"
  status=$?
}

expect 0 "" -- "$CSUMTUNE" --help
expect 0 "" -- "$CSUMTUNE" cpu --help
expect 0 "" -- "$CSUMTUNE" verify --help
expect 0 "" -- "$CSUMTUNE"
out=$("$CSUMTUNE")
if [[ $out == *tune* && $out == *patch* && $out == *verify* ]]; then
  pass "a bare csumtune lists the verbs"
else
  fail "a bare csumtune does not list the verbs: $out"
fi
expect 2 "" -- "$CSUMTUNE" frobnicate
expect 2 "verify needs --params P or --all" -- "$CSUMTUNE" verify
expect 2 "adcx needs an even chain count" -- "$CSUMTUNE" verify --params carry=adcx,chains=3,unroll=3
expect 2 "unknown key 'speed'" -- "$CSUMTUNE" verify --params speed=9
# kind=copy: verified as a copy; not timed, not a kernel module (yet), not SIMD.
if out=$("$CSUMTUNE" verify --params carry=adc,chains=4,unroll=16,exact=40,kind=copy --quick 2>&1) &&
   [[ $out == "ok    carry=adc,chains=4,unroll=16,prefetch=0,hint=t0,exact=40,kind=copy"* ]]; then
  pass "verify checks a copying kernel"
else
  fail "verify kind=copy: $out"
fi
# bench of copying kernels: against linux-csum-copy (first, the reference), copy-bound (the
# floor: loads and stores, no sum) and memcpy + the summing kernel of the same loop; not
# mixed with summing kernels.
if out=$("$CSUMTUNE" bench --baseline --params carry=adc,chains=2,unroll=8,kind=copy --sizes 40,1500 --repeat 5 --format csv 2>/dev/null) &&
   [[ $out == *"linux-csum-copy"* && $out == *"carry=adc,chains=2,unroll=8,prefetch=0,hint=t0,kind=copy"* &&
      $out == *"copy-bound"* &&
      $out == *"memcpy+carry=adc,chains=2,unroll=8,prefetch=0,hint=t0"* ]]; then
  pass "bench times a copying kernel beside linux-csum-copy and memcpy + sum"
else
  fail "bench kind=copy: $out"
fi
expect 2 "--two-pass goes with copying kernels" -- "$CSUMTUNE" bench --params carry=adc --two-pass carry=adc --sizes 64 --repeat 5
expect 2 "--two-pass takes a summing kernel" -- "$CSUMTUNE" bench --params carry=adc,kind=copy --two-pass carry=adc,kind=copy --sizes 64 --repeat 5
expect 2 "not both in one run" -- "$CSUMTUNE" bench --params carry=adc,kind=copy --params carry=adc --sizes 64 --repeat 5
expect 2 "does not exist" -- "$CSUMTUNE" bench --params carry=adc,kind=copy --baseline-source /nonexistent-csum-copy_64.S --sizes 64 --repeat 5
expect 2 "vector registers" -- "$CSUMTUNE" kmod --params carry=avx2,chains=2,unroll=8,kind=copy -o "$scratch/copy-kmod"
check "a refused kmod wrote no folder" test ! -e "$scratch/copy-kmod"
expect 2 "not avx512vnni" -- "$CSUMTUNE" verify --params carry=avx512vnni,chains=2,unroll=4,kind=copy
expect 2 "key 'kind' given twice" -- "$CSUMTUNE" verify --params carry=adc,kind=copy,kind=copy
expect 2 "--kind goes with --all" -- "$CSUMTUNE" verify --params carry=adc --kind copy
expect 2 "prefetch must be 0..4096 in steps of 64" -- "$CSUMTUNE" verify --params prefetch=10
expect 2 "needs AVX512F" -- env CSUMTUNE_DISABLE_FEATURES=AVX512F "$CSUMTUNE" verify --params carry=avx512
expect 2 "needs AVX2" -- env CSUMTUNE_DISABLE_FEATURES=AVX2 "$CSUMTUNE" bench --params carry=avx2 --repeat 5
expect 2 "vector registers" -- "$CSUMTUNE" emit --params carry=avx512vnni --style kernel
expect 2 "vector registers" -- "$CSUMTUNE" kmod --params carry=avx2 -o "$scratch/avx2-kmod"
expect 2 "" -- "$CSUMTUNE" verify --params carry=adc --all
expect 2 "" -- "$CSUMTUNE" verify --all --threads 0
expect 2 "" -- "$CSUMTUNE" cpu --bogus
expect 2 "needs ADX" -- env CSUMTUNE_DISABLE_FEATURES=ADX "$CSUMTUNE" verify --params carry=adcx,chains=2,unroll=2
expect 0 "" -- "$CSUMTUNE" verify --params carry=adc,chains=2,unroll=4 --params carry=cmov,chains=8,unroll=16
expect 0 "" -- "$CSUMTUNE" verify --quick --params carry=add32,chains=1,unroll=2
expect 0 "" -- "$CSUMTUNE" cpu

# bench: bad input is refused before anything is timed.
expect 2 "size '0' is not a length" -- "$CSUMTUNE" bench --sizes 0
expect 2 "size 'abc' is not a length" -- "$CSUMTUNE" bench --sizes 40,abc
expect 2 "" -- "$CSUMTUNE" bench --cache warm
expect 2 "" -- "$CSUMTUNE" bench --set-size 0
expect 2 "" -- "$CSUMTUNE" bench --repeat 2
expect 2 "" -- "$CSUMTUNE" bench --offset 64
expect 2 "" -- "$CSUMTUNE" bench --format xml
expect 2 "adcx needs an even chain count" -- "$CSUMTUNE" bench --params carry=adcx,chains=1
expect 2 "runs backwards" -- "$CSUMTUNE" bench --sizes 64-8
expect 2 "more than 4096 lengths" -- "$CSUMTUNE" bench --sizes 1-5000
expect 2 "not thread" -- "$CSUMTUNE" bench --count-instructions --sizes 8 --format thread
expect 2 "not --candidates" -- "$CSUMTUNE" bench --count-instructions --candidates "$(dirname "$0")/../../results/candidates.txt"
# --count-instructions: every length of a range, one count per row and length (exact; no timing).
if out=$("$CSUMTUNE" bench --count-instructions --baseline --sizes 1-3,40 --format csv 2>/dev/null) &&
  [[ $(grep -c '^"linux-v6.8",' <<<"$out") -eq 4 && $(grep -c '^"carry=adc' <<<"$out") -eq 4 ]] &&
  [[ $(head -1 <<<"$out") == name,params,kind,bytes,length,instructions,taken_branches ]] &&
  ! grep -qE ',$' <<<"$out"; then
  pass "bench --count-instructions counts every row at every length of 1-3,40 (instructions and taken branches)"
else
  fail "bench --count-instructions: $out"
fi
expect 2 "too small" -- "$CSUMTUNE" bench --cache cold --set-size 1 --sizes 1000000 --repeat 5
expect 2 "needs ADX" -- env CSUMTUNE_DISABLE_FEATURES=ADX "$CSUMTUNE" bench --params carry=adcx,chains=2,unroll=2

# bench output formats (a tiny run: a format check, not a measurement).
tiny=(bench --baseline --params "carry=adc,chains=4,unroll=16" --sizes "64,1500" --repeat 5)
if "$CSUMTUNE" "${tiny[@]}" --format json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["schema"] == "csumtune-bench/1"
assert d["unit"] in ("cycles", "tsc-ticks")
assert [k["name"] for k in d["kernels"]] == ["plain-c", "linux-v6.8", "linux-v5.17", "linux-like", "carry=adc,chains=4,unroll=16,prefetch=0,hint=t0"]
assert d["clock"]["tsc_hz"] > 1e8 and d["clock"]["core_cycles_per_unit"] > 0
assert all(r["bytes_per_core_cycle"] > 0 for k in d["kernels"] for r in k["results"])
for k in d["kernels"]:
    assert [r["size"] for r in k["results"]] == [64, 1500]
    for r in k["results"]:
        assert r["samples"] == 5 and r["iterations"] >= 1
        assert 0 < r["per_byte"]["min"] <= r["per_byte"]["median"]
assert len(d["comparisons"]) == 8 and all(c["baseline"] == "linux-v6.8" for c in d["comparisons"])
assert d["workload"]["cache"] == "hot" and d["pinned_cpu"] >= 0
'; then pass "bench --format json"; else fail "bench --format json"; fi
out=$("$CSUMTUNE" "${tiny[@]}" --format seed 2>/dev/null)
if [[ $out == *"length |     Set Sz | iterations | "*"/byte"* ]]; then
  pass "bench --format seed"
else
  fail "seed: $out"
fi
out=$("$CSUMTUNE" "${tiny[@]}" --format csv 2>/dev/null | head -1)
if [[ $out == kernel,kind,size,unit,* ]]; then
  pass "bench --format csv"
else
  fail "csv: $out"
fi
out=$("$CSUMTUNE" "${tiny[@]}" --cache cold --set-size 16 2>/dev/null)
if [[ $out == *"cold cache (set 16 MiB"*"speedup vs linux-v6.8"* ]]; then
  pass "bench --cache cold"
else
  fail "cold: $out"
fi

# tune: bad input refused before anything runs.
expect 2 "unknown profile 'nope'" -- "$CSUMTUNE" tune --profile nope
expect 2 "unknown algorithm 'annealing'" -- "$CSUMTUNE" tune --algorithm annealing
expect 2 "give --profile or --sizes, not both" -- "$CSUMTUNE" tune --profile mtu --sizes 40
expect 2 "weight 'x'" -- "$CSUMTUNE" tune --sizes 40:x
expect 2 "" -- "$CSUMTUNE" tune --budget 0
expect 2 "cannot --resume" -- "$CSUMTUNE" tune --resume --out "$scratch/fresh"
expect 2 "cannot replay" -- "$CSUMTUNE" tune --replay /nonexistent/results.json
expect 2 "--wait-quiet" -- "$CSUMTUNE" tune --wait-quiet=0
expect 2 "--wait-quiet" -- "$CSUMTUNE" tune --wait-quiet=-5
expect 2 "--wait-quiet" -- "$CSUMTUNE" tune --wait-quiet=nan
expect 2 "--wait-quiet" -- "$CSUMTUNE" tune --wait-quiet=1e300
expect 2 "--wait-quiet" -- "$CSUMTUNE" tune --wait-quiet=10s
expect 2 "--wait-quiet does not apply" -- "$CSUMTUNE" tune --replay /nonexistent/results.json --wait-quiet
expect 2 "--max-bytes" -- "$CSUMTUNE" tune --max-bytes 0
expect 2 "--max-bytes" -- "$CSUMTUNE" tune --max-bytes -1
expect 2 "--max-bytes" -- "$CSUMTUNE" tune --max-bytes 1e3
expect 2 "--max-bytes" -- "$CSUMTUNE" tune --max-bytes 99999999999999999999
expect 2 "unknown --size-preset 'huge'" -- "$CSUMTUNE" tune --size-preset huge
# (--out into a scratch folder: were a refusal to regress, the run would not land in results/.)
refusals=$(tmpdir)
expect 2 "unknown --size-preset ''" -- "$CSUMTUNE" tune --size-preset '' --out "$refusals/a"
# A limit below the space's smallest kernel is known before anything is measured.
expect 2 "fits in 1 bytes: the smallest is" -- "$CSUMTUNE" tune --max-bytes 1 --time 600 --out "$refusals/b"
expect 2 "fits in 99 bytes: the smallest is" -- "$CSUMTUNE" tune --kernel-safe --max-bytes 99 --time 600 --out "$refusals/c"
rm -rf "$refusals"
expect 2 "not both" -- "$CSUMTUNE" tune --size-preset tiny --max-bytes 400

# The plain run (cli.exit_codes) runs every tune below. The ASan run and the other-CPU run set
# CSUMTUNE_CLI_TUNES=one: there the first tune and its --resume run the whole pipeline on the
# real machine, and the copying, size-limited and frame-stage tunes, whose stages the unit
# suites replay in both runs, are left to the plain run (seconds of measuring each, more than
# twice that under ASan).
all_tunes=true
[[ ${CSUMTUNE_CLI_TUNES:-all} == one ]] && all_tunes=false
# A tiny real tune: files written, JSON of the documented schema, and --resume continues.
work=$(tmpdir)
if "$CSUMTUNE" tune --sizes 64:3,1500:1 --budget 12 --frame-shapes 0 --polish-shapes 0 --finalists 2 --out "$work/run" --quiet >"$work/out" 2>&1 &&
   python3 - "$work/run/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "csumtune-results/1" and d["complete"]
assert d["search"]["unique_evaluations"] == 12 and len(d["evaluations"]) == 12
assert all(e["status"] in ("ok", "wrong", "refused") for e in d["evaluations"])
# --finalists 2, and one more when the middle-path stage put another bound of a SIMD winner
# first; or, when the final measurement reversed the search's ranking (a slow, noisy build:
# ASan), widened by the best of each of the 7 families.
n = len(d["finalists"])
assert d["winner"]["params"].startswith("carry=") and (1 <= n <= 3 or (d["finalists_widened"] and n <= 3 + 7)), n
assert d["cpu"]["key"] and d["workload"]["profile"] == "custom"
PY
then
  if [[ -s "$work/run/winner.S" && -s "$work/run/report.md" ]]; then
    pass "tune writes results.json, winner.S, report.md"
  else
    fail "tune outputs missing"
  fi
  # What this tune just wrote, every reader of the CLI reads.
  out=$("$CSUMTUNE" show "$work/run/results.json" 2>&1)
  if [[ $out == *"winner       carry="*"verdict"* ]]; then
    pass "show reads a fresh results.json"
  else
    fail "show of a fresh run: $out"
  fi
else
  fail "tiny tune: $(cat "$work/out")"
fi
if "$CSUMTUNE" tune --sizes 64:3,1500:1 --budget 5 --frame-shapes 0 --polish-shapes 0 --finalists 1 --out "$work/run" --resume --quiet >/dev/null 2>&1 &&
   python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["evaluations"]) == 17, len(d["evaluations"]); assert sum(e["resumed"] for e in d["evaluations"]) == 12' "$work/run/results.json"; then
  pass "tune --resume keeps the earlier evaluations and adds new ones"
else
  fail "tune --resume"
fi
expect 2 "tuned for 64:3,1500:1" -- "$CSUMTUNE" tune --profile mtu --out "$work/run" --resume
expect 2 "was tuned with --max-bytes 0, this run has 296" -- "$CSUMTUNE" tune --sizes 64:3,1500:1 --size-preset tiny --out "$work/run" --resume
# tune --kind copy: copying kernels of the kernel-safe families against linux-csum-copy; the
# winner copies, winner.S is csum_partial_copy_generic with its exception table; a summing
# run cannot be resumed as a copying one.
if $all_tunes; then
if "$CSUMTUNE" tune --kind copy --kernel-safe --sizes 40:3,1500:1 --budget 8 --frame-shapes 1 --polish-shapes 0 \
     --finalists 2 --out "$work/copy" --quiet >"$work/out" 2>&1 &&
   python3 - "$work/copy/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
# (By key, not by the string's end: the winner may carry a placement after it, place=N.)
def keys(params): return dict(item.split("=") for item in params.split(","))
assert d["complete"] and keys(d["winner"]["params"]).get("kind") == "copy", d["winner"]["params"]
assert all(keys(e["params"]).get("kind") == "copy" for e in d["evaluations"])
assert d["measure"]["reference"] == "linux-csum-copy" and d["winner"]["baseline"] == "linux-csum-copy"
PY
then
  if grep -q "^SYM_FUNC_START(csum_partial_copy_generic)" "$work/copy/winner.S" &&
     grep -q "_ASM_EXTABLE_UA" "$work/copy/winner.S"; then
    pass "tune --kind copy: a copying winner against linux-csum-copy, winner.S csum_partial_copy_generic"
  else
    fail "tune --kind copy winner.S"
  fi
else
  fail "tune --kind copy: $(tail -c 400 "$work/out")"
fi
fi
expect 2 "searched sum kernels, this run searches copy kernels" -- "$CSUMTUNE" tune --kind copy --sizes 64:3,1500:1 --out "$work/run" --resume
expect 2 "--kind" -- "$CSUMTUNE" tune --kind frob
expect 2 "records sum kernels; this replay searches copy kernels" -- "$CSUMTUNE" tune --kind copy --replay "$work/run/results.json"
expect 2 "does not exist" -- "$CSUMTUNE" tune --kind copy --baseline-source "$work/none/csum-copy_64.S" --budget 1
# A size-limited tune: the winner fits, bigger candidates are recorded too-big, every output
# has the sizes.
if $all_tunes; then
if "$CSUMTUNE" tune --kernel-safe --sizes 40:7,1500:1 --budget 30 --frame-shapes 1 --finalists 2 \
     --size-preset tiny --out "$work/tiny" --quiet >/dev/null 2>&1 &&
   python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["search"]["max_bytes"] == 296 and d["search"]["too_big"] > 0, d["search"]
assert d["winner"]["bytes"] <= 296 and all(f["bytes"] <= 296 for f in d["finalists"])
assert all(e["bytes"] > 296 for e in d["evaluations"] if e["status"] == "too-big")
assert all(e["bytes"] <= 296 for e in d["evaluations"] if e["status"] == "ok")
assert d["code_size"]["max_bytes"] == 296 and d["code_size"]["pareto"]' "$work/tiny/results.json" &&
   grep -q "size:         [0-9]* bytes of code" "$work/tiny/winner.S" &&
   grep -q "## Code size" "$work/tiny/report.md" && [[ -s "$work/tiny/pareto.svg" ]] &&
   "$CSUMTUNE" show "$work/tiny/results.json" | grep -q "^size         [0-9]* bytes of code"; then
  pass "tune --size-preset tiny: the winner fits; sizes in results.json, winner.S, report.md, show"
else
  fail "tune --size-preset tiny"
fi
fi
# The size bench prints is the size of the machine code emit --format bin writes.
size=$("$CSUMTUNE" emit --params carry=adc,chains=4,unroll=8 --format bin | wc -c)
for format in table seed json csv; do
  out=$("$CSUMTUNE" bench --baseline --params carry=adc,chains=4,unroll=8 --sizes 64 --repeat 5 --format $format 2>/dev/null)
  case $format in
    table|seed) want="$size bytes of code" ;;
    json) want="\"code_bytes\": $size" ;;
    csv) want=",$size" ;;
  esac
  if [[ $out == *"$want"* ]]; then
    pass "bench --format $format shows code sizes"
  else
    fail "bench --format $format lacks '$want'"
  fi
done
# The frame stage: short-path variants of the best loop shape, on top of the budget, with an
# exact path for the profile's short length.
if $all_tunes; then
if "$CSUMTUNE" tune --kernel-safe --sizes 40:1 --budget 4 --frame-shapes 1 --finalists 1 --out "$work/frames" --quiet >/dev/null 2>&1 &&
   python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["evaluations"]) > 4 and d["search"]["phases"][-1].startswith("frames:")
assert any("exact=40" in e["params"] for e in d["evaluations"])' "$work/frames/results.json"; then
  pass "tune: the frame stage"
else
  fail "tune: the frame stage"
fi
fi
out=$("$CSUMTUNE" tune --replay "$work/run/results.json" --budget 10 --algorithm random 2>&1)
if [[ $out == *"algorithm=random"*"gap_percent="* ]]; then
  pass "tune --replay"
else
  fail "replay: $out"
fi
# Ctrl-C: the run stops after the current evaluation, saves its progress, exits 130. On a
# loaded machine (a sanitizer build beside a kernel build) the first evaluation can take more
# than the first delay, and an interrupt before it rightly saves none: wait longer then.
saved_progress='import json,sys; d=json.load(open(sys.argv[1])); assert not d["complete"] and d["winner"] is None and d["search"]["stopped_because"] == "interrupted"; sys.exit(0 if d["evaluations"] else 3)'
for delay in 2 8 30; do
  rm -rf "$work/int"
  interrupt_tune INT "$delay" "$work/int" --profile mtu --algorithm exhaustive --budget 100000 --time 0
  progress=0
  [[ $status -eq 130 ]] && { python3 -c "$saved_progress" "$work/int/results.json" || progress=$?; }
  [[ $status -ne 130 || $progress -ne 3 ]] && break
done
if [[ $status -eq 130 && $progress -eq 0 ]]; then
  pass "Ctrl-C saves progress and exits 130"
else
  fail "Ctrl-C: status $status, saved-progress check $progress"
fi
rm -rf "$work"

# show: a committed results file (written by an earlier version of the writer), and bad input.
out=$("$CSUMTUNE" show "$(dirname "$0")/../../results/amd-1a-02-1-5d4b381f/seed-kernel/results.json" 2>&1)
if [[ $out == *"winner       carry="*"verdict"* ]]; then
  pass "show results.json"
else
  fail "show: $out"
fi
expect 2 "does not exist" -- "$CSUMTUNE" show /nonexistent.json
expect 2 "not JSON" -- "$CSUMTUNE" show /etc/hostname
# show without FILE: what best() sees (here: nothing of the user's, an empty directory).
empty_xdg=$(tmpdir)
expect --output 0 "best() picks" -- env -u CSUMTUNE_RESULTS XDG_DATA_HOME="$empty_xdg" "$CSUMTUNE" show
check "show without FILE names the search path" contains "$last_output" "best() looks for runs of this CPU" "$empty_xdg/csumtune/results"
expect 2 "" -- "$CSUMTUNE" show a.json b.json
# A directory or a FIFO where a results file should be: a message, never a hang.
odd=$(tmpdir)
mkfifo "$odd/fifo.json"
mkdir "$odd/dir.json"
expect 2 "is a directory" -- timeout 10 "$CSUMTUNE" show "$odd/dir.json"
expect 2 "not a regular file" -- timeout 10 "$CSUMTUNE" show "$odd/fifo.json"
expect 2 "not a regular file" -- timeout 10 "$CSUMTUNE" kmod --results "$odd/fifo.json" -o "$odd/m"
expect 2 "is a directory" -- timeout 10 "$CSUMTUNE" tune --replay "$odd/dir.json"
mkdir "$odd/fiforun"
mkfifo "$odd/fiforun/results.json"
expect 2 "not a regular file" -- timeout 10 "$CSUMTUNE" tune --resume --out "$odd/fiforun"
rm -rf "$odd"

# Hostile input (issue 13): numbers parsed strictly, outputs checked before the work and
# written where the user means, write errors on stdout reported, bad results files refused.
expect 2 "not a number in" -- timeout 20 "$CSUMTUNE" bench --batch nan --sizes 40 --repeat 5
expect 2 "not a number in" -- timeout 20 "$CSUMTUNE" tune --time nan --budget 1
expect 2 "is not an integer" -- "$CSUMTUNE" verify --params carry=adc --quick --seed 18446744073709551616
expect 2 "is not an integer" -- "$CSUMTUNE" verify --params carry=adc --quick --seed -1
expect 2 "is not an integer" -- "$CSUMTUNE" tune --seed 1e23
expect 2 "is not a number in (0, 1e+09]" -- "$CSUMTUNE" tune --sizes 40:inf
expect 2 "is not a number in (0, 1e+09]" -- "$CSUMTUNE" tune --sizes 40:1e308
expect 2 "unknown command 'frobnicate'" -- "$CSUMTUNE" frobnicate
expect 2 "names what is not a feature: AVX512" -- env CSUMTUNE_DISABLE_FEATURES=AVX512 "$CSUMTUNE" cpu
expect 0 "" -- "$CSUMTUNE" --version
expect 2 "emit --style gas" -- "$CSUMTUNE" kmod --params carry=avx2 -o "$scratch/avx2-kmod-again"
expect 2 "is not an existing directory" -- timeout 20 "$CSUMTUNE" bench -o /missing/dir/b.txt --sizes 40 --repeat 5
expect 2 "cannot write to standard output" -- sh -c "'$CSUMTUNE' emit --params carry=adc >/dev/full"
expect 2 "cannot write to standard output" -- sh -c "'$CSUMTUNE' cpu --json >/dev/full"
hostile=$(tmpdir)
ln -s target.S "$hostile/link.S"
"$CSUMTUNE" emit --params carry=adc -o "$hostile/link.S"
if [[ -L $hostile/link.S && -s $hostile/target.S ]]; then
  pass "-o on a symlink writes its target"
else
  fail "-o on a symlink"
fi
mkfifo "$hostile/fifo"
(wc -c <"$hostile/fifo" >"$hostile/fifo.count") &
"$CSUMTUNE" emit --params carry=adc -o "$hostile/fifo"
wait
if [[ -p $hostile/fifo && $(cat "$hostile/fifo.count") -gt 100 ]]; then
  pass "-o on a FIFO writes into it"
else
  fail "-o on a FIFO"
fi
# Nobody reading the FIFO: exit 2 with a message after a short wait, not a hang.
out=$(timeout 20 "$CSUMTUNE" emit --params carry=adc -o "$hostile/fifo" 2>&1)
status=$?
if [[ $status -eq 2 && $out == *"no process is reading"* ]]; then
  pass "-o on a FIFO nobody reads -> 2"
else
  fail "-o on a FIFO nobody reads: status $status, '$out'"
fi
"$CSUMTUNE" emit --params carry=adc -o /dev/null
if [[ -c /dev/null ]]; then
  pass "-o /dev/null leaves the device"
else
  fail "/dev/null replaced"
fi
# A winner with empty params is not the default kernel in disguise; evaluations must be a list.
# The fixtures start from a committed run (another machine's) given this host's whole "cpu"
# object (vendor, family, model, stepping, brand, features, key) from `cpu --json`, so the file
# is consistent on any CPU (a key alone would be refused as edited, before the field at issue).
committed="$(dirname "$0")/../../results/amd-19-11-1-0a1bbd54/kernel"
"$CSUMTUNE" cpu --json >"$hostile/cpu.json"
cat >"$hostile/fixture.py" <<'PY'
import json, sys
def hosted(path, cpu_json):
    d = json.load(open(path))
    host = json.load(open(cpu_json))
    d["cpu"] = {k: host[k] for k in ("key", "vendor", "brand", "family", "model", "stepping",
                                     "microcode", "features")}
    return d
PY
python3 - "$committed/results.json" "$hostile" <<'PY'
import json, os, sys
sys.path.insert(0, sys.argv[2])
from fixture import hosted
src, out = sys.argv[1], sys.argv[2]
d = hosted(src, out + "/cpu.json")
d["winner"]["params"] = ""
json.dump(d, open(out + "/empty-winner.json", "w"))
d = hosted(src, out + "/cpu.json")
d["evaluations"] = {}
os.makedirs(out + "/resume", exist_ok=True)
json.dump(d, open(out + "/resume/results.json", "w"))
PY
expect 2 "winner with empty params" -- "$CSUMTUNE" kmod --results "$hostile/empty-winner.json" -o "$hostile/m"
# show: out-of-range numbers refused, not wrapped; an invalid winner refused; control bytes
# from the file escaped.
python3 - "$committed/results.json" "$hostile" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
from fixture import hosted
src, out = sys.argv[1], sys.argv[2]
for name, edit in [("big", lambda d: d["workload"]["sizes"][0].update(size=1e300)),
                   ("negative", lambda d: d["workload"]["sizes"][0].update(size=-1)),
                   ("fraction", lambda d: d["workload"]["sizes"][0].update(size=1.5)),
                   ("count", lambda d: d["search"].update(ok=-1)),
                   ("invalid", lambda d: d["winner"].update(params="carry=adcx,chains=3,unroll=9")),
                   ("escape", lambda d: d.update(host="evil\u001b[2J\u0007"))]:
    d = hosted(src, out + "/cpu.json")
    edit(d)
    json.dump(d, open(f"{out}/{name}.json", "w"))
PY
for bad in big negative fraction; do expect 2 "\"workload.sizes[0].size\" is not an integer" -- "$CSUMTUNE" show "$hostile/$bad.json"; done
expect 2 "\"search.ok\" is not an integer in 0.." -- "$CSUMTUNE" show "$hostile/count.json"
expect 2 "not a valid kernel" -- "$CSUMTUNE" show "$hostile/invalid.json"
out=$("$CSUMTUNE" show "$hostile/escape.json")
if [[ $out == *'evil\x1b[2J\x07'* && $out != *$'\e'* ]]; then
  pass "show escapes control bytes"
else
  fail "show printed control bytes"
fi
expect 2 "not an array" -- "$CSUMTUNE" tune --kernel-safe --resume --out "$hostile/resume"
# Every field, optional ones too, type- and range-checked when present: one row per edit of a
# full file, each refused (exit 2) by show, load (kmod --results reads the same way) with the
# field's name. Then bytes after the document, a key given twice.
mkdir "$hostile/rows"
python3 - "$committed/results.json" "$hostile" <<'PY' >"$hostile/rows.txt"
import json, sys
sys.path.insert(0, sys.argv[2])
from fixture import hosted
src, out = sys.argv[1], sys.argv[2]
def put(path, value):
    def edit(d):
        *parents, last = path
        for p in parents:
            d = d[p]
        if value is KeyError:
            del d[last]
        else:
            d[last] = value
    return edit
rows = [
    (("winner", "bytes"), 1.5, '"winner.bytes" is not an integer in 0..16777216'),
    (("winner", "bytes"), 2**70, '"winner.bytes" is not an integer'),
    (("winner", "bytes"), "486", '"winner.bytes" is not an integer in 0..16777216 (found a string)'),
    (("winner", "speedup"), [1], '"winner.speedup" is not an object'),
    (("winner", "verdict"), None, '"winner.verdict" is not a string'),
    (("evaluations", 0, "bytes"), -1, '"evaluations[0].bytes" is not an integer'),
    (("evaluations", 2, "per_call"), {}, '"evaluations[2].per_call" is not an array'),
    (("evaluations", 0, "params"), KeyError, '"evaluations[0].params" is missing'),
    (("code_size", "pareto"), {}, '"code_size.pareto" is not an array'),
    (("code_size", "limits", 0), "row", '"code_size.limits[0]" is not an object'),
    (("code_size", "limits", 0, "bytes"), "256", '"code_size.limits[0].bytes" is not an integer'),
    (("code_size", "limits", 1, "limit_bytes"), -256, '"code_size.limits[1].limit_bytes"'),
    (("code_size", "limits", 1, "speedup", "median"), "2", '"code_size.limits[1].speedup.median"'),
    (("contention", "phases", 0, "measurements"), -5, '"contention.phases[0].measurements" is not an integer in 0..'),
    (("contention", "probes", 0, "at"), 1, '"contention.probes[0].at" is not a string'),
    (("contention", "summary"), KeyError, '"contention.summary" is missing'),
    (("search", "phases"), "search", '"search.phases" is not an array'),
    (("search", "revisits"), 1e3, '"search.revisits" is not an integer'),
    (("search", "elapsed_seconds"), -4, '"search.elapsed_seconds" is not a finite number >= 0'),
    (("pinned_cpu",), -7, '"pinned_cpu" is not an integer in -1..'),
    (("cpu", "family"), 25.5, '"cpu.family" is not an integer in 0..4294967295'),
    (("cpu", "stepping"), KeyError, '"cpu.stepping" is missing'),
    (("cpu", "features", "ADX"), 1, '"cpu.features.ADX" is not true or false'),
    (("workload", "cache"), "warm", '"workload.cache" is not \'hot\' or \'cold\''),
    (("workload", "set_size_bytes"), -1, '"workload.set_size_bytes" is not an integer'),
    (("finalists",), {}, '"finalists" is not an array'),
    (("finalists", 0, "sizes", 0, "size"), 0, '"finalists[0].sizes[0].size" is not an integer in 1..'),
    (("sweep", 0, "cache"), "lukewarm", '"sweep[0].cache" is not'),
    (("guard", "lengths", 0), "1", '"guard.lengths[0]" is not an integer'),
    (("guard", "candidates", 0, "eligible"), "yes", '"guard.candidates[0].eligible" is not true or false'),
    (("clock", "tsc_hz"), "fast", '"clock.tsc_hz" is not a finite number'),
    (("timer", "overhead"), -1, '"timer.overhead" is not a finite number >= 0'),
    (("measure", "final_repeat"), 201.5, '"measure.final_repeat" is not an integer'),
    (("host",), 7, '"host" is not a string'),
    (("finalists_widened",), [], '"finalists_widened" is not a string'),
    (("complete",), 1, '"complete" is not true or false'),
]
for i, (path, value, message) in enumerate(rows):
    d = hosted(src, out + "/cpu.json")
    put(path, value)(d)
    name = f"{out}/rows/row{i}.json"
    json.dump(d, open(name, "w"))
    print(f"{name}\t{message}")
# Bytes after the document, a key given twice.
text = json.dumps(hosted(src, out + "/cpu.json"))
for name, data, message in [("nul", text + "\0", "NUL byte at offset"),
                            ("nulgarbage", text + "\0garbage", "NUL byte at offset"),
                            ("garbage", text + "garbage", "bytes after the JSON document"),
                            ("twodocs", text + "\n" + text, "bytes after the JSON document"),
                            ("twice", text[:-1] + ', "complete": false}', 'the key "complete" is given twice')]:
    open(f"{out}/rows/{name}.json", "w").write(data)
    print(f"{out}/rows/{name}.json\t{message}")
PY
while IFS=$'\t' read -r file message; do
  expect 2 "$message" -- "$CSUMTUNE" show "$file"
  expect 2 "$message" -- "$CSUMTUNE" kmod --results "$file" -o "$hostile/m"
done <"$hostile/rows.txt"
# Strings from the file: a 20 MB host shown cut, bidi/format controls (U+202E, U+2066, U+200F,
# U+061C) and C1 controls escaped, wherever show prints them.
python3 - "$committed/results.json" "$hostile" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
from fixture import hosted
d = hosted(sys.argv[1], sys.argv[2] + "/cpu.json")
d["host"] = "evil\u202egnp.exe\u2066\u200f\u061c\u009b" + "h" * (20 << 20)
d["created"] = "2026\u202e-11-30"
d["search"]["stopped_because"] = "budget\u2067 spent"
d["workload"]["profile"] = "kernel\u200e"
d["winner"]["verdict"] = "fast\u202a"
json.dump(d, open(sys.argv[2] + "/bidi.json", "w"))
PY
out=$("$CSUMTUNE" show "$hostile/bidi.json")
status=$?
if [[ $status -eq 0 && ${#out} -lt 5000 && $out == *'evil\u202egnp.exe\u2066\u200f\u061c\u009bhhh'*'more bytes)'* &&
      $out == *'2026\u202e-11-30'* && $out == *'budget\u2067 spent'* && $out == *'kernel\u200e'* &&
      $out == *'fast\u202a'* && $out != *$'\xe2\x80\xae'* && $out != *$'\xe2\x81\xa6'* &&
      $out != *$'\xe2\x80\x8f'* && $out != *$'\xd8\x9c'* && $out != *$'\xe2\x81\xa7'* &&
      $out != *$'\xe2\x80\x8e'* && $out != *$'\xe2\x80\xaa'* && $out != *$'\xc2\x9b'* ]]; then
  pass "show escapes bidi/format controls and cuts a 20 MB string"
else
  fail "show of bidi/long strings: status $status, ${#out} bytes: ${out:0:600}"
fi
# A run is all or nothing: an interrupted run (complete: false) naming a full winner, even with
# a winner.S beside it, is shown as incomplete and its winner refused by kmod; a finished run
# without its winner.S is shown as not used.
mkdir "$hostile/unfinished" "$hostile/nosource"
python3 - "$committed/results.json" "$hostile" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
from fixture import hosted
d = hosted(sys.argv[1], sys.argv[2] + "/cpu.json")
json.dump(d, open(sys.argv[2] + "/nosource/results.json", "w"))
d["complete"] = False
json.dump(d, open(sys.argv[2] + "/unfinished/results.json", "w"))
PY
cp "$committed/winner.S" "$hostile/unfinished/winner.S"
out=$("$CSUMTUNE" show "$hostile/unfinished/results.json" 2>&1)
if [[ $? -eq 0 && $out == *"complete     NO: the run was interrupted or failed (complete: false)"* &&
   $out == *"winner       none used"* && $out != *"verdict"* ]]; then
  pass "show says an interrupted run is incomplete and its winner not used"
else
  fail "show of an interrupted run: $out"
fi
expect 2 "complete: false" -- "$CSUMTUNE" kmod --results "$hostile/unfinished/results.json" -o "$hostile/m"
out=$("$CSUMTUNE" show "$hostile/nosource/results.json" 2>&1)
if [[ $? -eq 0 && $out == *"has no winner.S beside it"*"do not use its winner"* ]]; then
  pass "show says a run without its winner.S is not used"
else
  fail "show of a run without winner.S: $out"
fi
out=$("$CSUMTUNE" show "$committed/results.json" 2>&1)
if [[ $? -eq 0 && $out != *"not used"* && $out == *"winner       carry="* ]]; then
  pass "show of a finished run with its winner.S"
else
  fail "show of the committed run: $out"
fi
rm -rf "$hostile"

# SIGINT in the middle of a measuring phase (the winner's sweep, hot and cold over 267
# lengths: seconds long) ends the run within it, interrupted and resumable.
phase=$(tmpdir)
# (The search of 3 candidates is over in well under a second; the rest takes seconds. On a
# loaded machine, another test's run pinned to the same CPU, the interrupt can come before the
# first evaluation, and rightly saves none: wait longer then, as the Ctrl-C check does.)
state=""
for delay in 2.5 6 15; do
  rm -rf "$phase/run"
  interrupt_tune INT "$delay" "$phase/run" --kernel-safe --sizes 1500:1 --budget 3 --frame-shapes 0 --polish-shapes 0 --finalists 1
  evaluations=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["evaluations"]))' "$phase/run/results.json" 2>/dev/null)
  [[ $status -ne 130 || ${evaluations:-0} -ne 0 ]] && break
done
# No winner either: the finalists measured before the interrupt are not a verified winner.
if [[ $status -eq 130 ]] && state=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["complete"], len(d["evaluations"]), d["winner"], d["search"]["phases"]); assert not d["complete"] and d["evaluations"] and d["winner"] is None, d["winner"]' "$phase/run/results.json" 2>&1) &&
   [[ ! -e $phase/run/winner.S ]]; then
  pass "SIGINT during the finalists/guard/sweep ends the run (130, resumable, no winner)"
else
  fail "SIGINT during a measuring phase (status $status after ${delay} s): ${state:-no results.json}; $(ls "$phase/run" 2>&1 | tr '\n' ' ')"
fi
rm -rf "$phase"

# Two tunes into one folder: the second is refused while the first holds the lock; SIGTERM
# stops a run like Ctrl-C (exit 143, the status SIGTERM gives at any moment; resumable
# results.json, no temporary left behind). A run stopped before its first evaluation rightly
# saves none (under ASan on a loaded machine, two seconds can be too few): wait longer then,
# as the Ctrl-C check does.
locked=$(tmpdir)
saved_term='import json,sys; d=json.load(open(sys.argv[1])); assert not d["complete"]; sys.exit(0 if d["evaluations"] else 3)'
lock_checked=false
for delay in 2 8 30; do
  rm -rf "$locked/run"
  "$CSUMTUNE" tune --profile mtu --algorithm exhaustive --budget 100000 --time 0 --out "$locked/run" --quiet >/dev/null 2>&1 &
  first=$!
  sleep "$delay"
  if ! $lock_checked; then
    expect 2 "another csumtune run is writing into" -- "$CSUMTUNE" tune --profile mtu --budget 2 --out "$locked/run" --quiet
    lock_checked=true
  fi
  kill -TERM "$first"
  wait "$first"
  status=$?
  progress=0
  [[ $status -eq 143 ]] && { python3 -c "$saved_term" "$locked/run/results.json" || progress=$?; }
  [[ $status -ne 143 || $progress -ne 3 ]] && break
done
if [[ $status -eq 143 && $progress -eq 0 ]] && [[ -z $(find "$locked/run" -name '.*.??????') ]]; then
  pass "SIGTERM saves a resumable run, no temporaries; a second run is refused by the lock"
else
  fail "SIGTERM / lock (status $status after ${delay} s, saved-progress check $progress)"
fi
rm -rf "$locked"

# The strategy registry: --list-algorithms names every strategy, the default first.
algorithms=$("$CSUMTUNE" tune --list-algorithms)
expect 0 "" -- "$CSUMTUNE" tune --list-algorithms
if [[ $(head -1 <<<"$algorithms") == crs2 && $algorithms == *exhaustive* ]]; then
  pass "tune --list-algorithms"
else
  fail "tune --list-algorithms: $algorithms"
fi

# One spelling per idea (issue 28): -o/--out everywhere with --output still read, --format
# text|json where there is JSON with cpu --json still read, emit's --binary with its old
# --format bin, --results where a verb takes a run; help within 100 columns off a terminal.
spell=$(tmpdir)
for o in -o --out --output; do
  "$CSUMTUNE" emit --params carry=adc,chains=2,unroll=4 "$o" "$spell/emit$o.S" &&
    "$CSUMTUNE" kmod --params carry=adc,chains=2,unroll=4 "$o" "$spell/kmod$o" >/dev/null
  check "emit and kmod take $o" test -s "$spell/emit$o.S" -a -s "$spell/kmod$o/Kbuild"
done
check "emit: -o, --out and --output write the same file" cmp -s "$spell/emit-o.S" "$spell/emit--output.S"
"$CSUMTUNE" emit --params carry=adc,chains=2,unroll=4 --binary -o "$spell/new.bin"
"$CSUMTUNE" emit --params carry=adc,chains=2,unroll=4 --format bin -o "$spell/old.bin"
check "emit --binary is the old --format bin" cmp -s "$spell/new.bin" "$spell/old.bin"
expect 2 "emit needs --params P or --results FILE" -- "$CSUMTUNE" emit --style gas
expect 2 "" -- "$CSUMTUNE" emit --params carry=adc --results x.json
check "cpu --format json is cpu --json" bash -c "cmp -s <('$CSUMTUNE' cpu --format json) <('$CSUMTUNE' cpu --json)"
check "cpu --format text is cpu" bash -c "cmp -s <('$CSUMTUNE' cpu --format text) <('$CSUMTUNE' cpu)"
expect 2 "" -- "$CSUMTUNE" cpu --format csv
expect 2 "--install does not apply to --replay" -- "$CSUMTUNE" tune --replay x.json --install
expect 2 "cannot read the winner" -- "$CSUMTUNE" bench --results "$spell/none.json" --sizes 64 --repeat 5
wide=0
for verb in "" cpu verify emit bench tune show kmod patch; do
  # shellcheck disable=SC2086
  width=$("$CSUMTUNE" $verb --help | awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }')
  [[ $width -gt 100 ]] && { fail "csumtune $verb --help is $width columns wide"; wide=1; }
done
[[ $wide == 0 ]] && pass "every --help within 100 columns when not a terminal"
# bench says whether its figures can be trusted, in every format.
out=$("$CSUMTUNE" bench --params carry=adc,chains=4,unroll=16 --sizes 64 --repeat 5 --format text 2>/dev/null)
check "bench --format text: the machine and spread lines" contains "$out" "machine: " "spread: median "
out=$("$CSUMTUNE" bench --params carry=adc,chains=4,unroll=16 --sizes 64 --repeat 5 --format thread 2>/dev/null)
check "bench --format thread: the machine and spread lines" contains "$out" "machine: " "spread: median "
out=$("$CSUMTUNE" bench --params carry=adc,chains=4,unroll=16 --sizes 64 --repeat 5 --format csv 2>/dev/null)
check "bench --format csv: spread and machine columns" contains "$out" ",spread_percent,machine_disturbed"
if "$CSUMTUNE" bench --params carry=adc,chains=4,unroll=16 --sizes 64 --repeat 5 --format json -o "$spell/b.json" 2>/dev/null &&
   python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d["reliability"]
assert r["machine_watched"] and isinstance(r["machine_disturbed"], bool) and r["machine"]
assert r["reliable"] == (not r["machine_disturbed"] and r["median_spread_percent"] <= r["spread_limit_percent"])
assert all("spread_percent" in x for k in d["kernels"] for x in k["results"])' "$spell/b.json"; then
  pass "bench --format json: reliability"
else
  fail "bench --format json: reliability"
fi
out=$("$CSUMTUNE" show "$spell/b.json")
check "show of a bench file: machine and spread" contains "$out" "machine      " "spread       median"

# cpu --json is JSON with the fields scripts read.
if "$CSUMTUNE" cpu --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
for k in ("vendor", "brand", "family", "model", "stepping", "microcode", "features"):
    assert k in d, k
assert "ADX" in d["features"] and "AVX512F" in d["features"]
'; then pass "cpu --json"; else fail "cpu --json"; fi

# With ADX masked, --all skips the adcx kernels instead of running them.
out=$(CSUMTUNE_DISABLE_FEATURES=ADX "$CSUMTUNE" verify --all --quick --kernel-safe 2>/dev/null)
if [[ $? -eq 0 && $out == *"skipped (CPU lacks a feature they need)"* ]]; then
  pass "verify --all skips what the CPU cannot run"
else
  fail "verify --all with ADX masked: $out"
fi

finish
