#!/usr/bin/env bash
# possim sweep and possim report on the shipped example sweep (504 points), timed:
# the analytic engine, the SimGrid engine (a process per simulation, --jobs all cores), a
# rerun with every point done (resume), and the report of the SimGrid results.
# Writes bench/results/possim_sweep.md. Usage: bench/possim_sweep.sh   (needs ./possim built)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sweep=$root/scenarios/sweeps/vgg19_bandwidth_gpus.json
cd "$work"
seconds() { local t0 t1; t0=$(date +%s%N); "$@" > /dev/null 2>&1; t1=$(date +%s%N); awk "BEGIN { print ($t1 - $t0) / 1e9 }"; }
analytic=$(seconds "$root/possim" sweep "$sweep" --engine analytic -q)
simgrid=$(seconds "$root/possim" sweep "$sweep" --engine simgrid -q)
resume=$(seconds "$root/possim" sweep "$sweep" --engine simgrid -q)
report=$(seconds "$root/possim" report results/vgg19_bandwidth_gpus/simgrid/results.json --out rep -q)
figures=$(grep -c "<svg" rep/index.html)
{
  echo "# possim sweep and report on the example sweep"
  echo
  echo "$(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), possim $("$root/possim" --version | cut -d' ' -f2)"
  echo "command: bench/possim_sweep.sh (scenarios/sweeps/vgg19_bandwidth_gpus.json: 504 points)"
  echo
  echo "| what | wall s |"
  echo "|---|---:|"
  echo "| sweep, analytic engine | $(printf %.2f "$analytic") |"
  echo "| sweep, SimGrid engine, --jobs $(nproc) | $(printf %.1f "$simgrid") |"
  echo "| rerun, every point already done (SimGrid) | $(printf %.2f "$resume") |"
  echo "| report of the SimGrid results ($figures figures, gnuplot) | $(printf %.2f "$report") |"
} > "$root/bench/results/possim_sweep.md"
cat "$root/bench/results/possim_sweep.md"
