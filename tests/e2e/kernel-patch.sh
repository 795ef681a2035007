#!/usr/bin/env bash
# csumtune patch on a real tree (Debian's linux-source-6.1, the parts it reads, cached outside
# the checkout): the patch for the committed kernel-safe winner and for a shape of every GPR
# family applies (patch -p1 and git apply), says the tree's version, removes the .c and adds
# the .S; in a git checkout it is a format-patch that git am takes, with no Signed-off-by;
# with figures the commit message has the 2013 thread's table; SIMD params, a tree already
# patched, a non-x86 tree and bad options are refused with exit 2. Exit 77 (skipped) without
# root to install the package; 1 then in CI.
#
#   tests/e2e/kernel-patch.sh CSUMTUNE SOURCE_DIR
set -uo pipefail
CSUMTUNE=${1:?usage: kernel-patch.sh CSUMTUNE SOURCE_DIR}
SOURCE=${2:?usage: kernel-patch.sh CSUMTUNE SOURCE_DIR}
source "$(dirname "$0")/packages.sh"
ensure_packages kernel-patch linux-source-6.1 xz-utils patch git
failures=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then echo "ok:   $what"; else echo "FAIL: $what"; failures=$((failures + 1)); fi
}
expect() {  # expect STATUS STDERR-SUBSTRING -- command args...
  local want=$1 text=$2
  shift 3
  local err status
  err=$("$@" 2>&1 >/dev/null)
  status=$?
  check "'$*' -> $want ($text)" bash -c "[[ $status -eq $want && \"\$1\" == *\"\$2\"* ]]" _ "$err" "$text"
}

tree=$(linux_source_tree) || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
winner=$SOURCE/results/amd-19-11-1-0a1bbd54/kernel/results.json

# The committed winner and one shape of every GPR family: each patch applies to the tree.
n=0
for what in "--results $winner" "--params carry=adc,chains=4,unroll=16" \
            "--params carry=adcx,chains=2,unroll=8,words=loop" \
            "--params carry=add32,chains=3,unroll=9,tail=overlap" \
            "--params carry=cmov,chains=2,unroll=8,exact=40,short=0"; do
  n=$((n + 1))
  # shellcheck disable=SC2086
  "$CSUMTUNE" patch --tree "$tree" $what --no-figures -o "$work/$n.patch" 2>"$work/$n.err"
  check "patch $what exits 0 ($(head -c 200 "$work/$n.err"))" test $? -eq 0
  check "patch $what applies (patch -p1 --dry-run)" bash -c "cd '$tree' && patch -p1 --dry-run -s <'$work/$n.patch'"
  check "patch $what: subject, version, files, no Signed-off-by" bash -c "
    head -1 '$work/$n.patch' | grep -q '^x86/csum: ' &&
    grep -q 'as v6.1.[0-9]* wants' '$work/$n.patch' && grep -q '^+#include <asm/export.h>' '$work/$n.patch' &&
    grep -q '^deleted file mode 100644' '$work/$n.patch' && grep -q '^new file mode 100644' '$work/$n.patch' &&
    grep -q 'bytes after' '$work/$n.patch' && ! grep -q 'Signed-off-by' '$work/$n.patch'"
done

# kind=copy: csum-copy_64.S rewritten in place; applies; then the replaced file is refused.
"$CSUMTUNE" patch --tree "$tree" --params carry=adc,chains=6,unroll=30,tail=overlap,kind=copy \
  -o "$work/copy.patch" 2>"$work/copy.err"
check "patch kind=copy with figures exits 0 ($(head -c 200 "$work/copy.err"))" test $? -eq 0
check "the copy patch applies (patch -p1 --dry-run)" bash -c "cd '$tree' && patch -p1 --dry-run -s <'$work/copy.patch'"
check "the copy patch: subject, the tree's file rewritten, fault contract, figures" bash -c "
  head -1 '$work/copy.patch' | grep -q '^x86/csum: Replace csum_partial_copy_generic()' &&
  grep -q '^+++ b/arch/x86/lib/csum-copy_64.S' '$work/copy.patch' &&
  grep -q '^+SYM_FUNC_START(csum_partial_copy_generic)' '$work/copy.patch' &&
  grep -q '^+	_ASM_EXTABLE_UA(' '$work/copy.patch' && grep -q '^+#include <asm/asm.h>' '$work/copy.patch' &&
  grep -q 'length |     Set Sz |   before |    after' '$work/copy.patch' &&
  grep -q '^Code size of csum_partial_copy_generic(): [0-9]* bytes before' '$work/copy.patch' &&
  ! grep -q 'Signed-off-by' '$work/copy.patch'"
mkdir -p "$work/copied/arch/x86/lib" "$work/nocopy/arch/x86/lib"
cp "$tree/Makefile" "$work/copied/" && cp "$tree/Makefile" "$work/nocopy/"
cp "$tree/arch/x86/lib/csum-copy_64.S" "$work/copied/arch/x86/lib/"
(cd "$work/copied" && patch -p1 -s <"$work/copy.patch")
expect 2 "is csumtune's already" -- "$CSUMTUNE" patch --tree "$work/copied" --params carry=adc,kind=copy --no-figures
expect 2 "has no arch/x86/lib/csum-copy_64.S" -- "$CSUMTUNE" patch --tree "$work/nocopy" --params carry=adc,kind=copy --no-figures

# A git checkout: format-patch shape, git am applies it as a commit of its own.
git_tree=$work/git-tree
mkdir -p "$git_tree/arch/x86/lib"
cp "$tree/Makefile" "$git_tree/"
cp "$tree/arch/x86/lib/csum-partial_64.c" "$git_tree/arch/x86/lib/"
git -C "$git_tree" init -q
git -C "$git_tree" config user.name "A Developer"
git -C "$git_tree" config user.email "dev@example.org"
git -C "$git_tree" add -A
git -C "$git_tree" commit -qm "the tree"
"$CSUMTUNE" patch --tree "$git_tree" --results "$winner" --no-figures -o "$work/git.patch"
check "a git checkout gets a format-patch" grep -q "^From: A Developer <dev@example.org>" "$work/git.patch"
check "git am applies it" git -C "$git_tree" am -q "$work/git.patch"
check "the commit replaces the .c by the .S" bash -c "
  [[ -f '$git_tree/arch/x86/lib/csum-partial_64.S' && ! -e '$git_tree/arch/x86/lib/csum-partial_64.c' ]] &&
  git -C '$git_tree' log -1 --format=%s | grep -q '^x86/csum: '"
# The subject names the CPU the results were tuned on (not this machine), fits 72 columns with
# no trailing space; the body's "Regenerate:" line has no absolute path.
check "the subject: the results' CPU, <= 72 columns, no trailing space; no absolute path" python3 - "$work/git.patch" "$winner" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
brand = " ".join(json.load(open(sys.argv[2]))["cpu"]["brand"].split())
subject = re.search(r"^Subject: \[PATCH\] (.*)$", text, re.M).group(1)
assert len(subject) <= 72 and not subject.endswith(" "), subject
assert subject.startswith("x86/csum: Replace csum_partial() with a loop tuned for "), subject
assert brand.startswith(subject.split(" tuned for ", 1)[1]), (subject, brand)
regen = re.search(r"^Regenerate: (.*)$", text, re.M).group(1)
assert " /" not in regen and "results/" in regen, regen
PY

# A git identity that would inject a mail header (a newline in user.name) is not used.
evil_tree=$work/evil-git
mkdir -p "$evil_tree/arch/x86/lib"
cp "$tree/Makefile" "$evil_tree/" && cp "$tree/arch/x86/lib/csum-partial_64.c" "$evil_tree/arch/x86/lib/"
git -C "$evil_tree" init -q
git -C "$evil_tree" config user.name "$(printf 'Evil\nSubject: injected')"
git -C "$evil_tree" config user.email "dev@example.org"
"$CSUMTUNE" patch --tree "$evil_tree" --params carry=adc --no-figures -o "$work/evil.patch" 2>"$work/evil.err"
check "a newline in user.name adds no header (the identity is refused, said on stderr)" bash -c "
  ! grep -q '^Subject: injected' '$work/evil.patch' && ! grep -q '^From: Evil' '$work/evil.patch' &&
  grep -q 'control character' '$work/evil.err'"
# The patch of an ADX winner says so and carries the adc body chosen at boot.
"$CSUMTUNE" patch --tree "$tree" --params carry=adcx,chains=4,unroll=16 --no-figures -o "$work/adx.patch"
check "an ADX patch names ADX and its boot-time fallback" bash -c "
  grep -q 'which need ADX' '$work/adx.patch' && grep -q '^+ \* needs: *ADX' '$work/adx.patch' &&
  grep -q '^+	ALTERNATIVE \"jmp .Lcsum_partial_noadx\", \"\", X86_FEATURE_ADX' '$work/adx.patch' &&
  grep -q '^+\.Lcsum_partial_noadx:' '$work/adx.patch' &&
  grep -q '^+#include <asm/alternative.h>' '$work/adx.patch'"
"$CSUMTUNE" patch --tree "$tree" --params carry=adc,chains=4,unroll=16 --no-figures -o "$work/plain.patch"
check "a patch without ADX says it needs nothing beyond x86-64" bash -c "
  grep -q 'nothing of the CPU beyond x86-64' '$work/plain.patch' && ! grep -q 'ALTERNATIVE' '$work/plain.patch'"

# The patched tree is refused: its file was replaced already.
expect 2 "already has arch/x86/lib/csum-partial_64.S" -- "$CSUMTUNE" patch --tree "$git_tree" --params carry=adc --no-figures

# With figures: the tree's own file built and timed against the new code (values not judged).
"$CSUMTUNE" patch --tree "$tree" --params carry=adc,chains=4,unroll=16 -o "$work/figures.patch" 2>"$work/figures.err"
check "patch with figures exits 0 ($(head -c 200 "$work/figures.err"))" test $? -eq 0
check "the 2013 thread's table against the tree's own file" bash -c "
  grep -q 'length |     Set Sz |   before |    after' '$work/figures.patch' &&
  grep -q '1500 |  1500B hot' '$work/figures.patch' && grep -q '9000 |       256M' '$work/figures.patch' &&
  grep -q '^Code size of csum_partial(): [0-9]* bytes before' '$work/figures.patch'"

# Refused with exit 2.
expect 2 "uses vector registers" -- "$CSUMTUNE" patch --tree "$tree" --params carry=avx512,chains=2,unroll=4 --no-figures
expect 2 "may not touch" -- "$CSUMTUNE" patch --tree "$tree" --params carry=avx2,chains=2,unroll=8,kind=copy --no-figures
mkdir -p "$work/arm/arch/arm64/lib"
cp "$tree/Makefile" "$work/arm/"
expect 2 "not an x86 kernel tree" -- "$CSUMTUNE" patch --tree "$work/arm" --params carry=adc --no-figures
expect 2 "is not a directory" -- "$CSUMTUNE" patch --tree "$work/none" --params carry=adc
expect 2 "--tree is required" -- "$CSUMTUNE" patch --params carry=adc
expect 2 "needs --params P or --results FILE" -- "$CSUMTUNE" patch --tree "$tree"
expect 2 "needs --params P or --results FILE" -- "$CSUMTUNE" patch --tree "$tree" --params carry=adc --results "$winner"
expect 2 "bad --params" -- "$CSUMTUNE" patch --tree "$tree" --params chains=0 --no-figures
expect 2 "" -- "$CSUMTUNE" patch --tree "$tree" --params carry=adc --no-figures -o /nonexistent/dir/x.patch

[[ $failures -eq 0 ]] && echo "kernel-patch: all checks passed" || { echo "kernel-patch: $failures failed"; exit 1; }
