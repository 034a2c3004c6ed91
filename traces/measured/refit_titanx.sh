#!/usr/bin/env bash
# Refit profiles/titanx_maxwell.json on POSEIDON.md section 9 alone, predicting with the
# SimGrid engine (possim run's default). Stages, each stack's parameters on its own points:
#   1. the node's shared physics (the host's TCP ceiling; TCP's framing share of the wire is
#      arithmetic, not fitted) with the two stacks whose points measure the
#      network: Poseidon's KV store (top-level server apply rate) and Caffe+PS (its apply
#      rate, its client's per-shard pass and its step synchronisation round);
#   2. stock TensorFlow's runtime copy rate on its one point (physics from stage 1);
#   3. CNTK's aggregation rate on its one point.
# The single-GPU points are the profile's throughput points (exact by construction).
# Usage: traces/measured/refit_titanx.sh [OUT] [POSSIM]
#   OUT default profiles/titanx_maxwell.json; POSSIM default ./possim.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-profiles/titanx_maxwell.json}
possim=${2:-./possim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
m=traces/measured
"$possim" calibrate fit $m/caffe_ps.csv $m/poseidon_caffe.csv --profile titanx_maxwell \
  --free tcp_host_bytes_per_s,server_apply_bytes_per_s,caffe_ps.server_apply_bytes_per_s,caffe_ps.client_pass_bytes_per_s,caffe_ps.step_sync_s \
  --engine simgrid --restarts 4 --name titanx_maxwell --out "$tmp/stage1.json"
"$possim" calibrate fit $m/tf_stock.csv --profile "$tmp/stage1.json" \
  --free tf_stock.runtime_copy_bytes_per_s \
  --engine simgrid --restarts 2 --name titanx_maxwell --out "$tmp/stage2.json"
"$possim" calibrate fit $m/cntk_1bit.csv --profile "$tmp/stage2.json" \
  --free cntk_1bit.server_apply_bytes_per_s \
  --engine simgrid --restarts 2 --name titanx_maxwell --out "$tmp/stage3.json"
cp "$tmp/stage3.json" "$out"
mkdir -p traces/measured/fit
for s in 1 2 3; do cp "$tmp/stage$s.calibration.json" "traces/measured/fit/stage$s.calibration.json"; done
echo "wrote $out and its three stages' fit reports (traces/measured/fit/stage*.calibration.json)" >&2
