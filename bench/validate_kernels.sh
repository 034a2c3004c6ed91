#!/usr/bin/env bash
# Kernel compute validated (issue: a real executable backend, item 2(c)): the loop a
# cluster owner closes. 1. `possim calibrate kernels` times every layer of a model on this
# machine's backend and writes a profile; 2. `possim validate --live` runs the scenario
# with "compute": "kernels" (each layer's passes run those same kernels for real, in node
# processes over loopback TCP) and simulates it with SimGrid from the measured profile.
# Prints a Markdown report (header: machine, date, command, commit).
# Usage: bench/validate_kernels.sh [cpu|gpu]   (needs ./possim built; gpu: a CUDA device)
#   A local run's node processes share this machine's cores (cpu), or its GPUs (gpu: node n
#   on device n modulo the devices there are): on one GPU or 2 cores, 1-node points measure
#   the kernels alone and 2-node points add that contention. On a cluster, run the scenario
#   under mpirun instead (README).
set -euo pipefail
cd "$(dirname "$0")/.."
backend=${1:-cpu}
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
t0=$(date +%s)
{
  echo "# Kernel compute: live runs of the real kernels against SimGrid on the profile measured from them"
  echo
  echo "$(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), backend $backend, possim $("$root/possim" --version | cut -d' ' -f2)"
  echo
  echo "command: \`bench/validate_kernels.sh $backend\`: per model, \`possim calibrate kernels --backend $backend\`, then"
  echo "\`possim validate --live\` with \`\"live\": {\"compute\": \"kernels\", \"kernel_backend\": \"$backend\", \"links\": \"loopback\"}\`"
  echo "and the measured profile (loopback links: unshaped, the network is this machine's own)."
} > "$work/head.md"
for point in "cifar10_quick 16" "alexnet 4"; do
  set -- $point
  model=$1 batch=$2
  "$root/possim" calibrate kernels --model "$model" --batch "$batch" --backend "$backend" --no-copies -q \
    --out "$work/$model.profile.json"
  cat > "$work/$model.json" <<JSON
{
  "name": "kernels_${backend}_$model",
  "description": "$model at batch $batch: the $backend backend's kernels run live vs SimGrid on the profile measured from them",
  "model": "$model",
  "batch_per_gpu": $batch,
  "cluster": { "nodes": [1, 2], "nic_gbps": [10], "servers": { "shards": "per_node", "placement": "colocated" } },
  "strategies": ["ps", "wfbp", "poseidon", "allreduce"],
  "profile": "$model.profile.json",
  "iterations": 10,
  "seed": 1,
  "live": { "links": "loopback", "compute": "kernels", "kernel_backend": "$backend" }
}
JSON
  "$root/possim" validate "$work/$model.json" --live > "$work/$model.txt" 2> "$work/$model.err" ||
    { cat "$work/$model.err" >&2; exit 1; }
done
cat "$work/head.md"
echo "($(( $(date +%s) - t0 )) s in all)"
for model in cifar10_quick alexnet; do
  echo
  echo "## $model"
  echo
  echo '```'
  cat "$work/$model.txt"
  echo '```'
done
