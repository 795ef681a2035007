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
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/packages.sh"
ensure_packages kernel-patch linux-source-6.1 xz-utils patch git

tree=$(linux_source_tree 6.1) || exit 1
work=$(tmpdir)
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
  grep -q 'arch/x86/lib/csum-copy_64.S carries \"Copyright 2002, 2003 Andi Kleen,' '$work/copy.patch' &&
  ! grep -q 'Signed-off-by' '$work/copy.patch'"
mkdir -p "$work/copied/arch/x86/lib" "$work/nocopy/arch/x86/lib"
cp "$tree/Makefile" "$work/copied/" && cp "$tree/Makefile" "$work/nocopy/"
cp "$tree/arch/x86/lib/csum-copy_64.S" "$work/copied/arch/x86/lib/"
(cd "$work/copied" && patch -p1 -s <"$work/copy.patch")
expect 2 "is csumtune's already" -- "$CSUMTUNE" patch --tree "$work/copied" --params carry=adc,kind=copy --no-figures
expect 2 "has no arch/x86/lib/csum-copy_64.S" -- "$CSUMTUNE" patch --tree "$work/nocopy" --params carry=adc,kind=copy --no-figures

# The kernel's own style check, strict: no finding in any of the patches above but the
# missing Signed-off-by (the sender's to add) and, where a file is replaced by one of another
# name, checkpatch's question whether MAINTAINERS needs updating (it does not: arch/x86/lib/ is
# the X86 ARCHITECTURE entry's, whatever the file is called).
checkpatch_findings() {
  perl "$tree/scripts/checkpatch.pl" --strict --no-tree --show-types --no-summary --terse "$1" 2>&1 |
    grep -E '(ERROR|WARNING|CHECK):' | grep -vE ':(MISSING_SIGN_OFF|FILE_PATH_CHANGES):'
}
for p in "$work"/[0-9].patch "$work/copy.patch"; do
  findings=$(checkpatch_findings "$p")
  check "checkpatch.pl --strict $(basename "$p"): nothing but the Signed-off-by ($findings)" test -z "$findings"
done
# The patch of several bodies: the same, but for the selection's prototypes of the assembly
# bodies (AVOID_EXTERNS: they are declared where they are used) and the csumtune= parameter
# (UNDOCUMENTED_SETUP: kernel-parameters.txt is the maintainer's to extend).
"$CSUMTUNE" patch --tree "$tree" --results "$SOURCE/results/amd-19-11-1-0a1bbd54/kernel" \
  --results "$SOURCE/results/amd-1a-02-1-5d4b381f/kernel" --results "$SOURCE/results/amd-19-11-1-0a1bbd54/copy-kernel" \
  --results "$SOURCE/results/amd-19-01-1-ce148854/copy-kernel" -o "$work/multi.patch" 2>"$work/multi.err"
check "patch of several bodies, both functions, exits 0 ($(head -c 300 "$work/multi.err"))" \
  grep -q "^+++ b/arch/x86/lib/csum-select_64.c" "$work/multi.patch"
findings=$(checkpatch_findings "$work/multi.patch" | grep -vE ':(AVOID_EXTERNS|UNDOCUMENTED_SETUP):')
check "checkpatch.pl --strict multi.patch (several bodies, both functions): nothing else ($findings)" test -z "$findings"
check "checkpatch.pl reads multi.patch (it can fail: a line of 120 columns is found)" bash -c \
  "sed '0,/^+ \* csum_partial_copy_generic(): one body/s//+ * $(printf 'y%.0s' {1..110})/' '$work/multi.patch' >'$work/multi-long.patch' &&
   perl '$tree/scripts/checkpatch.pl' --strict --no-tree --show-types --terse '$work/multi-long.patch' | grep -q LONG_LINE"
long=$(printf 'x%.0s' {1..110})
sed "0,/^+ \* params:/s//+ * params:  $long/" "$work/1.patch" >"$work/long.patch"
check "checkpatch.pl --strict can fail (a header line of 120 columns)" bash -c \
  "perl '$tree/scripts/checkpatch.pl' --strict --no-tree --show-types --terse '$work/long.patch' | grep -q LONG_LINE"

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
# The command as a shell reads it: backslash-newline joins its lines (the body wraps at 75).
regen = re.search(r"^Regenerate: ((?:.*\\\n)*.*)$", text, re.M).group(1).replace("\\\n", "")
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
# Several runs (bodies picked at boot): what cannot share a kernel is refused too.
zen4=$SOURCE/results/amd-19-11-1-0a1bbd54
zen3=$SOURCE/results/amd-19-01-1-ce148854
expect 2 "appears twice" -- "$CSUMTUNE" patch --tree "$tree" --results "$zen4/copy-kernel" --results "$zen4/copy-kernel" -o /dev/null
expect 2 "uses vector registers" -- "$CSUMTUNE" patch --tree "$tree" --results "$zen4/copy-kernel" --results "$zen4/copy-imix" -o /dev/null
expect 2 "uses vector registers" -- "$CSUMTUNE" patch --tree "$tree" --results "$winner" --results "$zen4/imix" -o /dev/null
expect 2 "holds several runs" -- "$CSUMTUNE" patch --tree "$tree" --results "$zen4" --results "$zen3/copy-kernel" -o /dev/null
expect 2 "copies: the generic body" -- "$CSUMTUNE" patch --tree "$tree" --results "$winner" --fallback carry=adc,kind=copy -o /dev/null

# A results file's text (brand, profile, contention...) reaches the message and the .S header
# one line each: no second Subject:, no escape byte, no bidi override, no "*/" ending the comment.
make_results() {  # make_results OUT BRAND: the winner's results.json with cpu.brand = BRAND
  # (and cpu.key the one those fields give, as csumtune's refusal of the edited file names it)
  python3 - "$winner" "$1" "$2" "$CSUMTUNE" "$tree" <<'PY'
import json, re, subprocess, sys
d = json.load(open(sys.argv[1]))
d["cpu"]["brand"] = sys.argv[3]
d["workload"]["profile"] = d["workload"]["profile"] + "\n\x1b[31mSubject: profile"
json.dump(d, open(sys.argv[2], "w"))
err = subprocess.run([sys.argv[4], "patch", "--tree", sys.argv[5], "--results", sys.argv[2],
                      "--no-figures", "-o", "/dev/null"], capture_output=True, text=True).stderr
key = re.search(r"its CPU fields give (\S+):", err)
if key:
    d["cpu"]["key"] = key.group(1)
    json.dump(d, open(sys.argv[2], "w"))
PY
}
make_git_tree() {  # make_git_tree DIR NAME EMAIL: a git checkout of the tree's two files
  mkdir -p "$1/arch/x86/lib"
  cp "$tree/Makefile" "$1/" && cp "$tree/arch/x86/lib/csum-partial_64.c" "$1/arch/x86/lib/"
  git -C "$1" init -q
  git -C "$1" config user.name "$2"
  git -C "$1" config user.email "$3"
}
make_results "$work/esc.json" "$(printf 'AMD\x1b[2J\nSubject: evil\xe2\x80\xaeEPYC')"
make_git_tree "$work/inj-git" "A Developer" "dev@example.org"
"$CSUMTUNE" patch --tree "$work/inj-git" --results "$work/esc.json" --no-figures -o "$work/esc.patch" 2>"$work/esc.err"
check "an escape and a newline in cpu.brand: exit 0 ($(head -c 200 "$work/esc.err"))" test -s "$work/esc.patch"
check "... one Subject: line, no ESC byte, no U+202E, no CR" bash -c "
  [[ \$(grep -c '^Subject:' '$work/esc.patch') -eq 1 ]] && ! grep -q \$'\x1b' '$work/esc.patch' &&
  ! grep -q \$'\xe2\x80\xae' '$work/esc.patch' && ! grep -q \$'\r' '$work/esc.patch' &&
  grep -q 'AMD?\[2J?Subject: evil?EPYC' '$work/esc.patch'"
check "... git am takes it as one commit with the safe subject" bash -c "
  git -C '$work/inj-git' add -A && git -C '$work/inj-git' commit -qm tree &&
  git -C '$work/inj-git' am -q '$work/esc.patch' &&
  git -C '$work/inj-git' log -1 --format=%s | grep -q '^x86/csum: .*tuned for AMD?\[2J?Subject:$'"
make_results "$work/code.json" 'AMD */ .globl pwned; pwned: ud2; /* EPYC'
"$CSUMTUNE" patch --tree "$tree" --results "$work/code.json" --no-figures -o "$work/code.patch" 2>"$work/code.err"
check "'*/' in cpu.brand: exit 0 ($(head -c 200 "$work/code.err"))" test -s "$work/code.patch"
# The added .S through the preprocessor (its #includes left out): the comments gone, no pwned.
sed -n '/^+++ b\/arch\/x86\/lib\/csum-partial_64.S/,$p' "$work/code.patch" | tail -n +3 |
  sed -n 's/^+//p' | grep -v '^#include' >"$work/code.S"
check "... the .S's header comment keeps it: the preprocessed .S has no pwned" bash -c "
  grep -q 'tuned on:.*AMD \* / .globl pwned' '$work/code.S' &&
  gcc -E -P -x assembler-with-cpp '$work/code.S' -o '$work/code.i' && grep -q csum_partial '$work/code.i' &&
  ! grep -q pwned '$work/code.i'"

# CPUID's padding squeezed wherever the brand is printed (subject, body).
make_results "$work/pad.json" 'AMD EPYC 9654 96-Core Processor   '
"$CSUMTUNE" patch --tree "$tree" --results "$work/pad.json" --no-figures -o "$work/pad.patch"
check "the brand's padding squeezed in the message and the .S (no 'Processor  (')" bash -c "
  grep -q 'Processor (key' '$work/pad.patch' && ! grep -q 'Processor  ' '$work/pad.patch' &&
  head -1 '$work/pad.patch' | grep -q '^x86/csum: .* tuned for AMD EPYC 9654\$'"

# From: as git format-patch writes it: specials quoted, UTF-8 in RFC 2047 words; bidi controls
# and overlong names refused with the reason.
make_git_tree "$work/doe" "Doe, Jane" "dev@example.org"
"$CSUMTUNE" patch --tree "$work/doe" --params carry=adc --no-figures -o "$work/doe.patch"
check "user.name 'Doe, Jane' -> From: \"Doe, Jane\" <dev@example.org>" \
  grep -qx 'From: "Doe, Jane" <dev@example.org>' "$work/doe.patch"
make_git_tree "$work/quote" 'J. "Q" Back\slash' "dev@example.org"
"$CSUMTUNE" patch --tree "$work/quote" --params carry=adc --no-figures -o "$work/quote.patch"
check "a quote and a backslash in user.name are escaped in the quoted-string" \
  grep -qx 'From: "J. \\"Q\\" Back\\\\slash" <dev@example.org>' "$work/quote.patch"
make_git_tree "$work/utf8" "Jürgen Müller" "dev@example.org"
"$CSUMTUNE" patch --tree "$work/utf8" --params carry=adc --no-figures -o "$work/utf8.patch"
check "a UTF-8 user.name is RFC 2047 encoded and decodes back" python3 - "$work/utf8.patch" <<'PY'
import re, sys
from email.header import decode_header, make_header
line = re.search(r"^From: (.*)$", open(sys.argv[1], encoding="utf-8").read(), re.M).group(1)
assert line.startswith("=?UTF-8?B?") and line.endswith("?= <dev@example.org>"), line
name = str(make_header(decode_header(line.rsplit(" <", 1)[0])))
assert name == "Jürgen Müller", name
PY
check "git am takes the encoded author" bash -c "
  git -C '$work/utf8' add -A && git -C '$work/utf8' commit -qm tree && git -C '$work/utf8' am -q '$work/utf8.patch' &&
  [[ \$(git -C '$work/utf8' log -1 --format=%an) == 'Jürgen Müller' ]]"
make_git_tree "$work/bidi" "$(printf 'Evil\xe2\x80\xaeName')" "dev@example.org"
"$CSUMTUNE" patch --tree "$work/bidi" --params carry=adc --no-figures -o "$work/bidi.patch" 2>"$work/bidi.err"
check "a U+202E in user.name: the identity refused, said on stderr" bash -c "
  ! grep -q '^From: ' '$work/bidi.patch' && ! grep -q \$'\xe2\x80\xae' '$work/bidi.patch' &&
  grep -q 'bidi or format control' '$work/bidi.err'"
make_git_tree "$work/long" "$(printf 'N%.0s' {1..201})" "dev@example.org"
"$CSUMTUNE" patch --tree "$work/long" --params carry=adc --no-figures -o "$work/long.patch" 2>"$work/long.err"
check "a 201-character user.name: refused as over 200 characters, not as missing" bash -c "
  grep -q 'over 200 characters' '$work/long.err' && ! grep -q 'has no git user.name' '$work/long.err'"

# A tree whose arch or arch/x86/lib is a link out of it is refused (the patch would read and
# measure another tree's file).
mkdir -p "$work/link-arch" "$work/link-lib/arch/x86"
cp "$tree/Makefile" "$work/link-arch/" && cp "$tree/Makefile" "$work/link-lib/"
ln -s "$tree/arch" "$work/link-arch/arch"
ln -s "$tree/arch/x86/lib" "$work/link-lib/arch/x86/lib"
expect 2 "link-arch/arch is a symbolic link out of the tree" -- "$CSUMTUNE" patch --tree "$work/link-arch" --params carry=adc --no-figures
expect 2 "link-lib/arch/x86/lib is a symbolic link out of the tree" -- "$CSUMTUNE" patch --tree "$work/link-lib" --params carry=adc --no-figures
check "... and no patch written for either" bash -c "
  '$CSUMTUNE' patch --tree '$work/link-arch' --params carry=adc --no-figures -o '$work/link.patch' 2>/dev/null
  [[ ! -e '$work/link.patch' ]]"

# -o onto a file the patch reads or changes (directly or through a link) is refused, the file kept.
own=$work/own
mkdir -p "$own/arch/x86/lib"
cp "$tree/Makefile" "$own/" && cp "$tree/arch/x86/lib/csum-partial_64.c" "$tree/arch/x86/lib/csum-copy_64.S" "$own/arch/x86/lib/"
cp -r "$own" "$work/own-before"
ln -s "$own/Makefile" "$work/to-makefile"
expect 2 "which the patch reads or changes" -- "$CSUMTUNE" patch --tree "$own" --params carry=adc --no-figures -o "$own/arch/x86/lib/csum-partial_64.c"
expect 2 "which the patch reads or changes" -- "$CSUMTUNE" patch --tree "$own" --params carry=adc --no-figures -o "$own/arch/x86/lib/../lib/csum-partial_64.S"
expect 2 "which the patch reads or changes" -- "$CSUMTUNE" patch --tree "$own" --params carry=adc,kind=copy --no-figures -o "$own/arch/x86/lib/csum-copy_64.S"
expect 2 "which the patch reads or changes" -- "$CSUMTUNE" patch --tree "$own" --params carry=adc --no-figures -o "$own/Makefile"
expect 2 "which the patch reads or changes" -- "$CSUMTUNE" patch --tree "$own" --params carry=adc --no-figures -o "$work/to-makefile"
cp "$winner" "$work/winner-copy.json"
expect 2 "which the patch reads or changes" -- "$CSUMTUNE" patch --tree "$own" --results "$work/winner-copy.json" --no-figures -o "$work/winner-copy.json"
check "... the tree's files untouched, no .S created" bash -c "
  diff -r '$own' '$work/own-before' >/dev/null && cmp -s '$winner' '$work/winner-copy.json'"

finish
