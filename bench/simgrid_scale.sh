#!/usr/bin/env bash
# Benchmark: the SimGrid engine on VGG19-22K, ring all-reduce, Poseidon, WFBP and naive PS, 10 iterations,
# 8 to 4096 nodes (40 GbE): wall seconds and peak memory of each simulation (one process
# each, as possim runs them), every node simulated ("full") and folded onto worker 0
# ("reduced", sim/fold.hpp), and full with SimGrid's own solver sharing the NICs ("full lmm",
# --network-solver lmm) up to 256 nodes. Prints a Markdown table.
# Usage: [taskset -c 1] bench/simgrid_scale.sh [limit_s_per_point] [max_full_nodes]
#   (defaults 600 and 4096: full runs above max_full_nodes are not attempted)
set -uo pipefail
cd "$(dirname "$0")/.."
cmake --build build --target bench_simgrid_point -j2 >/dev/null
LIMIT=${1:-600}
MAX_FULL=${2:-4096}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "# SimGrid engine scaling benchmark"
echo
echo "$(date -u +%Y-%m-%d), $(nproc --all) cores, this run on $(nproc) ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), SimGrid $(pkg-config --modversion simgrid)"
echo "VGG19-22K, batch 32, 10 iterations (repeats reported from the second), 40 Gbit/s, one shard per"
echo "node: colocated, or on a dedicated server node each (N workers + N servers). One point at a time."
echo "Full runs above $MAX_FULL nodes not attempted; limit $LIMIT s a point."
echo
echo "Modes: reduce = folded onto worker 0 (sim/fold.hpp; VGG19's colocated shards hold unequal slices, so"
echo "only dedicated ones fold); full = every node simulated (--no-reduce); full lmm = the same with SimGrid's"
echo "own max-min solver sharing the NIC links (--network-solver lmm) instead of possim's star solver. 2 of 10"
echo "iterations are simulated, the rest repeat the second exactly."
echo
echo "| strategy | shards | nodes | mode | wall s | peak RSS MiB | simulated s/iteration | flows/iteration | sent bytes/node max |"
echo "|---|---|---|---|---|---|---|---|---|"
point() {  # strategy nodes placement mode [lmm]
  local extra=""
  [ "$3" = dedicated ] && extra="dedicated"
  if /usr/bin/time -f "%e %M" -o "$TMP/time" timeout "$LIMIT" \
       build/bench/bench_simgrid_point vgg19_22k "$1" "$2" 40 10 "$4" $extra ${5:-} > "$TMP/out" 2>"$TMP/err"; then
    read -r wall iter flows simulated reduced sent < "$TMP/out"
    read -r _ kb < "$TMP/time"
    echo "| $1 | $3 | $2 | $4${5:+ $5} | $wall | $((kb / 1024)) | $iter | $flows | $sent |"
  else
    echo "| $1 | $3 | $2 | $4${5:+ $5} | > $LIMIT (stopped) or failed: $(tail -c 200 "$TMP/err" | tr '\n|' '  ') | - | - | - | - |"
  fi
}
# Ring all-reduce: folded at every size (the star solver's cost per event is what grows
# with the node count here: one flow in flight per round), full up to 256 nodes.
for nodes in 8 32 128 256 1024 4096; do
  point allreduce "$nodes" colocated reduce
  [ "$nodes" -le 256 ] && point allreduce "$nodes" colocated full
done
for strategy in poseidon wfbp ps; do
  for nodes in 8 32 128 256 1024 4096; do
    point "$strategy" "$nodes" dedicated reduce
    if [ "$nodes" -le "$MAX_FULL" ]; then
      point "$strategy" "$nodes" dedicated full
      point "$strategy" "$nodes" colocated full
    fi
    if [ "$nodes" -le 256 ] && [ "$nodes" -ge 32 ]; then
      point "$strategy" "$nodes" dedicated full lmm
      point "$strategy" "$nodes" colocated full lmm
    fi
  done
done
