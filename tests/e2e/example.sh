#!/usr/bin/env bash
# The example outside project, built against a fresh `cmake --install` of this build: it
# must load a tuned kernel (the committed results for this CPU when there are any) and print
# the right Internet checksum for every file, including empty and odd-length ones.
set -euo pipefail
BUILD=${1:?usage: example.sh BUILD_DIR SOURCE_DIR}
SOURCE=${2:?}
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/outside-project.sh"
work=$(tmpdir)
build_outside_project "$BUILD" "$SOURCE/examples/checksum-files" "$work"

head -c 0 /dev/urandom >"$work/empty"
head -c 1 /dev/urandom >"$work/one"
head -c 1501 /dev/urandom >"$work/odd"
head -c 3000001 /dev/urandom >"$work/big"   # more than one 1 MiB chunk, odd length
printf '\xff%.0s' $(seq 1 4096) >"$work/ones"
files=("$work/empty" "$work/one" "$work/odd" "$work/big" "$work/ones")

# The installed share/csumtune/results of this (relocated: a temporary --prefix) install is
# where best() looks, with no CSUMTUNE_RESULTS to point it there. On a CPU without committed
# results, a run for this host is put there (a committed kernel-safe run given this host's CPU
# fields, with its winner.S), so the check below runs on every machine.
key=$(python3 -c 'import json,subprocess,sys; print(json.loads(subprocess.check_output([sys.argv[1], "cpu", "--json"]))["key"])' "$BUILD/tuner/csumtune")
installed="$work/prefix/share/csumtune/results"
if ! ls "$installed/$key"/*/results.json >/dev/null 2>&1; then
  mkdir -p "$installed/$key/kernel"
  cp "$SOURCE/results/amd-19-11-1-0a1bbd54/kernel/winner.S" "$installed/$key/kernel/winner.S"
  "$BUILD/tuner/csumtune" cpu --json | python3 -c '
import json, sys
host = json.load(sys.stdin)
d = json.load(open(sys.argv[1]))
d["cpu"] = {k: host[k] for k in ("key", "vendor", "brand", "family", "model", "stepping", "microcode", "features")}
json.dump(d, open(sys.argv[2], "w"))' "$SOURCE/results/amd-19-11-1-0a1bbd54/kernel/results.json" "$installed/$key/kernel/results.json"
fi
unset CSUMTUNE_RESULTS
# Your own results come before the installed ones (best()'s search path): an empty directory
# of this test's, so a developer's own run cannot stand in for the installed one.
mkdir "$work/xdg"
export XDG_DATA_HOME="$work/xdg"
"$work/build/checksum-files" "${files[@]}" >"$work/got" 2>"$work/origin"
check "every file's checksum is right (empty, odd lengths, over a 1 MiB chunk)" python3 - "$work/got" "${files[@]}" <<'PY'
import sys
got = open(sys.argv[1]).read().split("\n")
for line, path in zip(got, sys.argv[2:]):
    data = open(path, "rb").read()
    if len(data) % 2:
        data += b"\0"
    s = sum(int.from_bytes(data[i:i + 2], "little") for i in range(0, len(data), 2))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    want = f"{(~s) & 0xFFFF:04x}  {path}"
    if line != want:
        sys.exit(f"got '{line}', expected '{want}'")
print(f"{len(sys.argv) - 2} files checksummed correctly")
PY
cat "$work/origin"
check "loaded the results installed for this CPU ($key) under the relocated prefix" \
  grep -q "$installed/$key/.*results.json" "$work/origin"
# A missing file is an error (exit 2), not a crash.
expect --as "a missing file refused" 2 -- "$work/build/checksum-files" "$work/nope"
finish
