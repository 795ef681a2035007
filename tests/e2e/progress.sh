#!/usr/bin/env bash
# tune's progress line in a terminal of 60 and of 200 columns (a pseudo-terminal): every
# redraw fits the width (never wraps), names its phase, and the summary says the search time
# and the whole time apart; with stderr not a terminal, or --quiet, no progress at all.
#
#   tests/e2e/progress.sh CSUMTUNE
set -uo pipefail
CSUMTUNE=${1:?usage: progress.sh CSUMTUNE}
source "$(dirname "$0")/lib.sh"
work=$(tmpdir)
# The narrow terminal sees every phase (frame and polish stages included); the wide one and the
# pipe only need the search, the finalists and the sweep.
tiny=(tune --kernel-safe --budget 12 --sizes "40:3,1500:1" --finalists 2)
for columns in 60 200; do
  stages=(--polish-shapes 0 --frame-shapes 0)
  [[ $columns == 60 ]] && stages=(--polish-shapes 1 --frame-shapes 1)
  check "the progress line in $columns columns" python3 - "$columns" "$work/run$columns" "$CSUMTUNE" "${tiny[@]}" "${stages[@]}" <<'PY'
import fcntl, os, pty, re, select, struct, sys, termios
columns, out, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    os.execv(argv[0], argv + ["--out", out])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
data = b""
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
_, status = os.waitpid(pid, 0)
text = data.decode(errors="replace")
assert os.WEXITSTATUS(status) == 0, text[-2000:]
# Each redraw starts with \r; erase-to-end sequences are not characters on the screen.
frames = [re.sub(r"\x1b\[K", "", f) for f in re.split(r"[\r\n]+", text)]
drawn = [f for f in frames if f.startswith("tune: ")]
assert drawn, text[-2000:]
too_wide = [f for f in drawn if len(f) > columns - 1]
assert not too_wide, (columns, too_wide[:3])
phases = {f.split()[1].rstrip(",") for f in drawn}
assert {"search", "finalists", "sweep"} <= phases, phases
# The narrow run has the polish and frame stages: their redraws must fit as well.
assert columns != 60 or {"polish", "frames"} <= phases, phases
assert re.search(r"^search .* in [0-9.]+ s;", text, re.M), text[-1500:]
assert re.search(r"^time +[0-9.]+ s in all \(search [0-9.]+ s;", text, re.M), text[-1500:]
print(f"{columns} columns: {len(drawn)} redraws, none wider than {columns - 1}; phases {sorted(phases)}")
PY
done
# Not a terminal: only the summary.
"$CSUMTUNE" "${tiny[@]}" --polish-shapes 0 --frame-shapes 0 --out "$work/pipe" >"$work/out" 2>"$work/err"
status=$?
if [[ $status -eq 0 ]] && ! grep -qE $'(^|\r)tune: ' "$work/err" && grep -q "^time " "$work/out"; then
  pass "stderr not a terminal: no progress line, the summary on stdout"
else
  fail "progress written to a non-terminal (status $status): $(head -c 300 "$work/err")"
fi
finish
