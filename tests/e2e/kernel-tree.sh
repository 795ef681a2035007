#!/usr/bin/env bash
# The .S as the kernel's own csum_partial, end to end: `csumtune patch` on Debian's
# linux-source-6.1 tree for the committed kernel-safe winner and one shape of every GPR carry
# family, each with a copying shape (kind=copy) patched into csum-copy_64.S beside it, so
# csum_partial_copy_generic is csumtune's too; each patched tree is built (tinyconfig + kernel-tree/kernel.config: ORC, retpolines,
# return thunks, SLS — objtool checks every RET; any `objtool:` line or `WARNING:` fails) and
# booted under qemu TCG with a virtio-net NIC whose checksum offload is off, so the guest sums
# and validates in software; the host moves TCP both ways (SHA-256 at both ends), UDP of every
# payload length 1..1472, and the guest pings (IPv4 and IPv6) through qemu's user-mode stack,
# which drops packets whose checksum is wrong; the copy sums ICMP echoes sent through a ping
# socket (qemu checks their checksums) and the UDP the guest receives; sends from, and
# receives into, buffers that run into an unmapped page must fail with EFAULT without an
# oops (the copy's exception-table fixups); the module harness runs inside each kernel.
# A deliberately broken csum_partial, and a broken copy, (one carry dropped) must be caught
# (quickly: traffic.py --first-failure). The first tree holds several csum_partial bodies (the
# committed Zen 4 and Zen 5 kernel-safe runs and a generic one, picked at boot by
# csum-select_64.c) and several csum_partial_copy_generic bodies (the Zen 4 and Zen 3 copying
# runs and a generic one, in one function that jumps on a byte the selection sets); it boots
# as each of those CPUs, as a Zen 5 and a Zen 3 without ADX, and with csumtune=generic, each
# boot logging the two bodies it picked; its patch is examples/kernel-two-cpu/, byte for byte.
#
#   tests/e2e/kernel-tree.sh CSUMTUNE SOURCE_DIR [WORK_DIR]
#
# The unpacked tree and its build are cached in $CSUMTUNE_KERNEL_CACHE/tree-6.1 (default
# /var/cache/csumtune-kernel): the first build takes minutes, later ones rebuild what a patch
# touches. Exit 1 on any failure, 77 (skipped) when packages are missing and cannot be
# installed (not root; 1 then in CI). Times printed are emulated by TCG: never speeds.
set -uo pipefail
CSUMTUNE=${1:?usage: kernel-tree.sh CSUMTUNE SOURCE_DIR [WORK_DIR]}
SOURCE=${2:?usage: kernel-tree.sh CSUMTUNE SOURCE_DIR [WORK_DIR]}
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.sh"
WORK=${3:-$(tmpdir)}
CACHE=${CSUMTUNE_KERNEL_CACHE:-/var/cache/csumtune-kernel}/tree-6.1
BYTES=${CSUMTUNE_TRAFFIC_BYTES:-$((32 << 20))}
TIMEOUT=${CSUMTUNE_QEMU_TIMEOUT:-900}
source "$HERE/packages.sh"
ensure_packages kernel-tree linux-source-6.1 xz-utils make gcc libc6-dev bc bison flex \
  libelf-dev libssl-dev patch qemu-system-x86 busybox-static cpio python3
mkdir -p "$WORK" "$CACHE"
exec 9>"$CACHE/lock"
flock 9 || die "cannot lock $CACHE"

# --- The tree, unpacked once, and its pristine files (packages.sh).
src=$CACHE/linux-source-6.1
build=$CACHE/build
unpack_kernel_tree 6.1 "$CACHE" kernel-tree || exit 1
restore_tree() { restore_kernel_tree 6.1 "$CACHE"; }
on_exit restore_tree
restore_tree

# --- The configuration: tinyconfig plus our fragment, made again when the fragment changes.
mkdir -p "$build"
if ! cmp -s "$HERE/kernel-tree/kernel.config" "$build/csumtune.config"; then
  log "configuring $build (tinyconfig + kernel-tree/kernel.config)"
  rm -f "$build/.config"
  { make -C "$src" O="$build" tinyconfig &&
    "$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "$HERE/kernel-tree/kernel.config" &&
    make -C "$src" O="$build" olddefconfig; } >"$WORK/config.log" 2>&1 || die "configuring (see $WORK/config.log)"
  cp "$HERE/kernel-tree/kernel.config" "$build/csumtune.config"
fi
while read -r option; do
  grep -q "^$option=y" "$build/.config" || die "$option is not set in the configured kernel"
done < <(sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=y$/\1/p' "$HERE/kernel-tree/kernel.config")

# --- The guest's programs: busybox and our static agent.
gcc -static -O2 -Wall -Wextra -Werror -o "$WORK/agent" "$HERE/kernel-tree/agent.c" ||
  die "cannot build the guest agent"

# --- The shapes: first a tree of several bodies, one per committed kernel-safe run (Zen 4, adc;
# Zen 5, adcx: needs ADX) and the generic one, picked at boot (csum-select_64.c); then one of
# every GPR family, using the frame's options too; and the broken one, made from the adc shape.
key=$("$CSUMTUNE" cpu --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])')
zen4=amd-19-11-1-0a1bbd54
zen5=amd-1a-02-1-5d4b381f
zen3=amd-19-01-1-ce148854
multi="--results $SOURCE/results/$zen4/kernel/results.json --results $SOURCE/results/$zen5/kernel/results.json"
# ... and csum_partial_copy_generic's bodies in the same patch: the committed Zen 4 and Zen 3
# kernel-safe copying runs (both adcx) and a generic one, in one function that jumps on a byte.
multi_copy="--results $SOURCE/results/$zen4/copy-kernel/results.json --results $SOURCE/results/$zen3/copy-kernel/results.json"
specs=("$multi $multi_copy"
       "--params carry=adc,chains=4,unroll=16,prefetch=256,hint=nta"
       "--params carry=adcx,chains=2,unroll=8,words=loop"
       "--params carry=add32,chains=3,unroll=9,tail=overlap"
       "--params carry=cmov,chains=2,unroll=8,exact=40,short=0"
       "broken --params carry=adc,chains=4,unroll=16,prefetch=256,hint=nta"
       "--params carry=adc,chains=4,unroll=16,prefetch=256,hint=nta")
# The copy patched in beside each ("-": the shape's own patch holds the copy's bodies): the
# committed kernel-safe copy winner, then a shape of every GPR family (one pushing six
# callee-saved registers, whose fixups pop them); the last one deliberately broken (one carry
# dropped), beside a good csum_partial.
copy_winner=$SOURCE/results/$key/copy-kernel/results.json
copy_first="--params carry=adc,chains=6,unroll=30,tail=overlap,sum=last,entry=lean,exact=40,short=128,kind=copy"
[[ -f $copy_winner ]] && copy_first="--results $copy_winner"
copies=("-"
        "$copy_first"
        "--params carry=cmov,chains=8,unroll=32,prefetch=256,hint=nta,exact=40,sum=last,kind=copy"
        "--params carry=adcx,chains=4,unroll=12,words=loop,kind=copy"
        "--params carry=add32,chains=3,unroll=9,tail=overlap,kind=copy,store=nt"
        "--params carry=adc,chains=4,unroll=16,prefetch=256,hint=nta,kind=copy"
        "broken --params carry=adc,chains=4,unroll=16,prefetch=256,hint=nta,kind=copy")
# The committed example (examples/kernel-two-cpu/) is that tree's patch: made again here, it
# must be the same byte for byte.
example=$SOURCE/examples/kernel-two-cpu/0001-x86-csum-Pick-csum_partial-at-boot.patch
# shellcheck disable=SC2086
if "$CSUMTUNE" patch --tree "$src" $multi $multi_copy -o "$WORK/two-cpu.patch" 2>"$WORK/two-cpu.err" &&
  cmp -s "$example" "$WORK/two-cpu.patch"; then
  pass "examples/kernel-two-cpu is what csumtune patch writes today"
else
  fail "examples/kernel-two-cpu differs from what csumtune patch writes today ($(head -c 300 "$WORK/two-cpu.err")); regenerate: csumtune patch --tree linux-source-6.1 --results results/$zen4/kernel/results.json --results results/$zen5/kernel/results.json --results results/$zen4/copy-kernel/results.json --results results/$zen3/copy-kernel/results.json -o $example"
fi
# The boots of the tree of several bodies: CPU model|the csum_partial body its log line must
# name, and why|kernel command line|TCP bytes|the same for csum_partial_copy_generic. qemu's CPU
# models report the family, model and stepping given (TCG emulates ADX, not AVX-512); the
# tuned bodies move the full traffic.
tuned="tuned on this family and model, this stepping"
multi_boots=("EPYC-Milan,family=25,model=17,stepping=1|$zen4 ($tuned||$BYTES|$zen4 ($tuned"
             "max,vendor=AuthenticAMD,family=26,model=2,stepping=1|$zen5 ($tuned||$BYTES|generic (no variant for this CPU"
             "qemu64,vendor=AuthenticAMD,family=26,model=2,stepping=1|generic (the variant $zen5 needs ADX, which this CPU lacks||$((4 << 20))|generic (no variant for this CPU"
             "EPYC-Milan,family=25,model=1,stepping=1|generic (no variant for this CPU||$((4 << 20))|$zen3 ($tuned"
             "qemu64,vendor=AuthenticAMD,family=25,model=1,stepping=1|generic (no variant for this CPU||$((4 << 20))|generic (the variant $zen3 needs ADX, which this CPU lacks"
             "max|generic (csumtune=generic;|csumtune=generic|$((4 << 20))|generic (csumtune=generic;")
# The harness module carries a shape of another family than any kernel above.
module_params="carry=adcx,chains=4,unroll=12,tail=overlap,exact=40"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
free_udp_port() { python3 -c 'import socket; s=socket.socket(type=socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# drop_a_carry FILE: deletes the first `adc $0` (a main loop's fold); 1 if there was none.
drop_a_carry() {
  cp "$1" "$WORK/unbroken.S"
  # shellcheck disable=SC2016  # (a sed script: $0 is the instruction's operand)
  sed -i '0,/^\tadc\t\$0, %/{/^\tadc\t\$0, %/d}' "$1"
  ! cmp -s "$1" "$WORK/unbroken.S"
}

# table_keys TABLE FILE: the CPU keys of csum-select_64.c's table TABLE, comma-separated.
table_keys() {
  awk -v t="$1" '$0 ~ t"\\[\\] __initconst" {p=1; next} p && /^};/ {p=0} p' "$2" |
    sed -n 's/^\t{ "\([a-z0-9-]*\)".*/\1/p' | paste -sd, - | sed 's/,/, /g'
}

# build_shape N SPEC COPYSPEC: patches the pristine tree (csum_partial, then the copy), builds
# bzImage and the harness module into $WORK/shapeN/. Returns 1 (after saying why) when
# anything is wrong.
build_shape() {
  local n=$1 spec=$2 copyspec=$3 dir=$WORK/shape$1 broken=0 broken_copy=0
  [[ $spec == broken* ]] && { broken=1; spec=${spec#broken }; }
  [[ $copyspec == broken* ]] && { broken_copy=1; copyspec=${copyspec#broken }; }
  rm -rf "$dir" && mkdir -p "$dir"
  restore_tree
  # shellcheck disable=SC2086
  "$CSUMTUNE" patch --tree "$src" $spec --no-figures -o "$dir/csum.patch" 2>"$dir/patch.err" ||
    { fail "csumtune patch $spec: $(head -c 300 "$dir/patch.err")"; return 1; }
  (cd "$src" && patch -p1 -s <"$dir/csum.patch") || { fail "the patch for $spec does not apply"; return 1; }
  local asm=$src/arch/x86/lib/csum-partial_64.S select=$src/arch/x86/lib/csum-select_64.c
  [[ -f $asm && ! -e $src/arch/x86/lib/csum-partial_64.c ]] || { fail "$spec: the patch did not replace the .c"; return 1; }
  sed -n 's/^ \* params:[[:space:]]*//p' "$asm" | head -1 >"$dir/shape"
  if [[ $spec == *--results*--results* ]]; then
    [[ -f $select ]] || { fail "$spec: the patch added no csum-select_64.c"; return 1; }
    echo "several bodies ($(table_keys csumtune_sum_bodies "$select"), generic)" >"$dir/shape"
    touch "$dir/multi"
  fi
  if [[ $broken == 1 ]]; then
    drop_a_carry "$asm" || { fail "$spec: no carry to drop in the .S"; return 1; }
    echo "BROKEN $(cat "$dir/shape")" >"$dir/shape"
  fi
  local copy=$src/arch/x86/lib/csum-copy_64.S
  if [[ $copyspec != - ]]; then
    # shellcheck disable=SC2086
    "$CSUMTUNE" patch --tree "$src" $copyspec --no-figures -o "$dir/copy.patch" 2>"$dir/copy-patch.err" ||
      { fail "csumtune patch $copyspec: $(head -c 300 "$dir/copy-patch.err")"; return 1; }
    (cd "$src" && patch -p1 -s <"$dir/copy.patch") || { fail "the patch for $copyspec does not apply"; return 1; }
  fi
  grep -q "Generated by csumtune" "$copy" || { fail "$copyspec: no patch replaced csum-copy_64.S"; return 1; }
  sed -n 's/^ \* params:[[:space:]]*//p' "$copy" | head -1 >"$dir/copy-shape"
  if [[ $copyspec == - ]]; then
    grep -q csumtune_copy_body "$copy" || { fail "$spec: the copy does not jump on the selection's byte"; return 1; }
    echo "several bodies ($(table_keys csumtune_copy_bodies "$select"), generic)" >"$dir/copy-shape"
  fi
  if [[ $broken_copy == 1 ]]; then
    drop_a_carry "$copy" || { fail "$copyspec: no carry to drop in the copy"; return 1; }
    echo "BROKEN-COPY $(cat "$dir/copy-shape")" >"$dir/copy-shape"
  fi
  # A body that needs ADX (its ALTERNATIVE runs an adc body elsewhere) is booted on qemu64 too.
  grep -qs X86_FEATURE_ADX "$asm" "$copy" && touch "$dir/adx"
  local start=$SECONDS
  if ! make -C "$src" O="$build" -j"$(nproc)" bzImage modules >"$dir/build.log" 2>&1; then
    fail "building $(cat "$dir/shape") (see $dir/build.log)"; tail -20 "$dir/build.log"; return 1
  fi
  echo $((SECONDS - start)) >"$dir/build.seconds"
  if grep -E "objtool:|WARNING:" "$dir/build.log"; then fail "objtool or modpost warnings building $(cat "$dir/shape")"; return 1; fi
  grep -q "AS.*arch/x86/lib/csum-partial_64.o" "$dir/build.log" || { fail "$(cat "$dir/shape"): the .S was not assembled"; return 1; }
  grep -q "AS.*arch/x86/lib/csum-copy_64.o" "$dir/build.log" || { fail "$(cat "$dir/copy-shape"): the copy was not assembled"; return 1; }
  if [[ -f $dir/multi ]] && ! grep -q "CC.*arch/x86/lib/csum-select_64.o" "$dir/build.log"; then
    fail "$(cat "$dir/shape"): csum-select_64.c was not compiled"; return 1
  fi
  grep -qw csum_partial "$build/Module.symvers" || { fail "csum_partial is not exported (Module.symvers)"; return 1; }
  cp "$build/arch/x86/boot/bzImage" "$dir/bzImage"
  local size
  size=$(nm -S "$build/vmlinux" | awk '$4 == "csum_partial" {print $2}')
  echo $((16#${size:-0})) >"$dir/size"
  size=$(nm -S "$build/vmlinux" | awk '$4 == "csum_partial_copy_generic" {print $2}')
  echo $((16#${size:-0})) >"$dir/copy-size"
  # The harness module, built against this kernel.
  "$CSUMTUNE" kmod --params "$module_params" -o "$dir/module" >/dev/null 2>"$dir/kmod.err" ||
    { fail "csumtune kmod: $(head -c 300 "$dir/kmod.err")"; return 1; }
  if ! make -C "$build" M="$dir/module" modules >"$dir/module.log" 2>&1 || grep -E "objtool:|WARNING:" "$dir/module.log"; then
    fail "building the harness module for $(cat "$dir/shape") (see $dir/module.log)"; return 1
  fi
  return 0
}

# boot_shape N [CPU [APPEND [BYTES]]]: boots $WORK/shapeN/bzImage on qemu's CPU model CPU
# (default max) with APPEND on the kernel command line, drives the traffic (BYTES of TCP each
# way; default the full amount on max, less elsewhere), and leaves the console in
# $WORK/shapeN/console.txt and the host's log in traffic.log. Returns traffic.py's status.
# A broken kernel gets the quick check (traffic.py --first-failure): it only has to be caught.
boot_shape() {
  local n=$1 cpu=${2:-max} append=${3:-} dir=$WORK/shape$1 bytes=$BYTES deadline=$((TIMEOUT - 120)) first=()
  # The second boot, on a CPU without ADX, checks the same code's other body: less traffic.
  [[ $cpu != max ]] && bytes=$((4 << 20))
  [[ -n ${4:-} ]] && bytes=$4
  if [[ $(cat "$dir/shape" "$dir/copy-shape") == *BROKEN* ]]; then
    bytes=$((4 << 20)) deadline=75 first=(--first-failure) append="${append:+$append }csumtune.stall=5"
  fi
  echo "$bytes" >"$dir/bytes"
  local root=$dir/initramfs
  rm -rf "$root" && mkdir -p "$root"/{bin,proc,sys,dev,modules,tmp}
  cp "$(command -v busybox)" "$root/bin/busybox"
  for tool in sh mount ip ping ping6 sed grep cat cut echo insmod rmmod sha256sum reboot sleep uname; do
    ln -sf busybox "$root/bin/$tool"
  done
  cp "$WORK/agent" "$root/bin/agent"
  cp "$HERE/kernel-tree/init.sh" "$root/init" && chmod +x "$root/init"
  cp "$dir/module/csum_test.ko" "$root/modules/harness.ko"
  (cd "$root" && find . | cpio -o -H newc 2>/dev/null | gzip -1 >"$dir/initramfs.cpio.gz")
  local tcp udp
  if ! { tcp=$(free_port) && udp=$(free_udp_port); }; then fail "no free port"; return 1; fi
  local start=$SECONDS
  timeout "$TIMEOUT" qemu-system-x86_64 -accel tcg -cpu "$cpu" -m 512 -nographic -no-reboot \
    -kernel "$dir/bzImage" -initrd "$dir/initramfs.cpio.gz" \
    -append "console=ttyS0 panic=-1 oops=panic csumtune.seconds=$deadline${append:+ $append}" \
    -netdev "user,id=n0,restrict=on,ipv4=on,ipv6=on,hostfwd=tcp:127.0.0.1:$tcp-:7000,hostfwd=udp:127.0.0.1:$udp-:7001" \
    -device virtio-net-pci,netdev=n0,csum=off,guest_csum=off >"$dir/console.log" 2>&1 &
  local qemu=$!
  python3 "$HERE/kernel-tree/traffic.py" "$tcp" "$udp" --bytes "$bytes" --deadline "$deadline" \
    "${first[@]}" >"$dir/traffic.log" 2>&1
  local traffic=$?
  wait "$qemu"
  local status=$?
  echo $((SECONDS - start)) >"$dir/boot.seconds"
  tr -d '\r' <"$dir/console.log" >"$dir/console.txt"
  [[ $status -eq 124 ]] && echo "qemu timed out after ${TIMEOUT}s" >>"$dir/traffic.log"
  return $traffic
}

# verdict N TRAFFIC_STATUS [CPU [BODY [APPEND [COPY_BODY]]]]: one PASS/FAIL line for a good
# kernel; BODY, COPY_BODY: the start of what its "csumtune: csum_partial:" and
# "csumtune: csum_partial_copy_generic:" lines must say (a tree of several bodies).
verdict() {
  local n=$1 traffic=$2 cpu=${3:-max} body=${4:-} copy_body=${6:-} dir=$WORK/shape$1 problems=()
  local console=$dir/console.txt shape picked="" function want line
  shape="$(cat "$dir/shape") (-cpu $cpu${5:+, $5})"
  for function in csum_partial csum_partial_copy_generic; do
    want=$body
    [[ $function == csum_partial_copy_generic ]] && want=$copy_body
    [[ -n $want ]] || continue
    line=$(grep -o "csumtune: $function: .*" "$console" | head -2)
    [[ $(grep -c "csumtune: $function: " "$console") == 1 && $line == "csumtune: $function: $want"* ]] ||
      problems+=("picked '$line', not '$want'")
    picked="$picked; $line"
  done
  grep -q "csumtune-e2e: all done" "$console" || problems+=("the guest did not finish")
  grep -qE "Oops|BUG:|Kernel panic|general protection fault|Call Trace|invalid opcode" "$console" && problems+=("the kernel oopsed")
  # virtio-net in 6.1 always sets rx-checksumming (NETIF_F_RXCSUM); without GUEST_CSUM the
  # device never marks a packet valid, so the stack checks each one with csum_partial.
  grep -q "csumtune-e2e: virtio features csum=0 guest_csum=0" "$console" &&
    grep -q "csumtune-e2e: nic eth0 .*tx-checksumming=off.*generic-receive-offload=off" "$console" ||
    problems+=("checksum offload is not off: $(grep -oE '(virtio features|nic eth0).*' "$console" | tr '\n' ' ')")
  [[ $traffic -eq 0 ]] || problems+=("traffic: $(grep -E 'FAIL' "$dir/traffic.log" | head -3 | tr '\n' ' ')")
  local pings bad_pings
  pings=$(grep -cE "csumtune-e2e: ping6? [0-9]+ ok" "$console")
  bad_pings=$(grep -E "csumtune-e2e: ping6? [0-9]+ FAIL" "$console" | sed 's/csumtune-e2e: //' | tr '\n' ',')
  [[ -z $bad_pings && $pings -gt 0 ]] || problems+=("ping failed: ${bad_pings:-none ran}")
  local errors
  errors=$(csum_errors "$console")
  [[ $errors == 0 ]] || problems+=("InCsumErrors $errors")
  grep -q "csumtune-e2e: icmp-socket [0-9]* echoes ok" "$console" ||
    problems+=("icmp echoes through the copy: $(grep -o 'icmp-socket.*' "$console" | head -1)")
  grep -q "csumtune-e2e: send-faults [0-9]* sends .*all EFAULT" "$console" ||
    problems+=("send faults: $(grep -o 'send-faults.*' "$console" | head -2 | tr '\n' ' ')")
  grep -q "csum_test: RESULT PASS" "$console" && grep -q "csumtune-e2e: insmod ok" "$console" ||
    problems+=("module harness: $(grep -E 'csum_test: RESULT|insmod' "$console" | head -2 | tr '\n' ' ')")
  local taint
  taint=$(sed -n 's/.*csumtune-e2e: tainted \([0-9]*\).*/\1/p' "$console")
  [[ -n $taint && $(( taint & ~(4096 | 8192) )) -eq 0 ]] || problems+=("tainted '$taint'")
  local tcp_bytes
  tcp_bytes=$(cat "$dir/bytes")
  local moved times
  moved="$((2 * tcp_bytes)) TCP bytes (SHA-256 equal both ends), 1472 UDP datagrams, $pings pings, $(grep -o 'icmp-socket [0-9]* echoes' "$console"), $(grep -o '[0-9]* of [0-9]* EFAULT' "$dir/traffic.log") on receive, $(grep -o 'send-faults [0-9]* sends' "$console" | cut -d' ' -f2) EFAULT on send"
  times="build $(cat "$dir/build.seconds") s, boot+traffic $(cat "$dir/boot.seconds") s under TCG"
  if [[ ${#problems[@]} -eq 0 ]]; then
    pass "$shape$picked: csum_partial $(cat "$dir/size") bytes; copy $(cat "$dir/copy-shape"): csum_partial_copy_generic $(cat "$dir/copy-size") bytes; $moved; InCsumErrors 0; module harness PASS ($times)"
  else
    fail "$shape: $(printf '%s; ' "${problems[@]}") ($times; console $console)"
  fi
}

# The stack's InCsumErrors summed over IPv4 ICMP/TCP/UDP and IPv6.
csum_errors() {
  python3 - "$1" <<'PY'
import sys
lines = [l.split("csumtune-e2e: snmp ", 1)[1].split() for l in open(sys.argv[1], errors="replace")
         if "csumtune-e2e: snmp " in l]
total = 0
for header, values in zip(lines[0::2], lines[1::2]):
    fields = dict(zip(header[1:], values[1:]))
    total += int(fields.get("InCsumErrors", 0))
for l in open(sys.argv[1], errors="replace"):
    if "csumtune-e2e: snmp6 " in l:
        total += int(l.split()[-1])
print(total if lines else "unknown")
PY
}

# CSUMTUNE_TREE_ONLY="0 6": only those shapes (while working on one; CI runs them all).
for n in "${!specs[@]}"; do
  [[ -n ${CSUMTUNE_TREE_ONLY:-} && " $CSUMTUNE_TREE_ONLY " != *" $n "* ]] && continue
  spec=${specs[$n]}
  build_shape "$n" "$spec" "${copies[$n]}" || continue
  log "built $(cat "$WORK/shape$n/shape") + copy $(cat "$WORK/shape$n/copy-shape") in $(cat "$WORK/shape$n/build.seconds") s, objtool and modpost clean"
  if [[ -f $WORK/shape$n/multi ]]; then
    # The tree of several bodies: each boot must log the body it should pick, and why.
    for boot in "${multi_boots[@]}"; do
      IFS='|' read -r cpu body append bytes copy_body <<<"$boot"
      boot_shape "$n" "$cpu" "$append" "$bytes"
      verdict "$n" $? "$cpu" "$body" "$append" "$copy_body"
      cp "$WORK/shape$n/console.txt" "$WORK/shape$n/console.${cpu%%,*}${append:+.$append}.txt"
    done
    continue
  fi
  boot_shape "$n"
  traffic=$?
  if [[ $(cat "$WORK/shape$n/shape") == BROKEN* ]]; then
    errors=$(csum_errors "$WORK/shape$n/console.txt")
    if [[ $traffic -ne 0 && $errors =~ ^[0-9]+$ && $errors -gt 0 ]]; then
      pass "the broken .S ($(cat "$WORK/shape$n/shape")) was caught: $(grep FAIL "$WORK/shape$n/traffic.log" | head -2 | tr '\n' ' ')InCsumErrors $errors"
    else
      fail "the broken .S was not caught (traffic status $traffic, InCsumErrors $errors)"
    fi
  elif [[ $(cat "$WORK/shape$n/copy-shape") == BROKEN* ]]; then
    # A wrong copy sums wrongly both ways: qemu drops the echo requests it made the ICMP
    # checksum of, and the guest drops (InCsumErrors) the UDP it receives.
    console=$WORK/shape$n/console.txt
    errors=$(csum_errors "$console")
    if grep -q "csumtune-e2e: icmp-socket FAIL" "$console" && [[ $traffic -ne 0 && $errors =~ ^[0-9]+$ && $errors -gt 0 ]]; then
      pass "the broken copy ($(cat "$WORK/shape$n/copy-shape")) was caught: $(grep -o 'icmp-socket FAIL.*' "$console" | head -1); $(grep FAIL "$WORK/shape$n/traffic.log" | head -1) InCsumErrors $errors"
    else
      fail "the broken copy was not caught (icmp: $(grep -o 'icmp-socket.*' "$console" | head -1); traffic status $traffic, InCsumErrors $errors)"
    fi
  else
    verdict "$n" "$traffic" max
    # A kernel whose csum_partial or copy needs ADX boots on a CPU without it too (qemu64): its
    # ALTERNATIVE's adc body runs there, and must never take an invalid opcode. (A file that
    # needs nothing of the CPU runs the same code there: that boot would test nothing new.)
    if [[ -f $WORK/shape$n/adx ]]; then
      boot_shape "$n" qemu64
      verdict "$n" $? qemu64
    fi
  fi
done
restore_tree
log "kernel.tree took $SECONDS s (times are emulated by TCG: not speeds)"
finish
