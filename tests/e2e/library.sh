#!/usr/bin/env bash
# emit --library: an ahead-of-time library built with nothing but cc, proven on CPUs this
# machine is not. From the committed runs of two CPU keys (and runs given the identity of two
# Intel models) it writes the library; the committed two-CPU example is what emit writes
# today; the library, its C example and the correctness harness (tests/library/harness.c: the
# full verification plan against a plain reference, with guard pages) build with cc and with
# pkg-config's flags, statically and as a shared object (which exports csum_partial and
# csum_partial_variant only); the programs hold no asmjit code, map no memory both
# writable and executable, and need no results files. Under qemu-x86_64 -cpu MODEL the IFUNC
# resolver picks the variant each model should get (family/model and features: a model that
# lacks ADX, or AVX-512 under TCG, gets the portable body) and every sum is right. Bad input
# exits 2 and writes nothing.
#
#   tests/e2e/library.sh CSUMTUNE SOURCE_DIR
set -uo pipefail
CSUMTUNE=${1:?usage: library.sh CSUMTUNE SOURCE_DIR}
SOURCE=${2:?}
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/packages.sh"
ensure_packages library qemu-user
command -v cc >/dev/null || skip "no C compiler (cc)"
work=$(tmpdir)
ZEN4=results/amd-19-11-1-0a1bbd54
ZEN5=results/amd-1a-02-1-5d4b381f
HARNESS=$SOURCE/tests/library/harness.c
EXAMPLE=$SOURCE/examples/library/main.c

# build LIBRARY_DIR: the archive with its own Makefile, then the harness and the example.
build() {
  make -s -C "$1" >/dev/null &&
    cc -O2 -I"$1" -o "$1/harness" "$HARNESS" "$1/libcsumtune_library.a" &&
    cc -O2 -I"$1" -o "$1/checksum-aot" "$EXAMPLE" "$1/libcsumtune_library.a"
}

# emit_library OUT RUN...: emit --library from the source folder (the paths as committed).
emit_library() {
  local out=$1 args=() run
  shift
  for run in "$@"; do args+=(--results "$run"); done
  (cd "$SOURCE" && "$CSUMTUNE" emit --library "${args[@]}" -o "$out")
}

# as_model MODEL RUN OUT: the run RUN as if tuned on qemu's MODEL (its CPU fields and key as
# csumtune reads them there), winner.S beside it.
as_model() {
  local model=$1 run=$2 out=$3
  mkdir -p "$out"
  cp "$SOURCE/$run/winner.S" "$out/"
  qemu-x86_64 -cpu "$model" "$CSUMTUNE" cpu --json 2>/dev/null | python3 -c '
import json, sys
host = json.load(sys.stdin)
d = json.load(open(sys.argv[1]))
d["cpu"] = {k: host[k] for k in ("key", "vendor", "brand", "family", "model", "stepping", "microcode", "features")}
json.dump(d, open(sys.argv[2], "w"))' "$SOURCE/$run/results.json" "$out/results.json"
}

# The two committed keys' kernel-profile runs: the committed example is what emit writes.
two=$work/two-cpu
expect --as "emit --library of the two committed keys' kernel runs" 0 -- \
  emit_library "$two" "$ZEN4/kernel" "$ZEN5/kernel"
for f in csumtune_library.S csumtune_dispatch.c csumtune_library.h csumtune_library.pc Makefile; do
  check "the library folder has $f" test -s "$two/$f"
done
check "examples/library/two-cpu is what emit writes today (regenerate it when this fails)" \
  diff -r -I 'csumtune emit --library' "$SOURCE/examples/library/two-cpu" "$two"
check "the resolver is a GNU IFUNC" grep -q 'ifunc("csumtune_resolve_csum_partial")' "$two/csumtune_dispatch.c"
check "the library, its harness and its example build with cc alone" build "$two"
check "csum_partial is an indirect function (nm: i)" grep -q ' i csum_partial$' <(nm "$two/harness")
check "no asmjit code in the linked harness" lacks "$(nm "$two/harness" "$two/checksum-aot")" asmjit
shared=$(nm -D "$two/harness" 2>/dev/null | grep -c ' U ' || true)
log "the harness imports $shared dynamic symbols (libc only): $(objdump -p "$two/harness" | grep NEEDED | tr -s ' ' | tr '\n' ' ')"
check "the harness needs no library but libc" test "$(objdump -p "$two/harness" | grep -c NEEDED)" -eq 1

# This machine: the variant its CPU should get, from `csumtune cpu --json` and the two runs.
expected_here=$(env -u CSUMTUNE_DISABLE_FEATURES "$CSUMTUNE" cpu --json | python3 -c '
import json, sys
host = json.load(sys.stdin)
for path, key, needs in ((sys.argv[1], "amd-19-11-1-0a1bbd54", []), (sys.argv[2], "amd-1a-02-1-5d4b381f", ["ADX"])):
    cpu = json.load(open(path))["cpu"]
    if all(cpu[f] == host[f] for f in ("vendor", "family", "model")) and all(host["features"][n] for n in needs):
        print(key)
        sys.exit()
print("portable")' "$SOURCE/$ZEN4/kernel/results.json" "$SOURCE/$ZEN5/kernel/results.json")
empty=$(tmpdir)
expect --output --as "this machine: the harness picks $expected_here and every sum is right, in an empty folder with an empty environment" \
  0 "variant $expected_here" -- env -i -C "$empty" "$two/harness" "$expected_here"
log "$last_output"
check "a static link works too (the resolver runs before libc's start-up sets the canary)" \
  cc -O2 -static -I"$two" -o "$two/harness-static" "$HARNESS" "$two/libcsumtune_library.a"
expect --output --as "the static harness passes" 0 "variant $expected_here" -- "$two/harness-static" "$expected_here"

# A shared object of the same objects exports the dispatched function and the variant's name
# only (the bodies are hidden); a program linked against it runs the harness.
# (In a folder of its own: beside the archive, -lcsumtune_library would take it instead.)
so=$work/shared
mkdir -p "$so"
check "the objects link into a shared object" cc -shared -o "$so/libcsumtune_library.so" \
  "$two/csumtune_library.o" "$two/csumtune_dispatch.o"
exported=$(nm -D --defined-only "$so/libcsumtune_library.so" | awk '{print $2, $3}' | sort | tr '\n' ' ')
check "it exports csum_partial (indirect) and csum_partial_variant, no body ($exported)" \
  test "$exported" = "T csum_partial_variant i csum_partial "
check "the harness links against the shared object" \
  cc -O2 -I"$two" -o "$two/harness-shared" "$HARNESS" -L"$so" -lcsumtune_library -Wl,-rpath,"$so"
expect --output --as "the harness passes through the shared object" 0 "variant $expected_here" -- \
  "$two/harness-shared" "$expected_here"

# The example, with the flags pkg-config gives from the library folder.
flags=$(PKG_CONFIG_PATH=$two pkg-config --cflags --libs csumtune_library 2>&1)
log "pkg-config --cflags --libs csumtune_library: $flags"
# shellcheck disable=SC2086
check "cc builds the example with pkg-config's flags" cc -O2 -o "$work/checksum-aot" "$EXAMPLE" $flags
printf '\x00\x01\xf2\x03\xf4\xf5\xf6\xf7' >"$work/rfc1071"
: >"$work/empty"
printf '\xff%.0s' $(seq 1 4096) >"$work/ones"
printf 'Hello, world!' >"$work/hello"
expected="0d22  $work/rfc1071
ffff  $work/empty
0000  $work/ones
b3be  $work/hello"
got=$(env -i "$work/checksum-aot" "$work/rfc1071" "$work/empty" "$work/ones" "$work/hello" 2>"$work/origin")
check "the example prints the known checksums (RFC 1071's example, empty, all-0xff, odd length)" \
  test "$got" = "$expected"
check "the example says the body it runs ($(cat "$work/origin"))" grep -q "body: $expected_here" "$work/origin"

# CPUs this machine is not. The Zen 4 and Zen 5 keys' family/model on qemu's EPYC-Milan; two
# Intel models given runs of their own (the Zen 5 winner, adcx: needs ADX, which Broadwell has
# and Haswell lacks).
as_model Broadwell "$ZEN5/kernel" "$work/runs/broadwell"
as_model Haswell "$ZEN5/kernel" "$work/runs/haswell"
four=$work/four-cpu
expect --as "emit --library of four CPUs' runs" 0 -- emit_library "$four" "$ZEN4/kernel" "$ZEN5/kernel" \
  "$work/runs/broadwell" "$work/runs/haswell"
check "the four-CPU library builds" build "$four"
broadwell=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cpu"]["key"])' "$work/runs/broadwell/results.json")
# model: the body the library should pick there
declare -A WANT=(
  ["EPYC-Milan,model=17"]=amd-19-11-1-0a1bbd54        # Zen 4's family 0x19 model 0x11
  ["EPYC-Milan,family=26,model=2"]=amd-1a-02-1-5d4b381f  # Zen 5's 0x1a/0x02, with ADX
  ["EPYC-Milan,family=26,model=2,-adx"]=portable     # Zen 5's family/model without ADX
  [Broadwell]=$broadwell                             # Intel, a run of its own, ADX
  [Haswell]=portable                                 # Intel, its run needs ADX: it has none
  [Westmere]=portable                                # no run, no AVX
)
for model in "${!WANT[@]}"; do
  expect --output --as "qemu -cpu $model: picks ${WANT[$model]}, every sum right" 0 "variant ${WANT[$model]}" -- \
    qemu-x86_64 -cpu "$model" "$four/harness" "${WANT[$model]}"
done

# AVX-512 winners (the imix runs): TCG has no AVX-512, so the Zen 4 model gets the portable
# body even though its family and model match.
imix=$work/imix
expect --as "emit --library of the imix runs (AVX-512 winners)" 0 -- emit_library "$imix" "$ZEN4/imix" "$ZEN5/imix"
check "the imix library builds" build "$imix"
expect --output --as "qemu -cpu EPYC-Milan,model=17 (no AVX-512): portable, not the avx512vnni body" \
  0 "variant portable" -- qemu-x86_64 -cpu EPYC-Milan,model=17 "$imix/harness" portable
expect --output --as "this machine runs the imix library's harness" 0 "wrong" -- "$imix/harness"

# Bad input: exit 2 with a message, nothing written.
(cd "$SOURCE" && tar -cf - -C "$two" . | sha256sum) >"$work/before"
bad() {
  local what=$1 text=$2
  shift 2
  expect --as "$what" 2 "$text" -- emit_library "$@"
}
bad "a copying run refused" "copying" "$work/no-lib" "$ZEN4/copy-kernel"
bad "a CPU key twice refused" "appears twice" "$work/no-lib" "$ZEN4/kernel" "$ZEN4/imix"
bad "a missing results file refused" "nope" "$work/no-lib" "$work/nope/results.json"
printf '{"schema": ' >"$work/malformed.json"
bad "a malformed results file refused" "malformed.json" "$work/no-lib" "$work/malformed.json"
bad "a CPU key's folder of several runs refused (name one)" "several runs" "$work/no-lib" "$ZEN4"
check "nothing written for refused input" test ! -e "$work/no-lib"
bad "a bad run into an existing library refused" "copying" "$two" "$ZEN4/kernel" "$ZEN4/copy-kernel"
expect --as "a fallback that needs ADX refused" 2 "every x86-64" -- \
  "$CSUMTUNE" emit --library --results "$SOURCE/$ZEN4/kernel" --fallback carry=adcx -o "$work/no-lib"
expect --as "--library without -o refused" 2 "-o DIR" -- "$CSUMTUNE" emit --library --results "$SOURCE/$ZEN4/kernel"
(cd "$SOURCE" && tar -cf - -C "$two" . | sha256sum) >"$work/after"
check "the existing library's files are unchanged by refused runs" cmp -s "$work/before" "$work/after"
finish
