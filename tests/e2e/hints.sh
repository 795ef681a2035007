#!/usr/bin/env bash
# Every command line csumtune prints for a user to run runs as printed: the "regenerate:" line
# of each .S header (emit: kernel and gas style, SIMD, copying; a tuned winner.S), report.md's
# "Regenerate" line (in the run's folder: winner.S again, byte for byte), the "install" line of
# tune --install (best() and show then find the run), show's hint, and kmod's "build:" line
# (its M= folder is the module's; the build itself runs where kernel headers are installed).
# Each line is taken from the output and run by bash with `csumtune` on PATH, as a user would.
#
#   tests/e2e/hints.sh CSUMTUNE
set -u
CSUMTUNE=${1:?usage: hints.sh path/to/csumtune}
source "$(dirname "$0")/lib.sh"
CSUMTUNE=$(realpath "$CSUMTUNE")
work=$(tmpdir)
mkdir "$work/bin"
ln -s "$CSUMTUNE" "$work/bin/csumtune"
export PATH="$work/bin:$PATH"
# best() and --install see only this test's directories.
unset CSUMTUNE_RESULTS
export XDG_DATA_HOME="$work/xdg"

# run_line DIR LINE: LINE run by bash in DIR; its stdout in $work/line.out, status returned.
run_line() {
  (cd "$1" && bash -c "$2") >"$work/line.out" 2>"$work/line.err"
}

# A .S header field's value: the header wraps long values at 100 columns onto lines of
# " *" and 15 spaces, breaking at a space or after a comma (joined back here the same way).
header_field() {
  awk -v field=" * $2:" '
    index($0, field) == 1 { value = substr($0, length(field) + 1); sub(/^ +/, "", value); on = 1; next }
    on && /^ \*               [^ ]/ { piece = substr($0, 18); value = value (value ~ /,$/ ? "" : " ") piece; next }
    { on = 0 }
    END { print value }' "$1"
}
# The file without the header fields whose names start with the given words (and their
# continuation lines).
without_fields() {
  local file=$1
  shift
  awk -v fields="$*" '
    BEGIN { n = split(fields, names, " ") }
    { for (i = 1; i <= n; i++) if (index($0, " * " names[i]) == 1) { skip = 1; next } }
    skip && /^ \*               [^ ]/ { next }
    { skip = 0; print }' "$file"
}

# The .S header's regenerate line prints the same file.
n=0
for what in "--params carry=adc,chains=4,unroll=16" \
            "--params carry=adcx,chains=4,unroll=8 --style gas --symbol my_csum" \
            "--params carry=avx2,chains=2,unroll=4 --style gas" \
            "--params carry=adc,chains=2,unroll=8,kind=copy"; do
  n=$((n + 1))
  # shellcheck disable=SC2086
  csumtune emit $what -o "$work/$n.S" || { fail "emit $what"; continue; }
  line=$(header_field "$work/$n.S" regenerate)
  if [[ $line == "csumtune emit "* ]] && run_line "$work" "$line" && cmp -s "$work/line.out" "$work/$n.S"; then
    pass "emit $what: '$line' prints the same file"
  else
    fail "emit $what: regenerate line '$line' ($(head -c 300 "$work/line.err"))"
  fi
done

# A tiny tune (a format check, not a measurement), installed where best() looks.
run=$work/run
if csumtune tune --sizes 64:3,1500:1 --budget 6 --frame-shapes 0 --polish-shapes 0 --finalists 1 \
     -o "$run" --quiet --install >"$work/tune.out" 2>&1; then
  pass "tune --install"
  # report.md: "Regenerate it in this folder: `LINE`" gives winner.S again.
  # shellcheck disable=SC2016
  line=$(sed -n 's/.*Regenerate it in this folder: `\([^`]*\)`.*/\1/p' "$run/report.md")
  cp "$run/winner.S" "$work/winner.before"
  if [[ -n $line ]] && run_line "$run" "$line" && cmp -s "$run/winner.S" "$work/winner.before"; then
    pass "report.md: '$line' writes winner.S again, byte for byte"
  else
    fail "report.md's Regenerate line '$line' ($(head -c 300 "$work/line.err"))"
  fi
  # winner.S's own line: the same kernel, without the tuning run's header lines.
  line=$(header_field "$run/winner.S" regenerate)
  if run_line "$run" "$line" &&
     diff <(without_fields "$run/winner.S" tuned figures) \
          <(without_fields "$work/line.out" tuned figures) >/dev/null; then
    pass "winner.S: '$line' prints the same kernel"
  else
    fail "winner.S's regenerate line '$line' ($(head -c 300 "$work/line.err"))"
  fi
  # The install line names a results.json under $XDG_DATA_HOME; best() picks it, show says so.
  installed=$(sed -n 's/^install  \([^ ]*\) .*/\1/p' "$work/tune.out")
  check "tune --install put the run under \$XDG_DATA_HOME ($installed)" \
    test -f "$installed" -a -f "$(dirname "$installed")/winner.S" -a "${installed#"$XDG_DATA_HOME"/}" != "$installed"
  out=$(csumtune show 2>&1)
  check "show without FILE lists the installed run and best() picks it" \
    contains "$out" "$installed  usable" "best() picks $installed"
  # bench --results times the run's winner.
  winner=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["winner"]["params"])' "$installed")
  out=$(csumtune bench --results "$installed" --sizes 64 --repeat 5 --format csv 2>/dev/null)
  check "bench --results times the run's winner" contains "$out" "\"$winner\""
else
  fail "tune --install: $(tail -c 600 "$work/tune.out")"
fi

# show without FILE and no run anywhere: the fallback, why, and a hint that runs.
out=$(XDG_DATA_HOME="$work/empty" csumtune show 2>&1)
check "show without runs: the default and why" contains "$out" "best() picks default" "fallback: "
hint=$(sed -n 's/^to use a tuned kernel: \(csumtune [^(]*\) (.*/\1/p' <<<"$out")
check "show's hint is a csumtune command ('$hint')" contains "$hint" "csumtune tune --install"
check "show's hint parses as a command line" bash -n -c "$hint"

# kmod: the build line's M= is the module's folder wherever it was written from; with kernel
# headers for the running kernel the line builds it.
mkdir "$work/kmod"
out=$(cd "$work/kmod" && csumtune kmod --params carry=adc,chains=4,unroll=16 -o mod)
build=$(sed -n 's/^build: //p' <<<"$out")
insmod=$(sed -n 's/^run: *//p' <<<"$out")
check "kmod's build and run lines parse" bash -n -c "$build; $insmod"
token=$(grep -o 'M=[^ ]*' <<<"$build")
m=$(cd "$work/kmod" && eval "printf '%s' ${token#M=}")
check "kmod's M= is the module folder ($m)" test -f "$m/Kbuild" -a "$m" -ef "$work/kmod/mod"
if [[ -d /lib/modules/$(uname -r)/build ]]; then
  check "kmod's build line builds the module" run_line "$work/kmod" "$build"
else
  log "no kernel headers for $(uname -r): kmod's build line parsed, not run"
fi

finish
