#!/usr/bin/env bash
# What the IFUNC dispatch of an `emit --library` library costs on this CPU: the library of the
# committed Zen 4 and Zen 5 kernel runs (this CPU gets its own body or the portable one), and
# tests/library/dispatch_cost.c timing csum_partial through the IFUNC against a direct call of
# the same body, pinned, at 40 and 1500 bytes (or the lengths given), with the caller built
# with and without -fno-plt. A benchmark: run it on a quiet machine; the figures are TSC ticks
# per call.
#
#   scripts/dispatch-cost.sh [LEN...]        (CSUMTUNE=path/to/csumtune, CPU=1, ROUNDS=2001)
set -euo pipefail
cd "$(dirname "$0")/.."
CSUMTUNE=${CSUMTUNE:-build/tuner/csumtune}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$CSUMTUNE" emit --library --results results/amd-19-11-1-0a1bbd54/kernel \
  --results results/amd-1a-02-1-5d4b381f/kernel -o "$work/lib" >/dev/null 2>&1
make -s -C "$work/lib" >/dev/null
printf '#include <stdio.h>\n#include "csumtune_library.h"\nint main(void) { puts(csum_partial_variant()); return 0; }\n' >"$work/variant.c"
cc -O2 -I"$work/lib" -o "$work/variant" "$work/variant.c" "$work/lib/libcsumtune_library.a"
body=csum_partial_$("$work/variant" | tr -- '-.' '__')
# Both loops start on 64-byte boundaries, so that code placement is not what differs. Two
# builds of the caller: calls through the PLT entry (the default), and -fno-plt, where the
# call itself goes through the GOT slot (no PLT jump).
flags=(-O2 -falign-functions=64 -falign-loops=64 -I"$work/lib" -DDIRECT="$body")
cc "${flags[@]}" -o "$work/dispatch_cost" tests/library/dispatch_cost.c "$work/lib/libcsumtune_library.a"
cc "${flags[@]}" -fno-plt -o "$work/dispatch_cost_noplt" tests/library/dispatch_cost.c \
  "$work/lib/libcsumtune_library.a"
[[ $# -gt 0 ]] || set -- 40 1500
echo "caller built with PLT calls (the default):"
"$work/dispatch_cost" "${CPU:-1}" "${ROUNDS:-2001}" "$@"
echo "caller built with -fno-plt:"
"$work/dispatch_cost_noplt" "${CPU:-1}" "${ROUNDS:-2001}" "$@"
