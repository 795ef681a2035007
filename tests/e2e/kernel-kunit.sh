#!/usr/bin/env bash
# The kernel's own checksum tests on a patched tree, on CPUs with and without ADX: Debian's
# linux-source-6.12 patched by `csumtune patch` with an ADX winner (the Zen 5 kernel-safe
# winner committed under results/, carry=adcx) and an adcx copy, built with KUnit and
# lib/checksum_kunit.c (CONFIG_CHECKSUM_KUNIT=y: its 5 cases run at boot, TAP on the
# console), objtool checking every RET; booted under qemu TCG with `-cpu max` (ADX: the
# tuned body runs) and `-cpu qemu64` (no ADX: the ALTERNATIVE's jump to the adc body stays).
# Each boot must report `# checksum: pass:5 fail:0` and no oops or invalid opcode. Without
# the fallback the qemu64 boot takes "invalid opcode" at the first adcx.
#
#   tests/e2e/kernel-kunit.sh CSUMTUNE SOURCE_DIR [WORK_DIR]
#
# The tree and its build are cached in $CSUMTUNE_KERNEL_CACHE/kunit-6.12 (default
# /var/cache/csumtune-kernel). Exit 1 on any failure, 77 (skipped) when packages are missing
# and cannot be installed (not root; 1 then in CI).
set -uo pipefail
CSUMTUNE=${1:?usage: kernel-kunit.sh CSUMTUNE SOURCE_DIR [WORK_DIR]}
SOURCE=${2:?usage: kernel-kunit.sh CSUMTUNE SOURCE_DIR [WORK_DIR]}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
WORK=${3:-$(tmpdir)}
CACHE=${CSUMTUNE_KERNEL_CACHE:-/var/cache/csumtune-kernel}/kunit-6.12
source "$HERE/packages.sh"
ensure_packages kernel-kunit linux-source-6.12 xz-utils make gcc libc6-dev bc bison flex \
  libelf-dev libssl-dev patch qemu-system-x86 python3
mkdir -p "$WORK" "$CACHE"
exec 9>"$CACHE/lock"
flock 9 || die "cannot lock $CACHE"

src=$CACHE/linux-source-6.12
build=$CACHE/build
unpack_kernel_tree 6.12 "$CACHE" kernel-kunit || exit 1
restore_tree() { restore_kernel_tree 6.12 "$CACHE"; }
on_exit restore_tree
restore_tree

# tinyconfig, a serial console, KUnit with the checksum suite built in, and objtool's checks
# of every RET (6.12 spells the mitigations MITIGATION_*).
fragment=$WORK/kunit.config
cat >"$fragment" <<'EOF'
CONFIG_64BIT=y
CONFIG_PRINTK=y
CONFIG_BUG=y
CONFIG_TTY=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_KUNIT=y
CONFIG_RUNTIME_TESTING_MENU=y
CONFIG_KUNIT_DEFAULT_ENABLED=y
CONFIG_CHECKSUM_KUNIT=y
CONFIG_UNWINDER_ORC=y
CONFIG_CPU_MITIGATIONS=y
CONFIG_MITIGATION_RETPOLINE=y
CONFIG_MITIGATION_RETHUNK=y
CONFIG_MITIGATION_SLS=y
EOF
mkdir -p "$build"
if ! cmp -s "$fragment" "$build/csumtune.config"; then
  log "configuring $build (tinyconfig + KUnit + CHECKSUM_KUNIT)"
  rm -f "$build/.config"
  { make -C "$src" O="$build" tinyconfig &&
    "$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "$fragment" &&
    make -C "$src" O="$build" olddefconfig; } >"$WORK/config.log" 2>&1 ||
    die "configuring (see $WORK/config.log)"
  cp "$fragment" "$build/csumtune.config"
fi
while read -r option; do
  grep -q "^$option=y" "$build/.config" || die "$option is not set in the configured kernel"
done < <(sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=y$/\1/p' "$fragment")

# The patch: the Zen 5 kernel-safe winner (adcx, committed) and an adcx copy.
winner=$SOURCE/results/amd-1a-02-1-5d4b381f/kernel/results.json
[[ -f $winner ]] || die "$winner is missing"
"$CSUMTUNE" patch --tree "$src" --results "$winner" --no-figures -o "$WORK/csum.patch" 2>"$WORK/patch.err" ||
  die "csumtune patch: $(head -c 300 "$WORK/patch.err")"
"$CSUMTUNE" patch --tree "$src" --params carry=adcx,chains=4,unroll=12,words=loop,kind=copy --no-figures \
  -o "$WORK/copy.patch" 2>"$WORK/copy-patch.err" ||
  die "csumtune patch (copy): $(head -c 300 "$WORK/copy-patch.err")"
(cd "$src" && patch -p1 -s <"$WORK/csum.patch" && patch -p1 -s <"$WORK/copy.patch") ||
  die "the patches do not apply to linux-source-6.12"
for f in csum-partial_64.S csum-copy_64.S; do
  check "$f has a boot-time fallback for CPUs without ADX" \
    grep -q 'ALTERNATIVE "jmp \.Lcsum_partial.*_noadx", "", X86_FEATURE_ADX' "$src/arch/x86/lib/$f"
  check "$f says it needs ADX" grep -q '^ \* needs: *ADX' "$src/arch/x86/lib/$f"
done
if grep -q "ADX" "$WORK/csum.patch" && grep -q "X86_FEATURE_ADX" "$WORK/csum.patch"; then
  pass "the patch's message says the code needs ADX"
else
  fail "the patch's message does not say the code needs ADX"
fi

start=$SECONDS
if ! make -C "$src" O="$build" -j"$(nproc)" bzImage >"$WORK/build.log" 2>&1; then
  tail -20 "$WORK/build.log"; die "building the patched tree (see $WORK/build.log)"
fi
log "built the patched 6.12 tree in $((SECONDS - start)) s"
if grep -E "objtool:|WARNING:" "$WORK/build.log"; then
  fail "objtool or modpost warnings"
else
  pass "objtool and modpost clean"
fi
check "the .S was assembled" grep -q "AS.*arch/x86/lib/csum-partial_64.o" "$WORK/build.log"

# boot CPU [NAME]: the checksum suite's TAP summary from a boot on that CPU model. There is
# no init: the boot ends, as expected, with "No working init found" (and its trace), after
# the built-in KUnit suites ran; anything before that is the kernel's trouble.
boot() {
  local cpu=$1 console=$WORK/console-${2:-$1}.txt
  timeout 600 qemu-system-x86_64 -accel tcg -cpu "$cpu" -m 256 -nographic -no-reboot \
    -kernel "$build/arch/x86/boot/bzImage" \
    -append "console=ttyS0 panic=-1 kunit.filter_glob=checksum" 2>&1 | tr -d '\r' >"$console"
  sed '/No working init found/,$d' "$console" >"$console.before-init"
  summary=$(grep -o '# checksum: pass:[0-9]* fail:[0-9]* skip:[0-9]* total:[0-9]*' "$console" | head -1)
}
check_boot() {
  local cpu=$1 console=$WORK/console-$1.txt
  boot "$cpu"
  if grep -qE "invalid opcode|Oops|BUG:|general protection fault|Call Trace" "$console.before-init"; then
    fail "-cpu $cpu: the kernel oopsed ($(grep -m1 -oE 'invalid opcode.*|Oops.*|BUG:.*|Call Trace' "$console.before-init")); console $console"
  elif [[ $summary != "# checksum: pass:5 fail:0 skip:0 total:5" ]]; then
    fail "-cpu $cpu: checksum KUnit suite: ${summary:-no summary}; console $console"
  else
    pass "-cpu $cpu: $summary"
  fi
}
check_boot max
check_boot qemu64

# The test can fail: without the ALTERNATIVE (the jump to the adc body), the same kernel
# takes an invalid opcode at its first adcx on qemu64, as unpatched csumtune output did.
sed -i '/ALTERNATIVE "jmp .Lcsum_partial_noadx"/d' "$src/arch/x86/lib/csum-partial_64.S"
if make -C "$src" O="$build" -j"$(nproc)" bzImage >"$WORK/build-nofallback.log" 2>&1; then
  boot qemu64 qemu64-nofallback
  if grep -q "invalid opcode" "$WORK/console-qemu64-nofallback.txt"; then
    pass "without its fallback the ADX body oopses on qemu64 (invalid opcode), as it must"
  else
    fail "without its fallback the kernel did not oops on qemu64: the qemu64 boot proves nothing (${summary:-no summary})"
  fi
else
  fail "building the tree without the fallback (see $WORK/build-nofallback.log)"
fi
restore_tree
# The next run rebuilds from the pristine tree plus its patches: the objects of this one go.
rm -f "$build/arch/x86/lib/csum-partial_64.o"

finish
