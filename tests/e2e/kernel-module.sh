#!/usr/bin/env bash
# The .S inside a real Linux kernel: for the committed winners and one shape of every GPR
# carry family, `csumtune kmod` writes a module, kbuild builds it against Debian's kernel
# headers (V=1; any `objtool:` line fails the test), and Debian's kernel boots in qemu (TCG,
# -cpu max: ADX, no AVX-512) with a busybox initramfs whose /init loads each module, which
# compares the tuned routine with the kernel's own csum_partial. Copying shapes (kind=copy,
# kernel style: csum_partial_copy_generic with an exception-table entry on every access) are
# compared with the kernel's csum_partial_copy_nocheck and made to fault on a user mapping
# with a hole: each fault must return 0. PASS/FAIL per shape.
#
#   tests/e2e/kernel-module.sh CSUMTUNE SOURCE_DIR [WORK_DIR]
#
# Exits 1 on a mismatch, an objtool warning, an unexpected taint, a failed insmod or a
# timeout; 77 (skipped) when the packages are missing and cannot be installed (not root).
# Timings printed under TCG are emulated, not speeds.
set -uo pipefail
CSUMTUNE=${1:?usage: kernel-module.sh CSUMTUNE SOURCE_DIR [WORK_DIR]}
SOURCE=${2:?}
source "$(dirname "$0")/lib.sh"
WORK=${3:-$(tmpdir)}
mkdir -p "$WORK"
CACHE=${CSUMTUNE_KERNEL_CACHE:-/var/cache/csumtune-kernel}
TIMEOUT=${CSUMTUNE_QEMU_TIMEOUT:-900}

source "$(dirname "$0")/packages.sh"
# --- The kernel: Debian's default image for this release, and its headers for kbuild.
kernel_abi() { apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/.*Depends: linux-image-\(.*\)$/\1/p' | head -1; }
abi=$(kernel_abi)
if [[ -z $abi && $(id -u) -eq 0 ]]; then
  apt_get update -qq >/dev/null 2>&1
  abi=$(kernel_abi)
fi
[[ -n $abi ]] || die "cannot tell which kernel linux-image-amd64 depends on (apt lists missing?)"
ensure_packages kernel-module qemu-system-x86 busybox-static cpio "linux-headers-$abi"
# The image itself is only unpacked, never installed: the host's boot setup stays untouched.
vmlinuz="$CACHE/$abi/boot/vmlinuz-$abi"
if [[ ! -f $vmlinuz ]]; then
  mkdir -p "$CACHE/$abi"
  (cd "$CACHE" && apt_get download "linux-image-$abi" >/dev/null 2>&1) || die "apt-get download linux-image-$abi failed"
  dpkg-deb -x "$CACHE"/linux-image-"$abi"_*.deb "$CACHE/$abi" || die "cannot unpack linux-image-$abi"
  rm -f "$CACHE"/linux-image-"$abi"_*.deb
fi
kdir=/usr/src/linux-headers-$abi
log "kernel $abi, headers $kdir"

# --- The shapes: every committed winner for this CPU, one of each GPR carry family, and the
# short paths that read inside aligned blocks (entry=forty and entry=range, bounds=aligned);
# two with their jump targets aligned (targets=aligned: NOP fill that objtool must accept,
# between a copy's fault-fixup accesses too).
shapes=()
key=$("$CSUMTUNE" cpu --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])')
for results in "$SOURCE"/results/"$key"/*/results.json; do
  [[ -f $results ]] || continue
  # Only kernel-safe winners can go into the kernel (a SIMD winner of a user-space tune cannot).
  carry=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["winner"]["params"].split(",")[0])' "$results")
  [[ $carry == carry=avx* ]] && { log "skip $results: $carry is user-space only"; continue; }
  shapes+=("results:$results")
done
shapes+=("params:carry=adc,chains=8,unroll=32,prefetch=4096,hint=nta"
         "params:carry=adcx,chains=6,unroll=24,prefetch=192,hint=t1"
         "params:carry=add32,chains=3,unroll=9"
         "params:carry=adc,chains=6,unroll=30,tail=overlap,entry=forty,short=128,tailchains=1,bounds=aligned"
         "params:carry=adcx,chains=4,unroll=32,tail=overlap,sum=last,entry=range,short=128,bounds=aligned,targets=aligned"
         "params:carry=cmov,chains=8,unroll=16,prefetch=128,hint=t0"
         "params:carry=adc,chains=6,unroll=30,tail=overlap,sum=last,entry=lean,exact=40,short=128,kind=copy"
         "params:carry=cmov,chains=8,unroll=32,prefetch=256,hint=nta,exact=40,sum=last,kind=copy,targets=aligned"
         "params:carry=adcx,chains=4,unroll=12,words=loop,kind=copy,store=nt")

rm -rf "$WORK/modules" "$WORK/initramfs"
mkdir -p "$WORK/modules" "$WORK/initramfs"/{bin,proc,sys,dev,modules}
names=()
for i in "${!shapes[@]}"; do
  spec=${shapes[$i]}
  dir="$WORK/modules/m$i"
  if [[ $spec == results:* ]]; then
    "$CSUMTUNE" kmod --results "${spec#results:}" -o "$dir" >/dev/null || { fail "kmod $spec"; continue; }
  else
    "$CSUMTUNE" kmod --params "${spec#params:}" -o "$dir" >/dev/null || { fail "kmod $spec"; continue; }
  fi
  shape=$(sed -n 's/^ \* params:[[:space:]]*//p' "$dir/tuned.S" | head -1)
  if ! make -C "$kdir" M="$dir" V=1 modules >"$dir/build.log" 2>&1; then
    fail "build $shape (see $dir/build.log)"; continue
  fi
  if grep -q "objtool:" "$dir/build.log"; then
    fail "objtool on $shape:"; grep "objtool:" "$dir/build.log"; continue
  fi
  if grep -q "WARNING:" "$dir/build.log"; then
    fail "build warning on $shape:"; grep "WARNING:" "$dir/build.log"; continue
  fi
  cp "$dir/csum_test.ko" "$WORK/initramfs/modules/m$i.ko"
  names[i]=$shape
  log "built m$i: $shape ($([[ $spec == results:* ]] && echo "${spec#results:"$SOURCE"/}" || echo params)), objtool clean"
done

# --- The harness must be able to fail: a copy of the adc-family module with a carry dropped
# from its main loop (the first `adc $0`) has to be caught in the kernel. (Which m<i> that is
# depends on how many committed winners this CPU has.)
broken=""
for i in "${!shapes[@]}"; do
  [[ ${shapes[$i]} == params:carry=adc,* && ${shapes[$i]} != *kind=copy* ]] && adc_module=m$i
  [[ ${shapes[$i]} == params:carry=adc,*kind=copy* ]] && copy_module=m$i
done
if [[ -n ${names[${adc_module#m}]:-} ]]; then
  cp -r "$WORK/modules/$adc_module" "$WORK/modules/broken"
  make -C "$kdir" M="$WORK/modules/broken" clean >/dev/null 2>&1
  # shellcheck disable=SC2016  # (a sed script: $0 is the instruction's operand)
  sed -i '0,/^\tadc\t\$0, %/{/^\tadc\t\$0, %/d}' "$WORK/modules/broken/tuned.S"
  if make -C "$kdir" M="$WORK/modules/broken" modules >/dev/null 2>&1; then
    cp "$WORK/modules/broken/csum_test.ko" "$WORK/initramfs/modules/zbroken.ko"
    broken="/modules/zbroken.ko"
  else
    fail "could not build the deliberately broken module"
  fi
fi

# And a copying module whose first fault fixup forgets to return 0 (its `xor %eax, %eax`
# deleted): the harness's real faults on a user mapping must catch it.
broken_copy=""
if [[ -n ${copy_module:-} && -n ${names[${copy_module#m}]:-} ]]; then
  cp -r "$WORK/modules/$copy_module" "$WORK/modules/broken-copy"
  make -C "$kdir" M="$WORK/modules/broken-copy" clean >/dev/null 2>&1
  sed -i '/_fault0:/{n;/^\txor\t%eax, %eax$/d}' "$WORK/modules/broken-copy/tuned.S"
  if ! grep -A1 "_fault0:" "$WORK/modules/broken-copy/tuned.S" | grep -q xor &&
     make -C "$kdir" M="$WORK/modules/broken-copy" modules >/dev/null 2>&1; then
    cp "$WORK/modules/broken-copy/csum_test.ko" "$WORK/initramfs/modules/zbroken-copy.ko"
    broken_copy="/modules/zbroken-copy.ko"
  else
    fail "could not build the deliberately broken copying module"
  fi
fi

# --- A busybox initramfs whose /init loads every module, reports, and powers off.
cp "$(command -v busybox)" "$WORK/initramfs/bin/busybox"
for tool in sh insmod rmmod cat echo mount poweroff sleep; do ln -sf busybox "$WORK/initramfs/bin/$tool"; done
cat >"$WORK/initramfs/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
echo "csumtune-e2e: boot ok"
for m in /modules/*.ko; do
  echo "csumtune-e2e: module $m"
  if insmod "$m" iterations=200; then
    echo "csumtune-e2e: insmod ok $m"
    rmmod csum_test
  else
    echo "csumtune-e2e: insmod failed $m"
  fi
  echo "csumtune-e2e: tainted $(cat /proc/sys/kernel/tainted) after $m"
done
echo "csumtune-e2e: all done"
poweroff -f
INIT
chmod +x "$WORK/initramfs/init"
(cd "$WORK/initramfs" && find . | cpio -o -H newc 2>/dev/null | gzip -1 >"$WORK/initramfs.cpio.gz")

log "booting $abi under qemu TCG (-cpu max), timeout ${TIMEOUT}s"
start=$(date +%s)
timeout "$TIMEOUT" qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 1 -nographic -no-reboot \
  -kernel "$vmlinuz" -initrd "$WORK/initramfs.cpio.gz" \
  -append "console=ttyS0 loglevel=7 panic=-1 oops=panic" >"$WORK/console.log" 2>&1
status=$?
log "qemu exited with $status after $(( $(date +%s) - start )) s (console: $WORK/console.log)"
tr -d '\r' <"$WORK/console.log" >"$WORK/console.txt"
check "qemu did not time out (status $status)" test "$status" -ne 124
check "the init script finished" grep -q "csumtune-e2e: all done" "$WORK/console.txt"
if grep -qE "Oops|BUG:|Kernel panic|general protection fault|Call Trace" "$WORK/console.txt"; then
  fail "the kernel oopsed:"; grep -E -A5 "Oops|BUG:|Kernel panic|general protection" "$WORK/console.txt" | head -30
else
  pass "no oops, BUG, panic or call trace"
fi

# --- Per module: the harness's verdict, insmod's status, and no taint but O and E.
# (O: out-of-tree module, E: unsigned module -- expected for a module built here.)
allowed=$(( 4096 | 8192 ))
for i in "${!names[@]}"; do
  m="/modules/m$i.ko"
  block=$(awk -v m="$m" '$0 ~ "csumtune-e2e: module "m"$" {on=1} on {print} on && $0 ~ "csumtune-e2e: tainted" {exit}' "$WORK/console.txt")
  taint=$(sed -n 's/.*csumtune-e2e: tainted \([0-9]*\) after.*/\1/p' <<<"$block")
  if grep -q "csum_test: RESULT PASS" <<<"$block" && grep -q "insmod ok" <<<"$block" &&
     [[ -n $taint && $(( taint & ~allowed )) -eq 0 ]]; then
    cases=$(sed -n 's/.*csum_test: compared \([0-9]*\) cases.*/\1/p' <<<"$block")
    peer="csum_partial"
    [[ ${names[$i]} == *kind=copy* ]] && peer="csum_partial_copy_nocheck; $(grep -o '[0-9]* copies into an unmapped user page returned 0' <<<"$block")"
    pass "${names[$i]} ($cases cases agree with the kernel's $peer; taint $taint)"
  else
    fail "${names[$i]}:"; grep -E "csum_test|csumtune-e2e" <<<"$block" | head -12
  fi
done
if [[ -n $broken ]]; then
  block=$(awk -v m="$broken" '$0 ~ "csumtune-e2e: module "m"$" {on=1} on {print} on && $0 ~ "csumtune-e2e: tainted" {exit}' "$WORK/console.txt")
  if grep -q "csum_test: RESULT FAIL" <<<"$block" && grep -q "insmod failed" <<<"$block"; then
    pass "the deliberately broken module was caught ($(grep -o 'RESULT FAIL.*' <<<"$block" | head -1))"
  else
    fail "the deliberately broken module was not caught"
  fi
fi
if [[ -n $broken_copy ]]; then
  block=$(awk -v m="$broken_copy" '$0 ~ "csumtune-e2e: module "m"$" {on=1} on {print} on && $0 ~ "csumtune-e2e: tainted" {exit}' "$WORK/console.txt")
  if grep -q "csum_test: RESULT FAIL" <<<"$block" && grep -q "did not return 0" <<<"$block"; then
    pass "the copying module with a broken fault fixup was caught ($(grep -o 'RESULT FAIL.*' <<<"$block" | head -1))"
  else
    fail "the copying module with a broken fault fixup was not caught"
  fi
fi
log "(timings in the console log are emulated by TCG: not speeds)"
log "${#names[@]} shapes compared with the kernel's own"
finish
