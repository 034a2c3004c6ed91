#!/usr/bin/env bash
# The live validation (issue: a real executable backend): every scenario of
# scenarios/validation/ run for real (possim validate --live: node processes in tc-shaped
# network namespaces) and simulated by SimGrid on the same plan; per point the measured
# and the predicted seconds per iteration. Writes reports/validation/README.md (tables,
# header: machine, date, command, commit) and one JSON per scenario beside it.
# Usage: bench/validate_live.sh   (as root: namespaces and tc; needs ./possim built)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=reports/validation
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/set"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date +%s)
for s in scenarios/validation/*.json; do
  name=$(basename "$s" .json)
  "$root/possim" validate "$s" --live --json "$out/$name.json" > "$work/set/$name.txt" 2> "$work/$name.err" ||
    { cat "$work/$name.err" >&2; exit 1; }
done
wall=$(( $(date +%s) - t0 ))
# The same network-bound points with a shallow switch buffer (2 ms instead of 50 ms): what
# the fluid model leaves out (below, in the report).
sed 's/"queue_ms": 50/"queue_ms": 2/; s/"name": "validation_alexnet"/"name": "shallow_buffer_alexnet"/;
     s/"strategies": \[[^]]*\]/"strategies": ["ps", "wfbp", "allreduce"]/; s/"nic_gbps": \[1, 10\]/"nic_gbps": [10]/' \
  scenarios/validation/alexnet.json > "$work/shallow.json"
cp profiles/live_netns.json "$work/"
sed -i 's/"profile": "live_netns"/"profile": "live_netns.json"/' "$work/shallow.json"
"$root/possim" validate "$work/shallow.json" --live > "$work/shallow.txt" 2> "$work/shallow.err" ||
  { cat "$work/shallow.err" >&2; exit 1; }
# AlexNet's 8-node points at 10 Gbit/s again, time dilated 4x (8 processes on 2 cores).
sed 's/"queue_ms": 50 }/"queue_ms": 50, "time_dilation": "auto" }/; s/"name": "validation_alexnet"/"name": "dilated_alexnet"/;
     s/"nodes": \[2, 8\]/"nodes": [8]/; s/"nic_gbps": \[1, 10\]/"nic_gbps": [10]/' \
  scenarios/validation/alexnet.json > "$work/dilated.json"
sed -i 's/"profile": "live_netns"/"profile": "live_netns.json"/' "$work/dilated.json"
"$root/possim" validate "$work/dilated.json" --live > "$work/dilated.txt" 2> "$work/dilated.err" ||
  { cat "$work/dilated.err" >&2; exit 1; }
# Every point's |error| in percent, over all scenarios: the summary line.
all=$(cat "$work"/set/*.txt | awk '$NF ~ /%$/ && $1 != "strategy" { v = $NF; sub(/%/, "", v); sub(/^\+/, "", v); if (v < 0) v = -v; print v }' | sort -g)
n=$(echo "$all" | wc -l)
median=$(echo "$all" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
worst=$(echo "$all" | tail -1)
# Points whose prediction lies within the live run's own fastest..slowest iterations (no '*').
inside=$(cat "$work"/set/*.txt | awk '$NF ~ /%$/ && $1 != "strategy" && $(NF-1) != "*"' | wc -l)
# The same by node count (the machine's 2 cores host 2 node processes well, 8 less so).
by_nodes() {
  cat "$work"/set/*.txt | awk -v n="$1" '$NF ~ /%$/ && $1 != "strategy" && $2 == n { v = $NF; sub(/%/, "", v); sub(/^\+/, "", v); if (v < 0) v = -v; print v }' |
    sort -g | awk '{ v[NR] = $1 } END { printf "%d points: |error| median %s%%, worst %s%%", NR, (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[NR] }'
}
{
  echo "# Live validation: possim's SimGrid engine against the same plans run for real"
  echo
  echo "$(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), kernel $(uname -r), load average before: $load_before, possim $("$root/possim" --version | cut -d' ' -f2)"
  echo
  echo "command: \`bench/validate_live.sh\` (runs \`possim validate SCENARIO --live\` for each of scenarios/validation/; ${wall} s in all)"
  echo
  echo "- 2 nodes: $(by_nodes 2)"
  echo "- 8 nodes: $(by_nodes 8)"
  echo
  echo "**$n points: |error| median ${median}%, worst ${worst}%.** error = SimGrid's seconds per iteration / the live run's (the median of its iterations after the first) - 1."
  echo
  echo "$inside of $n predictions lie within the live run's own range (its fastest to its slowest iteration after the first)."
  echo
  echo "How the live runs are made (live/, ARCHITECTURE.md): one process per node, each in its own network"
  echo "namespace, joined by veth links into a bridge, every link shaped with tc tbf to the scenario's rate"
  echo "divided by its network_scale (20: 1 and 10 Gbit/s become 0.05 and 0.5 Gbit/s, and every flow carries"
  echo "1/20 of its bytes, so transfer times are the scenario's). The flows are real TCP between the"
  echo "processes; GPU kernels, PCIe copies and the servers' apply work are emulated at the profile's rates"
  echo "(sleeps on deadlines, not spins). The profile is titanx_maxwell with this machine's TCP goodput and"
  echo "per-message cost, measured by \`possim calibrate exchange --netns\` (profiles/live_netns.json). SimGrid"
  echo "runs the same scaled plan. Nothing is fitted to these runs."
  echo
  echo "Time dilation (\`\"live\": {\"time_dilation\": \"auto\"}\`, model/plan/time_dilation.hpp): a run of N node"
  echo "processes on C < N cores emulates everything N/C times slower (GPU kernels, PCIe, applies, link"
  echo "rates and the switch buffer's time) and divides what it measures by N/C, so that each node's CPU"
  echo "work on its messages takes, in undilated time, what it takes on a node with a core of its own. The"
  echo "GoogLeNet's 2-node points run undilated (2 processes, 2 cores), its 8-node points dilated 4x."
  echo "AlexNet's run undilated (dilated, its 8-node 1 Gbit/s points alone would take over 9 minutes);"
  echo "its 8-node 10 Gbit/s points are run again dilated 4x in a section of their own below. Not"
  echo "dilated: the kernel's TCP timers (a retransmission timeout is 200 ms of real time, so a loss costs"
  echo "1/4 as much dilated 4x as it would undilated)."
  for s in scenarios/validation/*.json; do
    name=$(basename "$s" .json)
    echo
    echo "## $name ($s)"
    echo
    [ -f "scenarios/validation/$name.md" ] && cat "scenarios/validation/$name.md" && echo
    echo
    echo '```'
    cat "$work/set/$name.txt"
    echo '```'
  done
  echo
  echo "## AlexNet at 8 nodes and 10 Gbit/s, time dilated 4x"
  echo
  echo "The same points as above, each node process with a core's worth of CPU per undilated second:"
  echo
  echo '```'
  cat "$work/dilated.txt"
  echo '```'
  echo
  echo "## A shallow switch buffer: TCP incast"
  echo
  echo "The AlexNet points at 10 Gbit/s again, with a 2 ms switch buffer (tc tbf latency) instead of 50 ms:"
  echo
  echo '```'
  cat "$work/shallow.txt"
  echo '```'
  [ -f scenarios/validation/shallow_buffer.md ] && { echo; cat scenarios/validation/shallow_buffer.md; }
} > "$out/README.md"
cat "$out/README.md"
