#!/usr/bin/env bash
# Benchmark of agreement (issue 29 item 2): every point of scenarios/paper/ and
# scenarios/today/ on the analytic and the SimGrid engines, the analytic iteration time's
# error against SimGrid's. Prints a Markdown table; commit it to bench/results/.
#   bench/analytic_agreement.sh [--out DIR]   (DIR keeps each run's results; default a
#                                              temporary folder, removed at the end)
# About 8 minutes on 2 cores (the SimGrid runs; the analytic ones take seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
possim=${POSSIM:-build/cli/possim}
out=""
[ "${1:-}" = --out ] && out=${2:?--out needs a folder}
if [ -z "$out" ]; then out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
mkdir -p "$out"
[ -x "$possim" ] || { echo "analytic_agreement: no possim at $possim (build it first)" >&2; exit 2; }
scenarios=(scenarios/paper/*.json scenarios/today/*.json)
i=0
for s in "${scenarios[@]}"; do
  i=$((i + 1))
  n=$(basename "$s" .json)
  for e in analytic simgrid; do
    echo "analytic_agreement: [$i/${#scenarios[@]}] $n on $e" >&2
    "$possim" run "$s" --engine "$e" --no-interval -q --out "$out/$n.$e" > "$out/$n.$e.log" 2>&1 ||
      { echo "analytic_agreement: $s failed on $e (log $out/$n.$e.log)" >&2; exit 1; }
  done
done
echo "# Analytic engine against SimGrid: every shipped paper and today point"
echo
echo "$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
echo "command: bench/analytic_agreement.sh (possim run S --engine analytic|simgrid --no-interval, each scenario S of scenarios/paper and scenarios/today)"
echo
python3 bench/analytic_agreement.py "$out" "${scenarios[@]}"
