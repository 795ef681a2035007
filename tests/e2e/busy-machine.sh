#!/usr/bin/env bash
# Tuning on a busy machine, with a load of our own: a CPU-bound loop pinned to the measuring
# CPU, time-sliced with the tuner (a load on the other CPU would not disturb it). Checks that
#  1. a tune under the load reports its contention (stdout, results.json, report.md, show);
#  2. with --wait-quiet, a tune started under a load that ends waits it out, measures only
#     after it, and says so;
#  3. when the load outlasts --wait-quiet's limit the run goes on and says so;
#  4. Ctrl-C while waiting ends the run at once, resumable;
#  5. a run remembers this CPU's quickest loads ÷ chain, and a run that cannot get near the
#     remembered figure says so; a garbled file is no failure.
# Nothing is timed against a threshold: the figures checked are the scheduler's.
set -u
CSUMTUNE=${1:?usage: busy-machine.sh path/to/csumtune}
source "$(dirname "$0")/lib.sh"
work=$(tmpdir)
loads=()
stop_loads() {
  for pid in "${loads[@]}"; do kill "$pid" 2>/dev/null; done
}
on_exit stop_loads

# The last CPU this process may run on (not nproc - 1: under a cpuset such as 2-3 that CPU is
# not ours, and taskset/--cpu would refuse it).
cpu=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
tiny=(tune --kernel-safe --budget 16 --sizes "40:7,1500:1" --frame-shapes 0 --polish-shapes 0 --finalists 2 --cpu "$cpu"
      --set-size 64)

# load SECONDS: a busy loop on the measuring CPU for SECONDS (0 = until killed).
load() {
  if [[ $1 -gt 0 ]]; then
    taskset -c "$cpu" timeout "$1" sh -c 'while :; do :; done' &
  else
    taskset -c "$cpu" sh -c 'while :; do :; done' &
  fi
  loads+=($!)
}

# contention PYTHON-EXPRESSION RESULTS.JSON: the expression holds of the file's contention
# object (c; the whole file is d).
contention() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c=d['contention']; assert $1, (c['phases'], c['waited_seconds'])" "$2"
}

# 1. Busy all along.
load 0
out=$("$CSUMTUNE" "${tiny[@]}" --out "$work/busy" --quiet 2>&1)
kill "${loads[-1]}"
check "busy: the summary says so" contains "$out" "machine  the machine was busy during"
check "busy: the winner may differ" contains "$out" "the winner may differ in a quiet period"
check "busy: run-queue wait recorded for the search" contention \
  "c['phases'][0]['phase'] == 'search' and c['phases'][0]['run_queue_wait_share'] > 0.2 and c['disturbed']" \
  "$work/busy/results.json"
check "busy: report.md says so at the top" contains "$(head -3 "$work/busy/report.md")" "**Machine: the machine was busy"
check "busy: show says so" contains "$("$CSUMTUNE" show "$work/busy/results.json")" "machine      the machine was busy"

# Parts 2-4 each start without a remembered quiet probe: what part 1 left must not decide
# whether they wait (part 5 checks the remembering).
first_cache=$CSUMTUNE_CACHE_DIR

# 2. A load for the first 6 seconds; --wait-quiet waits it out.
export CSUMTUNE_CACHE_DIR=$work/cache-wait
load 6
start=$(date +%s)
out=$("$CSUMTUNE" "${tiny[@]}" --out "$work/wait" --quiet --wait-quiet=120 2>&1)
status=$?
end=$(date +%s)
check "wait: the run completes (status $status)" test "$status" -eq 0
# What the wait is for is the load: after it, the search shares its CPU with nothing (the
# run-queue wait of its measurements is near zero; the load alone put it near one half). A
# measurement can still be marked disturbed by a slow baseline probe on a noisy VM (the
# frequency, a neighbour): no wait removes that, and the run reports it, which is the monitor
# doing its job, not a failure of the wait.
check "wait: it waited for the load, the search shared its CPU with nothing, within the limit" \
  contention "c['waited_seconds'] >= 3 and c['phases'][0]['phase'] == 'search' and \
  c['phases'][0]['run_queue_wait_share'] < 0.02 and not c['wait_limit_ran_out']" \
  "$work/wait/results.json"
check "wait: lasted past the load (ended after $((end - start)) s)" test $((end - start)) -ge 6

# 3. The load outlasts the limit: the run goes on and says so.
export CSUMTUNE_CACHE_DIR=$work/cache-limit
load 0
out=$("$CSUMTUNE" "${tiny[@]}" --out "$work/limit" --quiet --wait-quiet=2 2>&1)
kill "${loads[-1]}"
check "limit: says the limit ran out" contains "$out" "the 2 s limit ran out while busy"
check "limit: recorded" contention "c['wait_limit_ran_out'] and c['disturbed']" "$work/limit/results.json"

# 3b. The time limit runs out while waiting, before anything was measured: nothing was wrong,
# so not "no correct candidate" (exit 1) but a message that says what happened (exit 2).
export CSUMTUNE_CACHE_DIR=$work/cache-nothing
load 0
out=$("$CSUMTUNE" "${tiny[@]}" --out "$work/nothing" --quiet --wait-quiet=5 --time 3 2>&1)
status=$?
kill "${loads[-1]}"
check "time out while waiting: exit 2 (status $status)" test "$status" -eq 2
check "time out while waiting: says nothing was measured" contains "$out" "no candidate was measured"

# 4. Ctrl-C while waiting.
export CSUMTUNE_CACHE_DIR=$work/cache-int
load 0
"$CSUMTUNE" "${tiny[@]}" --out "$work/int" --quiet --wait-quiet=600 >/dev/null 2>&1 &
pid=$!
sleep 2
kill -INT "$pid"
start=$(date +%s)
wait "$pid"
status=$?
end=$(date +%s)
kill "${loads[-1]}"
check "interrupt: exit 130 (status $status)" test "$status" -eq 130
check "interrupt: stopped waiting at once (in $((end - start)) s)" test $((end - start)) -le 3

# 5. The remembered quiet probe. Run 1 was time-sliced at every probe: it leaves nothing to
# remember. A quiet run remembers its quickest loads ÷ chain (when other tests keep the CPU
# busy at every probe it has none, and then must leave the file alone: both are checked).
export CSUMTUNE_CACHE_DIR=$first_cache
check "reference: a run busy at every probe remembers nothing" contention \
  "c['quietest_loads_per_chain'] == 0 and c['probes'][0]['loads'] > 0" "$work/busy/results.json"
check "reference: nor writes a file" test -z "$(ls "$CSUMTUNE_CACHE_DIR" 2>/dev/null)"
# remembered RESULTS.JSON FILE: FILE holds the run's quickest quiet figure, or (none) is absent.
remembered() {
  python3 - "$1" "$2" <<'PY'
import json, os, sys
q = json.load(open(sys.argv[1]))["contention"]["quietest_loads_per_chain"]
path = sys.argv[2]
if q == 0:
    assert not os.path.exists(path), "a run with no quiet probe wrote " + path
else:
    name, value = open(path).read().split()
    assert name == "loads_per_chain" and abs(float(value) - q) < 1e-5, (value, q)
PY
}
out=$("$CSUMTUNE" "${tiny[@]}" --out "$work/quiet" --quiet 2>&1)
reference=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['contention']['quiet_reference_file'])" "$work/quiet/results.json")
check "reference: named in results.json, under CSUMTUNE_CACHE_DIR" contains "$reference" "$CSUMTUNE_CACHE_DIR/quiet-probe-v1-"
check "reference: a quiet run remembers its quickest loads ÷ chain" remembered "$work/quiet/results.json" "$reference"
mkdir -p "$CSUMTUNE_CACHE_DIR"
# The quickest figure a file may hold (four load ports): every probe is judged against it,
# and on a CPU whose probe is more than 10 % slower than that (every one with three load
# ports or fewer) the summary must say so (it is said, not counted as busy).
echo "loads_per_chain 0.450000" >"$reference"
out=$("$CSUMTUNE" "${tiny[@]}" --out "$work/sibling" --quiet 2>&1)
# judged RESULTS.JSON OUTPUT: each probe's load slowdown is its loads ÷ chain over 0.45, and
# the summary names the sibling exactly when one of them is above 1.10.
judged() {
  python3 - "$1" "$2" "$reference" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["contention"]
assert c["quiet_loads_per_chain_remembered"] == 0.45, c["quiet_loads_per_chain_remembered"]
for p in c["probes"]:
    expected = max(1.0, p["loads_per_chain"] / 0.45)
    assert abs(p["load_slowdown"] - expected) < 1e-6, (p["at"], p["load_slowdown"], expected)
busy = any(p["load_slowdown"] > 1.10 for p in c["probes"])
said = ("quickest earlier run (perhaps a busy core sibling; remembered in %s; not counted as busy)" % sys.argv[3]) in sys.argv[2]
assert busy == said, (busy, said)
PY
}
check "reference: every probe judged against it, the sibling named when beyond 10 %" \
  judged "$work/sibling/results.json" "$out"
check "reference: only ever lowered" grep -qx 'loads_per_chain 0.450000' "$reference"
printf 'loads_per_chain \x00\xff garbage\n' >"$reference"
out=$("$CSUMTUNE" "${tiny[@]}" --out "$work/garbled" --quiet 2>&1)
status=$?
check "reference: a garbled file is no failure (status $status)" test "$status" -eq 0
check "reference: not judged by it" contention "c['quiet_loads_per_chain_remembered'] == 0" \
  "$work/garbled/results.json"
if python3 -c "import json,sys; sys.exit(json.load(open(sys.argv[1]))['contention']['quietest_loads_per_chain'] == 0)" "$work/garbled/results.json"; then
  check "reference: a garbled file is replaced by what the run measured" remembered "$work/garbled/results.json" "$reference"
fi
finish
