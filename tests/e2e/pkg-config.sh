#!/usr/bin/env bash
# The installed pkg-config file: after `cmake --install` into a temporary prefix,
#   cc main.c $(pkg-config --cflags --libs csumtune)
# builds the C example (examples/checksum-files) and the C consumer (every carry family) with
# nothing else on the command line; they run, the example prints known checksums, and it
# finds a run put in the user's results directory ($XDG_DATA_HOME/csumtune/results).
set -euo pipefail
BUILD=${1:?usage: pkg-config.sh BUILD_DIR SOURCE_DIR}
SOURCE=${2:?}
source "$(dirname "$0")/lib.sh"
command -v pkg-config >/dev/null || skip "pkg-config is not installed (apt-get install pkg-config)"
work=$(tmpdir)
cmake --install "$BUILD" --prefix "$work/prefix" >/dev/null || die "cmake --install failed"
pc=$(find "$work/prefix" -name csumtune.pc -path '*/pkgconfig/*')
check "csumtune.pc is installed under the libdir's pkgconfig/ ($pc)" test -f "$pc"
export PKG_CONFIG_PATH=$(dirname "$pc")
flags=$(pkg-config --cflags --libs csumtune) || die "pkg-config --cflags --libs csumtune failed"
log "pkg-config --cflags --libs csumtune: $flags"
check "pkg-config names the package's libraries" contains "$flags" -lcsumtune -lcsumtune_gen -lasmjit -lfmt
version=$(sed -n 's/^project(csumtune VERSION \([0-9.]*\).*/\1/p' "$SOURCE/CMakeLists.txt")
check "pkg-config --modversion is the project's version ($version)" \
  test "$(pkg-config --modversion csumtune)" = "$version"
results=$(pkg-config --variable=resultsdir csumtune)
check "resultsdir is the installed results ($results)" test -d "$results"

# Plain cc, nothing but what pkg-config says (word splitting of $flags intended).
# shellcheck disable=SC2086
check "cc builds the C example with pkg-config's flags" \
  cc -o "$work/checksum-files" "$SOURCE/examples/checksum-files/main.c" $flags
# shellcheck disable=SC2086
check "cc builds the C consumer with pkg-config's flags" \
  cc -o "$work/consumer" "$SOURCE/tests/consumer/consumer.c" $flags
check "the C consumer runs (one kernel of every carry family against its reference)" "$work/consumer"

# Known checksums, as the example prints them (the 16-bit value in host, little-endian, order):
# RFC 1071's example bytes 00 01 f2 03 f4 f5 f6 f7 (its sum ddf2 in network order: f2dd here,
# complemented 0d22), an empty file (ffff), 4096 bytes of ff (0000), and the odd-length
# "Hello, world!" (b3be).
printf '\x00\x01\xf2\x03\xf4\xf5\xf6\xf7' >"$work/rfc1071"
: >"$work/empty"
printf '\xff%.0s' $(seq 1 4096) >"$work/ones"
printf 'Hello, world!' >"$work/hello"
expected="0d22  $work/rfc1071
ffff  $work/empty
0000  $work/ones
b3be  $work/hello"
got=$(env -u CSUMTUNE_RESULTS XDG_DATA_HOME="$work/no-xdg" \
  "$work/checksum-files" "$work/rfc1071" "$work/empty" "$work/ones" "$work/hello" 2>"$work/origin") ||
  fail "checksum-files exited $?: $(cat "$work/origin")"
check "the pkg-config-built example prints the known checksums" test "$got" = "$expected" ||
  echo "      got: $got"
log "origin: $(cat "$work/origin")"

# A run put in the user's results directory is what best() uses: this CPU's committed run when
# there is one, else a committed kernel-safe run given this host's CPU fields (with its winner.S).
key=$("$BUILD/tuner/csumtune" cpu --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["key"])')
user="$work/xdg/csumtune/results"
mkdir -p "$user/$key/kernel"
if ls "$SOURCE/results/$key"/kernel/results.json >/dev/null 2>&1; then
  cp "$SOURCE/results/$key/kernel/results.json" "$SOURCE/results/$key/kernel/winner.S" "$user/$key/kernel/"
else
  cp "$SOURCE/results/amd-19-11-1-0a1bbd54/kernel/winner.S" "$user/$key/kernel/winner.S"
  "$BUILD/tuner/csumtune" cpu --json | python3 -c '
import json, sys
host = json.load(sys.stdin)
d = json.load(open(sys.argv[1]))
d["cpu"] = {k: host[k] for k in ("key", "vendor", "brand", "family", "model", "stepping", "microcode", "features")}
json.dump(d, open(sys.argv[2], "w"))' "$SOURCE/results/amd-19-11-1-0a1bbd54/kernel/results.json" "$user/$key/kernel/results.json"
fi
got=$(env -u CSUMTUNE_RESULTS XDG_DATA_HOME="$work/xdg" \
  "$work/checksum-files" "$work/rfc1071" "$work/empty" "$work/ones" "$work/hello" 2>"$work/origin") ||
  fail "checksum-files exited $?: $(cat "$work/origin")"
check "with the user's run: the same checksums" test "$got" = "$expected"
origin=$(cat "$work/origin")
log "origin: $origin"
check "best() took the run in \$XDG_DATA_HOME/csumtune/results/$key" contains "$origin" "$user/$key/kernel/results.json"
finish
