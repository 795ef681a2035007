#!/usr/bin/env bash
# The example outside project, built against a fresh `cmake --install` of this build: it
# must load a tuned kernel (the committed results for this CPU when there are any) and print
# the right Internet checksum for every file, including empty and odd-length ones.
set -euo pipefail
BUILD=${1:?usage: example.sh BUILD_DIR SOURCE_DIR}
SOURCE=${2:?}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/outside-project.sh"
build_outside_project "$BUILD" "$SOURCE/examples/checksum-files" "$WORK"

head -c 0 /dev/urandom >"$WORK/empty"
head -c 1 /dev/urandom >"$WORK/one"
head -c 1501 /dev/urandom >"$WORK/odd"
head -c 3000001 /dev/urandom >"$WORK/big"   # more than one 1 MiB chunk, odd length
printf '\xff%.0s' $(seq 1 4096) >"$WORK/ones"
files=("$WORK/empty" "$WORK/one" "$WORK/odd" "$WORK/big" "$WORK/ones")

# The installed share/csumtune/results of this (relocated: a temporary --prefix) install is
# where best() looks, with no CSUMTUNE_RESULTS to point it there.
unset CSUMTUNE_RESULTS
"$WORK/build/checksum-files" "${files[@]}" >"$WORK/got" 2>"$WORK/origin"
python3 - "$WORK/got" "${files[@]}" <<'PY'
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
        sys.exit(f"FAIL: got '{line}', expected '{want}'")
print(f"ok: {len(sys.argv) - 2} files checksummed correctly")
PY
cat "$WORK/origin"
key=$(python3 -c 'import json,subprocess,sys; print(json.loads(subprocess.check_output([sys.argv[1], "cpu", "--json"]))["key"])' "$BUILD/tuner/csumtune")
if [[ -d "$SOURCE/results/$key" ]] && ls "$SOURCE"/results/"$key"/*/results.json >/dev/null 2>&1; then
  grep -q "$WORK/prefix/share/csumtune/results/.*results.json" "$WORK/origin" || { echo "FAIL: committed results for $key are installed under the relocated prefix but were not used: $(cat "$WORK/origin")"; exit 1; }
  echo "ok: loaded the committed results for this CPU ($key)"
fi
# A missing file is an error (exit 2), not a crash.
if "$WORK/build/checksum-files" "$WORK/nope" 2>/dev/null; then echo "FAIL: missing file accepted"; exit 1; fi
echo "ok: missing file refused"
