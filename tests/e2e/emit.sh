#!/usr/bin/env bash
# emit end to end: the .S text of both styles, assembled by the system's GNU as, gives the
# same bytes as `--format bin` (the JIT's code); output files are written whole or not at all.
set -u
CSUMTUNE=${1:?usage: emit.sh path/to/csumtune}
STUBS=$(cd "$(dirname "$0")/kernel-stubs" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

shapes=(
  "carry=adc,chains=4,unroll=16"
  "carry=adc,chains=8,unroll=32,prefetch=4096,hint=nta"
  "carry=adcx,chains=6,unroll=24,prefetch=192,hint=t1"
  "carry=add32,chains=1,unroll=2"
  "carry=add32,chains=7,unroll=28,prefetch=64,hint=t2"
  "carry=cmov,chains=8,unroll=16,prefetch=1024,hint=t0"
  "carry=cmov,chains=5,unroll=5"
)
for p in "${shapes[@]}"; do
  "$CSUMTUNE" emit --params "$p" --format bin -o "$WORK/jit.bin" || { fail "emit bin $p"; continue; }
  # gas style: the whole .text is the function.
  "$CSUMTUNE" emit --params "$p" --style gas --symbol tuned -o "$WORK/gas.S" &&
    as "$WORK/gas.S" -o "$WORK/gas.o" &&
    objcopy -O binary -j .text "$WORK/gas.o" "$WORK/gas.bin" || { fail "assemble gas $p"; continue; }
  cmp -s "$WORK/jit.bin" "$WORK/gas.bin" || fail "gas bytes differ from JIT bytes for $p"
  # kernel style, through the C preprocessor with stand-in kernel headers: csum_partial is
  # the first function in .text.
  "$CSUMTUNE" emit --params "$p" -o "$WORK/kernel.S" &&
    gcc -c -I"$STUBS" "$WORK/kernel.S" -o "$WORK/kernel.o" &&
    objcopy -O binary -j .text "$WORK/kernel.o" "$WORK/kernel.bin" || { fail "assemble kernel $p"; continue; }
  size=$(stat -c %s "$WORK/jit.bin")
  cmp -s -n "$size" "$WORK/jit.bin" "$WORK/kernel.bin" || fail "kernel-style bytes differ for $p"
  grep -q "ip_compute_csum" "$WORK/kernel.S" || fail "kernel style lacks ip_compute_csum"
  echo "ok:   $p: gas and kernel text assemble to the JIT's $size bytes"
done

# Bad input: exit 2, message, and nothing (not even a partial file) written.
expect2() {
  local what=$1; shift
  "$@" 2>"$WORK/err" >/dev/null
  local status=$?
  [[ $status -eq 2 ]] || { fail "$what: exit status $status, expected 2"; return; }
  [[ -s "$WORK/err" ]] || fail "$what: no message"
  echo "ok:   $what -> 2: $(head -c 100 "$WORK/err")"
}
expect2 "bad symbol" "$CSUMTUNE" emit --params carry=adc --symbol "9-lives" -o "$WORK/bad.S"
[[ -e "$WORK/bad.S" ]] && fail "bad symbol left a file behind"
expect2 "bad params" "$CSUMTUNE" emit --params carry=adcx,chains=1 -o "$WORK/bad.S"
expect2 "bad style" "$CSUMTUNE" emit --params carry=adc --style nasm
expect2 "bad format" "$CSUMTUNE" emit --params carry=adc --format elf
expect2 "missing params" "$CSUMTUNE" emit
expect2 "unwritable output" "$CSUMTUNE" emit --params carry=adc -o "$WORK/no/such/dir/x.S"
[[ -z "$(ls -A "$WORK/no" 2>/dev/null)" ]] || fail "partial output left behind"
ls -a "$WORK" | grep -q '^\.bad\.S\.' && fail "temporary file left behind"

[[ $failures -eq 0 ]] && echo "all emit checks passed" || { echo "$failures emit checks failed"; exit 1; }
