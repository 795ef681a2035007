#!/usr/bin/env bash
# The .S assembles with GNU as and with clang's integrated assembler to the same bytes, and
# those are the JIT's: no pseudo-prefix or spelling only one of them accepts (clang rejects
# GNU as's `{load}`). Kernels of every carry family, summing and copying, short-path variants,
# in gas style (the whole .text against `emit --format bin`) and in kernel style (through the
# stand-in kernel headers; function by function). Then every representative loop shape and
# frame variant at once: the linked_kernels.S the unit tests link (GNU as's bytes there are
# checked against the JIT's by LinkedKernels.GnuAsBytesEqualJitBytes), function by function.
set -euo pipefail
CSUMTUNE=${1:?usage: assemblers.sh path/to/csumtune [path/to/linked_kernels.S]}
LINKED=${2:-}
STUBS=$(cd "$(dirname "$0")/kernel-stubs" && pwd)
source "$(dirname "$0")/packages.sh"
command -v as >/dev/null || die "GNU as is not installed"
command -v clang >/dev/null || ensure_packages assemblers clang
command -v clang >/dev/null || die "clang is not installed"
log "$(as --version | head -1); $(clang --version | head -1)"
work=$(tmpdir)

# same_functions A.o B.o: every function symbol of A's .text is in B, of the same size and
# with the same bytes (the alignment padding between functions is the assemblers' own choice
# of NOPs, so only the functions are compared), and B has no other.
same_functions() {
  python3 - "$1" "$2" <<'PY'
import subprocess, sys

def functions(obj):
    text = subprocess.run(["objcopy", "-O", "binary", "-j", ".text", obj, "/dev/stdout"],
                          check=True, capture_output=True).stdout
    out = {}
    for line in subprocess.run(["nm", "-S", "--defined-only", obj], check=True,
                               capture_output=True, text=True).stdout.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "Tt":
            start, size = int(fields[0], 16), int(fields[1], 16)
            out[fields[3]] = text[start:start + size]
    return out

a, b = functions(sys.argv[1]), functions(sys.argv[2])
if not a:
    sys.exit("no functions in " + sys.argv[1])
if sorted(a) != sorted(b):
    sys.exit(f"different functions: {sorted(set(a) ^ set(b))[:5]}")
for name in a:
    if a[name] != b[name]:
        at = next(i for i, (x, y) in enumerate(zip(a[name] + b"\0", b[name] + b"\1")) if x != y)
        sys.exit(f"{name}: the bytes differ at offset {at} ({len(a[name])} and {len(b[name])} bytes)")
print(f"{len(a)} functions, {sum(len(v) for v in a.values())} bytes")
PY
}

# assemble_both FILE.S [CPPFLAG...]: FILE.gas.o by GNU as (through gcc for the preprocessor)
# and FILE.clang.o by clang's integrated assembler; says what either refused.
assemble_both() {
  local s=$1
  shift
  gcc -c "$@" "$s" -o "${s%.S}.gas.o" 2>"$work/gas.err" || { echo "      GNU as: $(head -c 400 "$work/gas.err")"; return 1; }
  clang -c "$@" "$s" -o "${s%.S}.clang.o" 2>"$work/clang.err" || { echo "      clang: $(head -c 400 "$work/clang.err")"; return 1; }
}

text_of() { objcopy -O binary -j .text "$1" "$2"; }

sums=(
  "carry=adc,chains=4,unroll=16"
  "carry=adc,chains=8,unroll=32,prefetch=4096,hint=nta"
  "carry=adc,chains=2,unroll=8,tail=overlap,sum=last,entry=lean,exact=40,short=128"
  "carry=adcx,chains=6,unroll=24,prefetch=192,hint=t1"
  "carry=adcx,chains=2,unroll=4,tail=overlap,entry=lean"
  "carry=add32,chains=1,unroll=2"
  "carry=add32,chains=7,unroll=28,prefetch=64,hint=t2,exact=40"
  "carry=cmov,chains=8,unroll=16,prefetch=1024,hint=t0"
  "carry=cmov,chains=5,unroll=5,sum=last"
  "carry=avx2,chains=2,unroll=8"
  "carry=avx2,chains=4,unroll=16,tail=overlap,prefetch=512"
  "carry=avx512,chains=4,unroll=16,exact=40,short=256"
  "carry=avx512,chains=8,unroll=32"
  "carry=avx512vnni,chains=3,unroll=12,prefetch=2496,hint=t2"
)
copies=(
  "carry=adc,chains=4,unroll=16,kind=copy"
  "carry=adc,chains=6,unroll=30,tail=overlap,sum=last,entry=lean,exact=40,short=128,kind=copy"
  "carry=adc,chains=6,unroll=30,tail=overlap,kind=copy,store=nt"
  "carry=adcx,chains=2,unroll=8,words=loop,kind=copy"
  "carry=add32,chains=3,unroll=9,tail=overlap,kind=copy"
  "carry=cmov,chains=8,unroll=32,prefetch=256,hint=nta,exact=40,sum=last,kind=copy"
  "carry=avx2,chains=2,unroll=8,tail=overlap,kind=copy"
  "carry=avx512,chains=4,unroll=16,exact=40,short=256,kind=copy"
)
n=0
for p in "${sums[@]}" "${copies[@]}"; do
  n=$((n + 1))
  s="$work/k$n.S"
  # gas style: the whole .text is the one function, byte for byte the JIT's.
  "$CSUMTUNE" emit --params "$p" --style gas --format bin -o "$work/k$n.jit" &&
    "$CSUMTUNE" emit --params "$p" --style gas --symbol tuned -o "$s" || { fail "emit $p"; continue; }
  if grep -q '{load}\|{store}' "$s"; then fail "$p: a pseudo-prefix clang rejects in the gas text"; fi
  if assemble_both "$s"; then
    text_of "$work/k$n.gas.o" "$work/k$n.gas.bin" && text_of "$work/k$n.clang.o" "$work/k$n.clang.bin"
    if cmp -s "$work/k$n.gas.bin" "$work/k$n.jit" && cmp -s "$work/k$n.clang.bin" "$work/k$n.jit"; then
      pass "gas style, $p: GNU as and clang give the JIT's $(stat -c %s "$work/k$n.jit") bytes"
    else
      fail "gas style, $p: GNU as $(cmp -s "$work/k$n.gas.bin" "$work/k$n.jit" && echo = || echo '!=') JIT, clang $(cmp -s "$work/k$n.clang.bin" "$work/k$n.jit" && echo = || echo '!=') JIT"
    fi
  else
    fail "gas style, $p: not assembled by both"
  fi
  # kernel style (general-purpose families): the same functions from both assemblers.
  [[ $p == carry=avx* ]] && continue
  ks="$work/k$n-kernel.S"
  "$CSUMTUNE" emit --params "$p" -o "$ks" || { fail "emit kernel style $p"; continue; }
  if grep -q '{load}\|{store}' "$ks"; then fail "$p: a pseudo-prefix clang rejects in the kernel text"; fi
  if assemble_both "$ks" -I"$STUBS"; then
    check "kernel style, $p: GNU as and clang give the same functions" \
      same_functions "$work/k$n-kernel.gas.o" "$work/k$n-kernel.clang.o"
  else
    fail "kernel style, $p: not assembled by both"
  fi
done

if [[ -n $LINKED ]]; then
  cp "$LINKED" "$work/linked.S"
  if assemble_both "$work/linked.S"; then
    check "every representative shape and frame variant ($(grep -c '^\s*\.globl' "$work/linked.S") kernels): GNU as and clang give the same functions" \
      same_functions "$work/linked.gas.o" "$work/linked.clang.o"
  else
    fail "linked_kernels.S: not assembled by both"
  fi
fi
finish
