#!/usr/bin/env bash
# Refit profiles/titanx_maxwell.json on POSEIDON.md section 9 alone: the node's shared
# physics (TCP goodput) and each stack's software parameters, each stack's only on its own
# points, predicted with the SimGrid engine (possim run's default). The single-GPU points
# are the profile's throughput points (exact by construction) and are not fitted.
# Usage: traces/measured/refit_titanx.sh [OUT]   (default: profiles/titanx_maxwell.json)
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-profiles/titanx_maxwell.json}
./possim calibrate fit traces/measured/caffe_ps.csv traces/measured/poseidon_caffe.csv \
  traces/measured/tf_stock.csv traces/measured/cntk_1bit.csv \
  --profile titanx_maxwell --engine simgrid --restarts 4 --name titanx_maxwell \
  --free tcp_goodput,server_apply_bytes_per_s,caffe_ps.server_apply_bytes_per_s,caffe_ps.client_pass_bytes_per_s,tf_stock.runtime_copy_bytes_per_s,cntk_1bit.server_apply_bytes_per_s \
  --out "$out"
