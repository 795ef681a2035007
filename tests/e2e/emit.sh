#!/usr/bin/env bash
# emit end to end: the .S text of both styles, assembled by the system's GNU as, gives the
# same bytes as `--format bin` (the JIT's code); output files are written whole or not at all.
set -u
CSUMTUNE=${1:?usage: emit.sh path/to/csumtune}
source "$(dirname "$0")/lib.sh"
STUBS=$(cd "$(dirname "$0")/kernel-stubs" && pwd)
WORK=$(tmpdir)
HOST_FEATURES=$("$CSUMTUNE" cpu | sed -n 's/^features *//p')

# kernel_text_matches PARAMS JIT.bin KERNEL.bin: the kernel-style .text starts with the JIT's
# bytes; for a kernel that needs ADX, with the ALTERNATIVE's jump first (the stand-in keeps the
# original instruction, as a CPU without ADX runs it), then the JIT's bytes, and further on
# the ADX-free body, which is the JIT's code for the same params with carry=adc.
kernel_text_matches() {
  local p=$1 jit=$2 kbin=$3
  if [[ $p != carry=adcx* ]]; then
    local size
    size=$(stat -c %s "$jit")
    cmp -s -n "$size" "$jit" "$kbin"
    return
  fi
  "$CSUMTUNE" emit --params "${p/carry=adcx/carry=adc}" --format bin -o "$WORK/fallback.bin" || return 1
  python3 - "$jit" "$kbin" "$WORK/fallback.bin" <<'PY'
import sys
jit, text, fallback = (open(f, "rb").read() for f in sys.argv[1:])
jump = {0xE9: 5, 0xEB: 2}.get(text[0])
ok = jump is not None and text[jump:jump + len(jit)] == jit and fallback in text[jump + len(jit):]
sys.exit(0 if ok else 1)
PY
}

shapes=(
  "carry=adc,chains=4,unroll=16"
  "carry=adc,chains=8,unroll=32,prefetch=4096,hint=nta"
  "carry=adcx,chains=6,unroll=24,prefetch=192,hint=t1"
  "carry=add32,chains=1,unroll=2"
  "carry=add32,chains=7,unroll=28,prefetch=64,hint=t2"
  "carry=cmov,chains=8,unroll=16,prefetch=1024,hint=t0"
  "carry=cmov,chains=5,unroll=5"
  # bounds=aligned (issue 26): the one-load byte tail and tiny path, both entries
  "carry=adc,chains=4,unroll=16,bounds=aligned"
  "carry=adcx,chains=6,unroll=30,tail=overlap,sum=last,entry=lean,exact=40,short=128,bounds=aligned"
)
for p in "${shapes[@]}"; do
  "$CSUMTUNE" emit --params "$p" --format bin -o "$WORK/jit.bin" || { fail "emit bin $p"; continue; }
  size=$(stat -c %s "$WORK/jit.bin")
  # gas style: the whole .text is the function.
  if ! { "$CSUMTUNE" emit --params "$p" --style gas --symbol tuned -o "$WORK/gas.S" &&
         as "$WORK/gas.S" -o "$WORK/gas.o" &&
         objcopy -O binary -j .text "$WORK/gas.o" "$WORK/gas.bin"; }; then
    fail "assemble gas $p"; continue
  fi
  check "$p: gas text assembles to the JIT's $size bytes" cmp -s "$WORK/jit.bin" "$WORK/gas.bin"
  # kernel style, through the C preprocessor with stand-in kernel headers: csum_partial is
  # the first function in .text.
  if ! { "$CSUMTUNE" emit --params "$p" -o "$WORK/kernel.S" &&
         gcc -c -I"$STUBS" "$WORK/kernel.S" -o "$WORK/kernel.o" &&
         objcopy -O binary -j .text "$WORK/kernel.o" "$WORK/kernel.bin"; }; then
    fail "assemble kernel $p"; continue
  fi
  check "$p: kernel text assembles to the JIT's $size bytes" kernel_text_matches "$p" "$WORK/jit.bin" "$WORK/kernel.bin"
  if [[ $p == carry=adcx* ]]; then
    if grep -q '^ \* needs: *ADX' "$WORK/kernel.S" && grep -q '^\.Lcsum_partial_noadx:' "$WORK/kernel.S" &&
       grep -q 'ALTERNATIVE "jmp .Lcsum_partial_noadx", "", X86_FEATURE_ADX' "$WORK/kernel.S"; then
      pass "$p: kernel style names ADX and has its boot-time fallback"
    else
      fail "$p: kernel style does not name ADX or lacks its boot-time fallback"
    fi
    check "$p: gas style says it needs ADX" grep -q '^ \* needs: *ADX' "$WORK/gas.S"
  else
    check "$p: kernel style says it needs nothing beyond x86-64" grep -q '^ \* needs: *nothing beyond x86-64' "$WORK/kernel.S"
  fi
  check "$p: kernel style has ip_compute_csum" grep -q "ip_compute_csum" "$WORK/kernel.S"
done

# kind=copy: the gas text (symbol csum_and_copy) assembles to the JIT's bytes, and a C program
# linking it copies and sums right at every length 0..300 and long ones, at a spread of source
# and destination alignments, without touching the bytes around the destination.
copies=(
  "carry=adc,chains=4,unroll=16,kind=copy"
  "carry=adc,chains=6,unroll=30,tail=overlap,sum=last,entry=lean,exact=40,short=128,kind=copy"
  "carry=adcx,chains=2,unroll=8,words=loop,kind=copy"
  "carry=add32,chains=3,unroll=9,tail=overlap,kind=copy"
  "carry=cmov,chains=8,unroll=32,prefetch=256,hint=nta,exact=40,sum=last,kind=copy"
  "carry=adc,chains=6,unroll=30,tail=overlap,kind=copy,store=nt"
  "carry=avx2,chains=2,unroll=8,tail=overlap,kind=copy"
  "carry=avx512,chains=4,unroll=16,exact=40,short=256,kind=copy"
)
for p in "${copies[@]}"; do
  if ! { "$CSUMTUNE" emit --params "$p" --style gas --format bin -o "$WORK/jit.bin" &&
         "$CSUMTUNE" emit --params "$p" --style gas -o "$WORK/copy.S" &&
         as "$WORK/copy.S" -o "$WORK/copy.o" &&
         objcopy -O binary -j .text "$WORK/copy.o" "$WORK/copy.bin"; }; then
    fail "emit/assemble $p"; continue
  fi
  check "$p: gas text = JIT bytes" cmp -s "$WORK/jit.bin" "$WORK/copy.bin"
  check "$p: the .S states the copying contract" \
    grep -q "uint32_t csum_and_copy(const void \*src, void \*dst, int len, uint32_t sum)" "$WORK/copy.S"
  # Run only where this CPU has what the kernel needs (the assembly above needs nothing).
  need=$(sed -n 's/^ \* needs: *\([A-Z0-9_, ]*\):.*/\1/p' "$WORK/copy.S" | head -1)
  missing=""
  for f in ${need//,/ }; do grep -q -- "+$f" <<<"$HOST_FEATURES" || missing="$missing $f"; done
  if [[ -n $missing ]]; then
    log "$p: not run: this CPU lacks$missing"
    continue
  fi
  if gcc -O1 -o "$WORK/copy_check" "$(dirname "$0")/copy/copy_check.c" "$WORK/copy.S" &&
     out=$("$WORK/copy_check"); then
    pass "$p: linked from C: $out"
  else
    fail "$p: linked from C: ${out:-did not build}"
  fi
done
# kind=copy in kernel style: csum_partial_copy_generic(src, dst, len), an exception-table
# entry on every load and store. Through the stand-in headers (whose _ASM_EXTABLE_UA fills a
# table) the text assembles to the JIT's bytes for that signature followed by the fixups, and
# fault_check.c runs it with the table honoured: sums and copies right, and every copy that
# runs into an inaccessible page returns 0 with the stack and callee-saved registers intact.
for p in "${copies[@]}"; do
  [[ $p == carry=avx* ]] && continue
  if ! { "$CSUMTUNE" emit --params "$p" --format bin -o "$WORK/kjit.bin" &&
         "$CSUMTUNE" emit --params "$p" -o "$WORK/kcopy.S" &&
         gcc -c -I"$STUBS" "$WORK/kcopy.S" -o "$WORK/kcopy.o" &&
         objcopy -O binary -j .text "$WORK/kcopy.o" "$WORK/kcopy.bin"; }; then
    fail "emit/assemble kernel-style $p"; continue
  fi
  check "$p: kernel-style copy = JIT bytes + fixups" kernel_text_matches "$p" "$WORK/kjit.bin" "$WORK/kcopy.bin"
  check "$p: kernel style is csum_partial_copy_generic" \
    grep -q "^SYM_FUNC_START(csum_partial_copy_generic)" "$WORK/kcopy.S"
  entries=$(grep -c "_ASM_EXTABLE_UA" "$WORK/kcopy.S")
  if gcc -O1 -I"$STUBS" -o "$WORK/fault_check" "$(dirname "$0")/copy/fault_check.c" "$WORK/kcopy.S" -Wl,-z,noexecstack &&
     out=$("$WORK/fault_check"); then
    pass "$p: kernel style ($entries exception-table entries) under fault_check: $out"
  else
    fail "$p: kernel style under fault_check: ${out:-did not build or crashed}"
  fi
done

expect --as "kind=copy of avx2 in kernel style" --message 2 -- \
  "$CSUMTUNE" emit --params carry=avx2,chains=2,unroll=8,kind=copy -o "$WORK/copy-kernel.S"
check "kind=copy of avx2 in kernel style left no file behind" test ! -e "$WORK/copy-kernel.S"
expect --as "kind=copy of avx512vnni" --message 2 -- \
  "$CSUMTUNE" emit --params carry=avx512vnni,chains=2,unroll=4,kind=copy --style gas
expect --as "kind=frob" --message 2 -- "$CSUMTUNE" emit --params carry=adc,kind=frob --style gas

# Bad input: exit 2, message, and nothing (not even a partial file) written.
expect --as "bad symbol" --message 2 -- "$CSUMTUNE" emit --params carry=adc --symbol "9-lives" -o "$WORK/bad.S"
check "bad symbol left no file behind" test ! -e "$WORK/bad.S"
expect --as "bad params" --message 2 -- "$CSUMTUNE" emit --params carry=adcx,chains=1 -o "$WORK/bad.S"
expect --as "bad style" --message 2 -- "$CSUMTUNE" emit --params carry=adc --style nasm
expect --as "bad format" --message 2 -- "$CSUMTUNE" emit --params carry=adc --format elf
expect --as "missing params" --message 2 -- "$CSUMTUNE" emit
expect --as "unwritable output" --message 2 -- "$CSUMTUNE" emit --params carry=adc -o "$WORK/no/such/dir/x.S"
check "no partial output left behind" test -z "$(ls -A "$WORK/no" 2>/dev/null)"
check "no temporary file left behind" test -z "$(compgen -G "$WORK/.bad.S.*")"

finish
