#!/usr/bin/env bash
# Benchmark: the SimGrid engine on VGG19-22K, Poseidon and naive PS, 10 iterations, at
# 8, 32, 128, 256 and 1024 nodes (40 GbE): wall seconds and peak memory of each
# simulation (one process each, as possim runs them). Prints a Markdown table.
# Usage: [taskset -c 0] bench/simgrid_scale.sh [limit_s_per_point]   (default 900)
set -uo pipefail
cd "$(dirname "$0")/.."
cmake --build build --target bench_simgrid_point -j2 >/dev/null
LIMIT=${1:-900}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "# SimGrid engine scaling benchmark"
echo
echo "$(date -u +%Y-%m-%d), $(nproc --all) cores, this run on $(nproc) ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), SimGrid $(pkg-config --modversion simgrid)"
echo "VGG19-22K, batch 32, 10 iterations, 40 Gbit/s, shards colocated one per node; one point at a time."
echo "Targets: 32 nodes < 1 s; 256 nodes < 20 s; 1024 nodes PS < 120 s and 8 GiB."
echo
echo "Each point runs as possim runs it: iterations that provably repeat the one before are reported"
echo "from it (simulated column); rows marked 'all' simulate every iteration (--all-iterations)."
echo
echo "| strategy | nodes | simulated iterations | wall s | peak RSS MiB | simulated s/iteration | flows/iteration |"
echo "|---|---|---|---|---|---|---|"
for strategy in poseidon ps; do
  for nodes in 8 32 128 256 1024; do
    for mode in reuse all; do
      # Full runs only where they finish in reasonable time; they show what reuse saves.
      if [ "$mode" = all ] && [ "$nodes" -gt 32 ]; then continue; fi
      extra=""; label=""
      if [ "$mode" = all ]; then extra="all"; label=" (all)"; fi
      # One simulation in one process (bench_simgrid_point), as possim runs each point.
      if /usr/bin/time -f "%e %M" -o "$TMP/time" timeout "$LIMIT" \
           build/bench/bench_simgrid_point vgg19_22k "$strategy" "$nodes" 40 10 $extra > "$TMP/out" 2>"$TMP/err"; then
        read -r wall iter flows simulated < "$TMP/out"
        read -r _ kb < "$TMP/time"
        echo "| $strategy$label | $nodes | $simulated of 10 | $wall | $((kb / 1024)) | $iter | $flows |"
      else
        echo "| $strategy$label | $nodes | - | > $LIMIT (stopped) | - | - | - |"
      fi
    done
  done
done
