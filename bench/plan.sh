#!/usr/bin/env bash
# possim plan's target question, timed: the least NIC for 90% scaling efficiency for VGG19 and
# VGG19-22K at 16 nodes with Poseidon and WFBP (SimGrid engine, --jobs all cores), and the same
# with the analytic engine (which runs on SimGrid the points where a node carries more than the mean
# while the GPU waits on the network) and
# with the analytic engine alone (--analytic-only); each alone (--no-interval) and with the 95% intervals of the fitted
# titanx_maxwell (each search repeated at the sigma points). Median of RUNS (default 5) runs each.
# Writes bench/results/plan.md. Usage: bench/plan.sh [RUNS]   (needs ./possim built)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
runs=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seconds() { local t0 t1; t0=$(date +%s%N); "$@" > /dev/null 2>&1; t1=$(date +%s%N); awk "BEGIN { print ($t1 - $t0) / 1e9 }"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
question=(plan bench/scenarios/plan16.json --models vgg19,vgg19_22k -q)
sim=$(for i in $(seq "$runs"); do seconds "$root/possim" "${question[@]}" --no-interval; done | median)
sim_int=$(for i in $(seq "$runs"); do seconds "$root/possim" "${question[@]}"; done | median)
ana=$(for i in $(seq "$runs"); do seconds "$root/possim" "${question[@]}" --engine analytic --no-interval; done | median)
ana_int=$(for i in $(seq "$runs"); do seconds "$root/possim" "${question[@]}" --engine analytic; done | median)
only=$(for i in $(seq "$runs"); do seconds "$root/possim" "${question[@]}" --engine analytic --analytic-only --no-interval; done | median)
only_int=$(for i in $(seq "$runs"); do seconds "$root/possim" "${question[@]}" --engine analytic --analytic-only; done | median)
"$root/possim" "${question[@]}" --json "$work/a.json" > "$work/table.txt"
evals=$(grep -o '"evaluations": [0-9]*' "$work/a.json" | awk '{ s += $2 } END { print s }')
{
  echo "# possim plan: least NIC for 90% efficiency, VGG19 and VGG19-22K at 16 nodes, Poseidon and WFBP"
  echo
  echo "$(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), load average before: $(cut -d' ' -f1-3 /proc/loadavg), possim $("$root/possim" --version | cut -d' ' -f2)"
  echo "command: bench/plan.sh $runs (median of $runs runs each; target: under 5 s with the SimGrid engine)"
  echo
  echo "| engine | wall s (median), --no-interval | with 95% intervals | simulations (no interval) |"
  echo "|---|---:|---:|---:|"
  echo "| simgrid, --jobs $(nproc) | $(printf %.2f "$sim") | $(printf %.2f "$sim_int") | $evals + 2 single-GPU references |"
  echo "| analytic (flagged points run on SimGrid) | $(printf %.3f "$ana") | $(printf %.3f "$ana_int") | |"
  echo "| analytic, --analytic-only | $(printf %.3f "$only") | $(printf %.3f "$only_int") | |"
  echo
  echo '```'
  sed '/^$/d; /^wrote /d' "$work/table.txt"
  echo '```'
} > bench/results/plan.md
cat bench/results/plan.md
