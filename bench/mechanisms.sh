#!/usr/bin/env bash
# Benchmark: what issue 28's mechanisms (a scenario's precision and gradient type, gradient
# buckets, a collective's launch cost, the network transport, several NICs per node) cost
# each engine per point. The same sweep of today_h100_resnet50 (ResNet-50, 8 H100 per node;
# Poseidon and ring, double-tree and hierarchical all-reduce) runs as the base (fp32, a
# collective per layer, no launch cost, TCP with the host's ceiling, one NIC) and with each
# mechanism on: "precision" (amp_bf16, bf16 gradients), "launch" (50 us per collective),
# "buckets" (25 MiB), "interference" (the shipped profile's measured factors; the base's
# profile is h100 without them), "all" four; "rdma" (RDMA with GPUDirect, as the shipped scenario)
# and "rails" (RDMA, 8 NICs per node); each variant in turn with the base,
# R times; the table gives each one's median wall seconds per point and the median of the R
# paired ratios to the base run beside it. precision and launch leave the plan's tasks as
# they are (their cost is the mechanism's own); buckets fuse ResNet-50's 161 gradients into
# a few collectives, so the engines have less to do.
# Usage: [taskset -c 1] bench/mechanisms.sh [repeats]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
R=${1:-5}
POSSIM=${POSSIM:-build/cli/possim}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
python3 - "$TMP" <<'PY'
import json, sys
tmp = sys.argv[1]
prof = json.load(open('profiles/h100.json'))
free = dict(json.loads(json.dumps(prof)), name='h100_free')  # a deep copy
for k in ('interference_kernel_slowdown', 'interference_comm_slowdown'):
    free.pop(k, None)
    free['sources'].pop(k, None)
json.dump(free, open(f'{tmp}/h100_free.json', 'w'), indent=1)
json.dump(dict(free, name='h100_launch', collective_launch_s=5e-5), open(f'{tmp}/h100_launch.json', 'w'), indent=1)
json.dump(dict(prof, name='h100_all', collective_launch_s=5e-5), open(f'{tmp}/h100_all.json', 'w'), indent=1)
base = json.load(open('scenarios/today/h100_resnet50.json'))
base['model'] = 'resnet50'
base['cluster']['transport'] = 'tcp'
def variant(name, nodes, gbps, mech):
    s = json.loads(json.dumps(base))
    s['name'] = name.replace('/', '_')
    s['cluster']['nodes'] = nodes
    s['cluster']['nic_gbps'] = gbps
    s['profile'] = f'{tmp}/h100_free.json'
    if mech in ('precision', 'all'):
        s['precision'] = 'amp_bf16'
        s['gradient_dtype'] = 'bf16'
    if mech in ('buckets', 'all'):
        s['strategy_options'] = {'bucket_bytes': 26214400}
    if mech == 'launch':
        s['profile'] = f'{tmp}/h100_launch.json'
    if mech == 'interference':
        s['profile'] = 'h100'
    if mech == 'all':
        s['profile'] = f'{tmp}/h100_all.json'
    if mech in ('rdma', 'rails'):
        s['cluster']['transport'] = 'rdma'
    if mech == 'rails':
        s['cluster']['nics_per_node'] = 8
    json.dump(s, open(f'{tmp}/{name}.json', 'w'))
    return len(nodes) * len(gbps) * len(s['strategies'])
grid = {'analytic': ([2, 4, 8, 16, 32, 64, 128, 256], [10, 25, 40, 50, 100, 200, 400, 800, 1600, 3200]),
        'simgrid': ([2, 8, 32], [100])}
points = {}
for e, (nodes, gbps) in grid.items():
    for mech in ('base', 'precision', 'launch', 'buckets', 'interference', 'all', 'rdma', 'rails'):
        points[e] = variant(f'{e}_{mech}', nodes, gbps, mech)
open(f'{tmp}/points', 'w').write(f"{points['analytic']} {points['simgrid']}\n")
PY
read -r PA PS < "$TMP/points"
run() {  # engine variant -> wall seconds
  /usr/bin/time -f "%e" -o "$TMP/t" "$POSSIM" run "$TMP/$1_$2.json" --engine "$1" --jobs 1 -q --out "$TMP/out_$1_$2" \
    >/dev/null 2>"$TMP/err" || { echo "bench/mechanisms.sh: $1 $2 failed: $(tail -1 "$TMP/err")" >&2; exit 1; }
  cat "$TMP/t"
}
echo "# Cost of issue 28's mechanisms per point"
echo
echo "$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $R runs of each, interleaved"
echo "today_h100_resnet50 (4 strategies): analytic $PA points (2-256 nodes x 10 NIC rates), SimGrid $PS points (2, 8, 32 nodes at 100 Gbit/s), one process each run, --jobs 1"
echo
echo "| engine | mechanism | base s/point (median) | with it s/point (median) | ratio with/base (median of pairs) |"
echo "|---|---|---|---|---|"
for e in analytic simgrid; do
  n=$([ $e = analytic ] && echo "$PA" || echo "$PS")
  for mech in precision launch buckets interference all rdma rails; do
    : > "$TMP/base"; : > "$TMP/mech"; : > "$TMP/ratio"
    for _ in $(seq "$R"); do
      b=$(run $e base); m=$(run $e $mech)
      echo "$b" >> "$TMP/base"; echo "$m" >> "$TMP/mech"
      python3 -c "print($m / $b)" >> "$TMP/ratio"
    done
    python3 - "$TMP" "$e" "$n" "$mech" <<'PY'
import statistics, sys
tmp, e, n, mech = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
read = lambda f: [float(x) for x in open(f'{tmp}/{f}').read().split()]
b, m, r = statistics.median(read('base')), statistics.median(read('mech')), statistics.median(read('ratio'))
print(f"| {e} | {mech} | {b / n * 1e3:.2f} ms | {m / n * 1e3:.2f} ms | {r:.3f} |")
PY
  done
done
