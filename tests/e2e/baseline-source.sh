#!/usr/bin/env bash
# bench/tune --baseline-source: the real arch/x86/lib/csum-partial_64.c of Debian's
# linux-source-6.1 (v5.17's algorithm) and linux-source-6.12 (v6.8's: the 80-byte loop, the
# early return at 40 bytes) built for user space, verified (with the readable slack their
# zero-padding tail load needs) and timed beside our own linux-v5.17 and linux-v6.8; bad files
# refused with exit 2, a wrong one with exit 1. The extracted file is cached outside the
# checkout. Exit 77 (skipped) without root to install the package; 1 then in CI.
#
#   tests/e2e/baseline-source.sh CSUMTUNE
set -uo pipefail
CSUMTUNE=${1:?usage: baseline-source.sh CSUMTUNE}
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/packages.sh"
ensure_packages baseline-source linux-source-6.1 linux-source-6.12 xz-utils

tree=$(linux_source_tree) || exit 1
file=$tree/arch/x86/lib/csum-partial_64.c
work=$(tmpdir)

# The real file: verified, timed, named after its tree; the note about the slack said.
"$CSUMTUNE" bench --baseline --baseline-source "$file" --sizes 40,1500 --repeat 5 --format json \
  >"$work/bench.json" 2>"$work/err"
status=$?
check "bench --baseline-source exits 0 (status $status: $(head -c 300 "$work/err"))" test $status -eq 0
check "the note on the slack is printed" grep -q "readable bytes after each buffer" "$work/err"
check "the source kernel is in the report" python3 - "$work/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k = {k["name"]: k for k in d["kernels"]}
src = k["linux-6.1.192 (source)"] if "linux-6.1.192 (source)" in k else next(v for n, v in k.items() if n.endswith("(source)"))
assert src["kind"] == "baseline-source" and src["params"].endswith("csum-partial_64.c")
assert "linux-v5.17" in k and all(r["per_byte"]["median"] > 0 for r in src["results"])
PY

# Linux v6.8's algorithm as the kernel really ships it: 6.12's file beside the 6.1 one and
# both of our own implementations, in one run.
tree612=$(linux_source_tree 6.12) || exit 1
"$CSUMTUNE" bench --baseline --baseline-source "$tree612/arch/x86/lib/csum-partial_64.c" \
  --baseline-source "$file" --sizes 1,40,41,1500 --repeat 5 --format json >"$work/bench612.json" 2>"$work/err"
status=$?
check "bench with 6.12's and 6.1's files exits 0 (status $status: $(head -c 300 "$work/err"))" test $status -eq 0
check "both trees' files are timed, named by their versions" python3 - "$work/bench612.json" "$tree612/Makefile" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
mk = open(sys.argv[2]).read()
v = ".".join(re.search(r"^%s = (\d+)" % k, mk, re.M).group(1) for k in ("VERSION", "PATCHLEVEL", "SUBLEVEL"))
names = [k["name"] for k in d["kernels"]]
assert f"linux-{v} (source)" in names, (v, names)
assert sum(n.startswith("linux-6.1.") and n.endswith("(source)") for n in names) == 1, names
assert "linux-v6.8" in names and "linux-v5.17" in names
for k in d["kernels"]:
    assert len(k["results"]) == 4 and all(r["per_byte"]["median"] > 0 for r in k["results"]), k["name"]
PY

# --baseline-place: the file built once per entry offset in a line, each verified and timed,
# named by its place; an offset a 16-byte aligned function cannot have, exit 2.
"$CSUMTUNE" bench --baseline-source "$tree612" --baseline-place 0,48 --sizes 20 --repeat 5 \
  --format json >"$work/placed.json" 2>"$work/err"
status=$?
check "bench --baseline-place 0,48 exits 0 (status $status: $(head -c 300 "$work/err"))" test $status -eq 0
check "the file is timed at byte 0 and at byte 48 of a line" python3 - "$work/placed.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = [k["name"] for k in d["kernels"] if k["kind"] == "baseline-source"]
assert len(names) == 2 and names[0].endswith(" place=0") and names[1].endswith(" place=48"), names
PY
expect --as "--baseline-place 8 is refused" 2 "not in {0,16,32,48}" -- \
  "$CSUMTUNE" bench --baseline-source "$tree612" --baseline-place 8 --sizes 20 --repeat 5
expect --as "--baseline-place 16,16 is refused" 2 "gives 16 twice" -- \
  "$CSUMTUNE" bench --baseline-source "$tree612" --baseline-place 16,16 --sizes 20 --repeat 5
expect --as "--baseline-place without --baseline-source is refused" 2 "give one" -- \
  "$CSUMTUNE" bench --baseline-place 16 --sizes 20 --repeat 5

# The tree's top directory and Debian's source archive stand for the file (the kind picks
# csum-partial_64.c or csum-copy_64.S); the name still comes from the tree's Makefile.
"$CSUMTUNE" bench --baseline-source /usr/src/linux-source-6.12.tar.xz --baseline-source "$tree612" \
  --sizes 40 --repeat 5 --format json >"$work/archive.json" 2>"$work/err"
status=$?
check "bench --baseline-source ARCHIVE and TREE exit 0 (status $status: $(head -c 300 "$work/err"))" test $status -eq 0
check "the archive and the tree are 6.12's csum_partial" python3 - "$work/archive.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
src = [k for k in d["kernels"] if k["kind"] == "baseline-source"]
assert len(src) == 2 and all(k["name"].startswith("linux-6.12.") for k in src), src
assert src[0]["params"].endswith(".tar.xz"), src[0]["params"]
PY
"$CSUMTUNE" bench --params carry=adc,kind=copy --baseline-source "$tree612" --sizes 40 --repeat 5 \
  --format json >"$work/treecopy.json" 2>"$work/err"
check "a tree for copying kernels is its csum-copy_64.S (status $?)" python3 -c '
import json, sys
k = json.load(open(sys.argv[1]))["kernels"][0]
assert k["kind"] == "baseline-source" and k["name"].startswith("linux-6.12."), k' "$work/treecopy.json"

# Ctrl-C while the archive is extracted: the run ends as interrupted (130) and its scratch
# directory goes with it. A full $TMPDIR: exit 2 with a message.
mkdir "$work/tmp"
TMPDIR=$work/tmp env --default-signal=INT "$CSUMTUNE" bench --baseline-source /usr/src/linux-source-6.12.tar.xz \
  --sizes 40 --repeat 5 >/dev/null 2>&1 &
pid=$!
sleep 1
kill -INT $pid
wait $pid
status=$?
check "Ctrl-C during the extraction exits 130 (status $status)" test $status -eq 130
check "and leaves no scratch directory ($(ls "$work/tmp"))" test -z "$(ls -A "$work/tmp")"
TMPDIR=/nonexistent-dir "$CSUMTUNE" bench --baseline-source "$file" --sizes 40 --repeat 5 >/dev/null 2>"$work/err"
status=$?
check "no place for the scratch directory -> 2 (status $status)" bash -c "[[ $status -eq 2 ]] && grep -q 'cannot create a temporary directory' '$work/err'"

# --same-address: the file and the generated kernel copied to each round's address and timed
# there; a built-in baseline too when its code runs the same from there, and the table says
# which stayed where they were.
"$CSUMTUNE" bench --same-address --baseline --baseline-source "$tree612" --params carry=adc,chains=2,unroll=8 \
  --sizes 17,1500 --repeat 5 --format json >"$work/same.json" 2>"$work/err"
status=$?
check "bench --same-address exits 0 (status $status: $(head -c 300 "$work/err"))" test $status -eq 0
check "bench --same-address moves the file and the kernel (a built-in baseline only if it can be)" python3 - "$work/same.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
w = d["workload"]
assert w["code_addresses"] == "shared", w
names = [k["name"] for k in d["kernels"]]
kept = w["kept_in_place"]
assert set(kept) <= {"plain-c", "linux-v6.8", "linux-v5.17", "linux-like"}, kept
assert "linux-v6.8" in names and any(n.endswith("(source)") for n in names), names
PY
"$CSUMTUNE" bench --same-address --baseline-source "$tree612" --sizes 17 --repeat 5 >"$work/same.txt" 2>"$work/err"
check "the table says where the code ran" grep -q "^code: each round copies every kernel" "$work/same.txt"
expect --as "--same-address with --count-instructions is refused" 2 "goes with timed --params rows" -- \
  "$CSUMTUNE" bench --same-address --count-instructions --sizes 17
expect --as "--same-address with copying kernels is refused" 2 "moves summing kernels" -- \
  "$CSUMTUNE" bench --same-address --params carry=adc,chains=4,unroll=16,kind=copy --sizes 17 --repeat 5
expect --as "--same-address with --baseline-place is refused" 2 "cannot go with it" -- \
  "$CSUMTUNE" bench --same-address --baseline-source "$tree612" --baseline-place 0,16 --sizes 17 --repeat 5
expect --as "--same-address with a place=N kernel is refused" 2 "asks for place=32" -- \
  "$CSUMTUNE" bench --same-address --params carry=adc,chains=2,unroll=8,place=32 --sizes 17 --repeat 5

# tune against the tree's own file, by default at shared addresses: the rounds place the code,
# so the placement stage measures the winner's two targets only, at its own place.
"$CSUMTUNE" tune --kernel-safe --baseline-source "$file" --budget 6 --frame-shapes 0 --polish-shapes 0 --finalists 2 \
  --out "$work/tune-shared" --quiet >"$work/tune-shared.out" 2>&1
check "tune --baseline-source at shared addresses (status $?: $(tail -c 300 "$work/tune-shared.out"))" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] and d["search"]["code_addresses"] == "shared", d["search"]
assert not any("baseline_placed_per_byte" in p for p in d["sweep"])
rows = d["guard"].get("placement")
if rows:  # (none when the aligned twin of the winner is the same bytes)
    assert len(rows) == 2, rows
    assert {r["targets"] for r in rows} == {"packed", "aligned"}, rows
    assert all(r["place"] == d["guard"]["placement"][0]["place"] for r in rows), rows' "$work/tune-shared/results.json"
check "its report says so" grep -q "^- code addresses: shared" "$work/tune-shared/report.md"
expect --as "--resume with --own-addresses refuses a run timed at shared addresses" 2 "own-addresses differs" -- \
  "$CSUMTUNE" tune --kernel-safe --baseline-source "$file" --budget 6 --own-addresses --resume --out "$work/tune-shared" --quiet

# With --own-addresses, each where it was built: the sweep measures the file at its four
# placements, and the placement stage runs.
"$CSUMTUNE" tune --kernel-safe --baseline-source "$file" --budget 6 --frame-shapes 0 --polish-shapes 0 --finalists 2 \
  --own-addresses --out "$work/tune" --quiet >"$work/tune.out" 2>&1
check "tune --baseline-source --own-addresses (status $?: $(tail -c 300 "$work/tune.out"))" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] and d["measure"]["reference"].endswith("(source)")
assert d["winner"]["baseline"].endswith("(source)")
# The sweep measured the file at its four placements too.
placed = [p for p in d["sweep"] if "baseline_placed_per_byte" in p]
assert placed and len(placed) == len(d["sweep"]), (len(placed), len(d["sweep"]))
assert all(len(p["baseline_placed_per_byte"]) == 4 and p["time_ratio_to_slowest_placement"] > 0 for p in placed)
assert "placement" in d["guard"]
assert d["search"]["code_addresses"] == "own"' "$work/tune/results.json"

# Copying kernels against the tree's own csum-copy_64.S, assembled unmodified (through
# stand-in <linux/linkage.h>, <asm/asm.h>, <asm/errno.h>), verified as a copy and timed.
copyfile=$tree/arch/x86/lib/csum-copy_64.S
"$CSUMTUNE" bench --params carry=adc,chains=4,unroll=16,kind=copy --baseline --baseline-source "$copyfile" \
  --sizes 40,1500 --repeat 5 --format json >"$work/copy.json" 2>"$work/err"
status=$?
check "bench kind=copy --baseline-source csum-copy_64.S exits 0 (status $status: $(head -c 300 "$work/err"))" test $status -eq 0
check "the tree's csum-copy_64.S is in the copy report, first" python3 - "$work/copy.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
src = d["kernels"][0]
assert src["kind"] == "baseline-source" and src["params"].endswith("csum-copy_64.S"), src
assert src["name"].endswith("(source)") and all(r["per_byte"]["median"] > 0 for r in src["results"])
assert any(k["name"] == "linux-csum-copy" for k in d["kernels"])
PY
"$CSUMTUNE" bench --params carry=adc --baseline-source "$copyfile" --sizes 40 --repeat 5 >/dev/null 2>"$work/e"
check "csum-copy_64.S is not a csum_partial baseline (exit $?)" grep -q "a baseline for copying kernels" "$work/e"
"$CSUMTUNE" bench --params carry=adc,kind=copy --baseline-source "$file" --sizes 40 --repeat 5 >/dev/null 2>"$work/e"
check "csum-partial_64.c is not a copy baseline (exit $?)" grep -q "copying kernels take a tree" "$work/e"
printf '#include <linux/linkage.h>\nSYM_FUNC_START(csum_partial_copy_generic)\n\txorl %%eax, %%eax\n\tRET\nSYM_FUNC_END(csum_partial_copy_generic)\n' >"$work/wrong-copy.S"
"$CSUMTUNE" bench --params carry=adc,kind=copy --baseline-source "$work/wrong-copy.S" --sizes 40 --repeat 5 >/dev/null 2>"$work/e"
status=$?
check "a copy that copies nothing -> 1 (status $status)" bash -c "[[ $status -eq 1 ]] && grep -q 'is wrong' '$work/e'"
printf '#include <linux/linkage.h>\nSYM_FUNC_START(something_else)\n\tRET\nSYM_FUNC_END(something_else)\n' >"$work/nosym.S"
"$CSUMTUNE" bench --params carry=adc,kind=copy --baseline-source "$work/nosym.S" --sizes 40 --repeat 5 >/dev/null 2>"$work/e"
status=$?
check "a .S without csum_partial_copy_generic -> 2 (status $status)" bash -c "[[ $status -eq 2 ]] && grep -q 'defines no csum_partial_copy_generic' '$work/e'"

# Bad input: exit 2 with a message; a wrong implementation: exit 1.
# baseline STATUS TEXT FILE: bench --baseline-source FILE exits STATUS, saying TEXT.
baseline() {
  expect --as "--baseline-source $(basename "$3") ($2)" "$1" "$2" -- \
    "$CSUMTUNE" bench --baseline-source "$3" --sizes 40 --repeat 5
}
baseline 2 "does not exist" "$work/none.c"
mkdir "$work/dir.c"
baseline 2 "not a kernel tree" "$work/dir.c"
mkfifo "$work/fifo.c"
baseline 2 "not a regular file" "$work/fifo.c"
echo 'not an archive' >"$work/fake.tar.xz"
baseline 2 "not a kernel source archive" "$work/fake.tar.xz"
echo 'int not_a_checksum(void) { return 0; }' >"$work/nosym.c"
tar -cJf "$work/other.tar.xz" -C "$work" nosym.c
baseline 2 "defines no csum_partial" "$work/nosym.c"
baseline 2 "not a kernel source archive" "$work/other.tar.xz"
mkdir -p "$work/evil/linux-9.9/arch/x86/lib"
ln -s /etc/hostname "$work/evil/linux-9.9/arch/x86/lib/csum-partial_64.c"
tar -cJf "$work/evil.tar.xz" -C "$work/evil" linux-9.9
baseline 2 "symbolic link" "$work/evil.tar.xz"
echo 'this is not C' >"$work/broken.c"
baseline 2 "does not build" "$work/broken.c"
cat >"$work/wrong.c" <<'C'
#include <asm/checksum.h>
__wsum csum_partial(const void *buff, int len, __wsum sum) {
  const unsigned char *p = buff;
  u64 s = sum;
  for (int i = 0; i + 1 < len; i += 2) s += p[i] | p[i + 1] << 8;  /* drops an odd last byte */
  while (s >> 32) s = (s & 0xffffffff) + (s >> 32);
  return (__wsum)s;
}
C
baseline 1 "is wrong" "$work/wrong.c"

# Hostile trees and archives: every file goes through the bounded reader (a regular file, of
# bounded size, no link where a link could lead out of the tree). Each answer comes within
# seconds (timeout 60 would say 124).
good=$(cat "$file")
newtree() {  # newtree DIR: a tree with the real csum-partial_64.c and a top Makefile
  mkdir -p "$1/arch/x86/lib"
  printf '%s\n' "$good" >"$1/arch/x86/lib/csum-partial_64.c"
  printf 'VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\n' >"$1/Makefile"
}
# baseline_60s STATUS TEXT PATH [VAR=VALUE...]: the same, with those variables, within 60 s.
baseline_60s() {
  local want=$1 text=$2 path=$3
  shift 3
  expect --as "--baseline-source ${path#"$work"/} ($text)" "$want" "$text" -- \
    env "$@" timeout 60 "$CSUMTUNE" bench --baseline-source "$path" --sizes 40 --repeat 5
}
newtree "$work/t-link" && ln -sf /etc/hostname "$work/t-link/arch/x86/lib/csum-partial_64.c"
baseline_60s 2 "symbolic link" "$work/t-link"
newtree "$work/t-dirlink" && mv "$work/t-dirlink/arch/x86/lib" "$work/t-dirlink-lib" &&
  ln -s "$work/t-dirlink-lib" "$work/t-dirlink/arch/x86/lib"
baseline_60s 2 "link out of the tree" "$work/t-dirlink"
newtree "$work/t-fifo" && rm "$work/t-fifo/Makefile" && mkfifo "$work/t-fifo/Makefile"
baseline_60s 2 "not a regular file" "$work/t-fifo"
newtree "$work/t-zero" && ln -sf /dev/zero "$work/t-zero/Makefile"
baseline_60s 2 "symbolic link" "$work/t-zero"
newtree "$work/t-huge" && truncate -s 8G "$work/t-huge/Makefile"
baseline_60s 0 "" "$work/t-huge"
newtree "$work/t-bigc" && truncate -s 20G "$work/t-bigc/arch/x86/lib/csum-partial_64.c"
baseline_60s 2 "too large" "$work/t-bigc"
truncate -s 20G "$work/big.c"
baseline_60s 2 "too large" "$work/big.c"
mkdir -p "$work/sparse/linux-9.9/arch/x86/lib" && printf 'VERSION = 9\nPATCHLEVEL = 9\n' >"$work/sparse/linux-9.9/Makefile"
truncate -s 2G "$work/sparse/linux-9.9/arch/x86/lib/csum-partial_64.c"
tar -cSf "$work/sparse.tar" -C "$work/sparse" linux-9.9
baseline_60s 2 "too large" "$work/sparse.tar"
mkdir -p "$work/afifo/linux-9.9/arch/x86/lib" && printf '%s\n' "$good" >"$work/afifo/linux-9.9/arch/x86/lib/csum-partial_64.c"
mkfifo "$work/afifo/linux-9.9/Makefile"
tar -cf "$work/afifo.tar" -C "$work/afifo" linux-9.9
baseline_60s 2 "not a regular file" "$work/afifo.tar"

# The user's code runs in a child first: whatever it does there, csumtune answers with a
# message naming the file, removes its scratch folder, and stays responsive.
scratch=$work/scratch && mkdir -p "$scratch"
hostile() {  # hostile NAME CODE: a csum_partial file that does something else too
  cat >"$work/$1.c" <<C
#include <asm/checksum.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
$2
C
}
plain='__wsum plain(const void *b, int len, __wsum sum) { const unsigned char *p = b; u64 s = sum;
  for (int i = 0; i < len; i++) s += (i & 1) ? (u64)p[i] << 8 : p[i];
  while (s >> 32) s = (s & 0xffffffff) + (s >> 32); return (__wsum)s; }'
hostile ctor-exit "$plain
__attribute__((constructor)) static void c(void) { exit(0); }
__wsum csum_partial(const void *b, int len, __wsum sum) { return plain(b, len, sum); }"
baseline_60s 2 "ended the process (exit status 0)" "$work/ctor-exit.c" TMPDIR="$scratch"
hostile call-abort "$plain
__wsum csum_partial(const void *b, int len, __wsum sum) { if (len == 77) abort(); return plain(b, len, sum); }"
baseline_60s 2 "ended the process (signal 6" "$work/call-abort.c" TMPDIR="$scratch"
hostile call-crash "$plain
__wsum csum_partial(const void *b, int len, __wsum sum) { if (len == 300) *(volatile int *)0 = 1; return plain(b, len, sum); }"
# (a fault is caught by the verifier's trap: a wrong kernel, exit 1)
baseline_60s 1 "is wrong" "$work/call-crash.c" TMPDIR="$scratch"
hostile ctor-loop "$plain
__attribute__((constructor)) static void c(void) { for (;;) pause(); }
__wsum csum_partial(const void *b, int len, __wsum sum) { return plain(b, len, sum); }"
baseline_60s 2 "did not finish within 3 s" "$work/ctor-loop.c" TMPDIR="$scratch" CSUMTUNE_BASELINE_SECONDS=3
hostile call-loop "$plain
__wsum csum_partial(const void *b, int len, __wsum sum) { while (len == 513) {} return plain(b, len, sum); }"
baseline_60s 2 "did not finish within 3 s" "$work/call-loop.c" TMPDIR="$scratch" CSUMTUNE_BASELINE_SECONDS=3
hostile prints "$plain
__wsum csum_partial(const void *b, int len, __wsum sum) { if (len == 5) puts(\"hello\"); return plain(b, len, sum); }"
baseline_60s 2 "printed while it was loaded" "$work/prints.c" TMPDIR="$scratch"
# Subtler ones: a forked child that outlives the call, kill(0, ...), changed signal handlers,
# an alarm, closed standard descriptors, destructors that print or exit: each refused in the
# probe, within its deadline, and csumtune's caller never hit.
hostile fork "$plain
__wsum csum_partial(const void *b, int len, __wsum sum) { static int f; if (!f++ && !fork()) { sleep(45); _exit(0); } return plain(b, len, sum); }"
baseline_60s 0 "" "$work/fork.c" TMPDIR="$scratch" CSUMTUNE_BASELINE_SECONDS=10
hostile kill0 "#include <signal.h>
$plain
__wsum csum_partial(const void *b, int len, __wsum sum) { static int f; if (!f++) kill(0, SIGTERM); return plain(b, len, sum); }"
out=$(setsid bash -c "TMPDIR='$scratch' timeout 60 '$CSUMTUNE' bench --baseline-source '$work/kill0.c' --sizes 40 --repeat 5 >/dev/null 2>'$work/e'; echo \"status \$?\"")
check "kill(0, SIGTERM) reaches only the probe: exit 2, the caller lives ($out: $(head -c 120 "$work/e"))" \
  bash -c "[[ '$out' == 'status 2' ]] && grep -q 'ended the process (signal 15' '$work/e'"
hostile sigs "#include <signal.h>
$plain
__wsum csum_partial(const void *b, int len, __wsum sum) { signal(SIGINT, SIG_IGN); return plain(b, len, sum); }"
baseline_60s 2 "changes the process it runs in" "$work/sigs.c" TMPDIR="$scratch"
hostile alarm "$plain
__wsum csum_partial(const void *b, int len, __wsum sum) { static int f; if (!f++) alarm(100); return plain(b, len, sum); }"
baseline_60s 2 "changes the process it runs in" "$work/alarm.c" TMPDIR="$scratch"
hostile closefds "$plain
__wsum csum_partial(const void *b, int len, __wsum sum) { close(0); return plain(b, len, sum); }"
baseline_60s 2 "changes the process it runs in" "$work/closefds.c" TMPDIR="$scratch"
hostile dtor-print "$plain
__attribute__((destructor)) static void d(void) { puts(\"DTORJUNK\"); }
__wsum csum_partial(const void *b, int len, __wsum sum) { return plain(b, len, sum); }"
baseline_60s 2 "printed while it was loaded" "$work/dtor-print.c" TMPDIR="$scratch"
hostile dtor-exit "$plain
__attribute__((destructor)) static void d(void) { _exit(7); }
__wsum csum_partial(const void *b, int len, __wsum sum) { return plain(b, len, sum); }"
baseline_60s 2 "ended the process (exit status 7)" "$work/dtor-exit.c" TMPDIR="$scratch"
for bad in abc 0 -1 nan inf 1e400 '2 '; do
  baseline_60s 2 "is not a number of seconds" "$work/ctor-loop.c" TMPDIR="$scratch" CSUMTUNE_BASELINE_SECONDS="$bad"
done

# Ctrl-C and SIGTERM while the user's constructor loops: gone within two seconds, status of
# the signal, nothing left behind.
for sig in INT TERM; do
  # (env --default-signal: a background job of a script starts with SIGINT ignored)
  env --default-signal=INT,TERM TMPDIR="$scratch" "$CSUMTUNE" bench --baseline-source "$work/ctor-loop.c" --sizes 40 >/dev/null 2>&1 &
  pid=$!
  sleep 3
  kill -s $sig $pid
  start=$SECONDS
  wait $pid
  status=$?
  want=$((128 + $(kill -l $sig)))
  check "SIG$sig while the baseline loops: exit $want in <= 2 s (status $status, $((SECONDS - start)) s)" \
    bash -c "[[ $status -eq $want && $((SECONDS - start)) -le 2 ]]"
done
check "no scratch folder left behind ($(find "$scratch" -mindepth 1 -maxdepth 1 | head -3 | tr '\n' ' '))" test -z "$(ls -A "$scratch")"

finish
