#!/usr/bin/env bash
# Compares the search algorithms on measured ground truth: replays an exhaustive run's
# results.json with every algorithm, several budgets and seeds (no measuring: the answers
# come from the table), and writes a markdown table of how close each came to the optimum.
#
#   scripts/compare-search.sh EXHAUSTIVE_RESULTS_JSON [OUT.md]
set -euo pipefail
TABLE=${1:?usage: compare-search.sh EXHAUSTIVE_RESULTS_JSON [OUT.md]}
OUT=${2:-/dev/stdout}
CSUMTUNE=${CSUMTUNE:-$(dirname "$0")/../build/tuner/csumtune}
SEEDS=${SEEDS:-10}
lines=$(mktemp)
trap 'rm -f "$lines"' EXIT
# Every registered strategy but the exhaustive one (the ground truth itself).
for algorithm in $("$CSUMTUNE" tune --list-algorithms | grep -vx exhaustive); do
  for budget in 100 200 400 800 1600; do
    for seed in $(seq 1 "$SEEDS"); do
      "$CSUMTUNE" tune --replay "$TABLE" --kernel-safe --algorithm "$algorithm" --budget "$budget" \
        --seed "$seed" --time 0 >>"$lines"
    done
  done
done
python3 - "$lines" "$TABLE" >"$OUT" <<'PY'
import collections, json, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = dict(kv.split("=", 1) for kv in line.split(" stopped=")[0].split())
    rows[(f["algorithm"], int(f["budget"]))].append(f)
table = json.load(open(sys.argv[2]))
ok = [e for e in table["evaluations"] if e["status"] == "ok"]
best = min(ok, key=lambda e: e["score"])
print(f"# Search algorithms against exhaustive ground truth\n")
print(f"Ground truth: `{sys.argv[2]}` — profile `{table['workload']['profile']}` "
      f"({table['workload']['cache']} cache, kernel-safe), {len(ok)} kernels measured; optimum "
      f"`{best['params']}` at score {best['score']:.4f} (time relative to the Linux-like reference).\n")
print("Each cell: the search replayed against that table (`csumtune tune --replay`), "
      f"{len(next(iter(rows.values())))} seeds each. *gap* = found score / optimum − 1.\n")
print("| algorithm | budget | unique evaluations (median) | share of the space | median gap | worst gap | seeds within 2 % | median rank |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for (algorithm, budget), fs in sorted(rows.items()):
    gaps = [float(f["gap_percent"]) for f in fs]
    unique = statistics.median(int(f["unique"]) for f in fs)
    within = sum(g <= 2.0 for g in gaps)
    rank = statistics.median(int(f["rank"]) for f in fs)
    print(f"| {algorithm} | {budget} | {unique:.0f} | {100 * unique / len(ok):.2f} % | "
          f"{statistics.median(gaps):.2f} % | {max(gaps):.2f} % | {within}/{len(fs)} | {rank:.0f} |")
PY
