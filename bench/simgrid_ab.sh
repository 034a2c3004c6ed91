#!/usr/bin/env bash
# A/B benchmark for a change to the SimGrid engine: two builds of its module
# (libpossim_simgrid.so, loaded by one possim binary through POSSIM_SIMGRID_MODULE) on
# full runs (every node simulated, --no-reduce) of VGG19-22K, batch 32, 40 Gbit/s, shards
# colocated, 10 iterations: the paper's configuration. Each point runs A then B then A
# then B (one process each, -j 1): wall seconds of each run, peak RSS, and whether the two
# results.csv are byte-identical. Prints a Markdown table.
# Usage: [taskset -c 1] bench/simgrid_ab.sh MODULE_A MODULE_B [NODES...]   (default 1024 4096)
#   e.g. a module built from the commit before, copied out of its build/sim/.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bench/simgrid_ab.sh MODULE_A MODULE_B [NODES...]" >&2; exit 2; }
A=$(realpath "$1"); B=$(realpath "$2"); shift 2
NODES=("$@")
[ $# -ge 1 ] || NODES=(1024 4096)
possim=build/cli/possim
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
scenario() {  # strategy nodes
  cat > "$TMP/$1_$2.json" <<EOF
{ "name": "$1_$2", "description": "simgrid_ab point", "model": "vgg19_22k", "batch_per_gpu": 32,
  "cluster": { "nodes": [$2], "gpus_per_node": 1, "nic_gbps": [40], "latency_s": 50e-6,
               "servers": { "shards": "per_node", "placement": "colocated" } },
  "strategies": ["$1"],
  "strategy_options": { "kv_pair_bytes": 2097152, "consistency": "bsp", "staleness": 0, "best_scheme": "atc17",
                        "stragglers": { "kind": "none", "drop_after": 0 } },
  "profile": "titanx_maxwell", "iterations": 10, "seed": 1 }
EOF
}
run() {  # module strategy nodes out -> "wall_s rss_mib"
  POSSIM_SIMGRID_MODULE=$1 /usr/bin/time -f "%e %M" -o "$TMP/time" "$possim" run "$TMP/$2_$3.json" \
    --engine simgrid --no-reduce --no-interval -q -j 1 --out "$4" > "$TMP/log" 2>&1 ||
    { echo "failed: $(tail -c 300 "$TMP/log")" >&2; exit 1; }
  read -r wall kb < "$TMP/time"
  echo "$wall $((kb / 1024))"
}
echo "$(date -u +%Y-%m-%d), possim binary from commit $(git rev-parse --short HEAD), $(nproc --all) cores, this run on $(nproc) ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
echo "A: $A"
echo "B: $B"
echo
echo "| strategy | nodes | A wall s | B wall s | B / A (sums) | A peak RSS MiB | B peak RSS MiB | results.csv |"
echo "|---|---:|---|---|---:|---:|---:|---|"
for nodes in "${NODES[@]}"; do
  for strategy in ps wfbp poseidon; do
    scenario "$strategy" "$nodes"
    read -r a1 ra < <(run "$A" "$strategy" "$nodes" "$TMP/a")
    read -r b1 rb < <(run "$B" "$strategy" "$nodes" "$TMP/b")
    read -r a2 _ < <(run "$A" "$strategy" "$nodes" "$TMP/a")
    read -r b2 _ < <(run "$B" "$strategy" "$nodes" "$TMP/b")
    same=$(cmp -s "$TMP/a/results.csv" "$TMP/b/results.csv" && echo identical || echo DIFFERENT)
    ratio=$(python3 -c "print(f'{($b1 + $b2) / ($a1 + $a2):.2f}')")
    echo "| $strategy | $nodes | $a1, $a2 | $b1, $b2 | $ratio | $ra | $rb | $same |"
  done
done
