#!/bin/sh
# Regenerates the derived profiles profiles/{k20c,k40,k80,v100,a100,h100,h200}.json from the
# measured base profile profiles/titanx_maxwell.json and the device sheets in this folder, then
# fits V100's and A100's to the published single-GPU throughputs in traces/measured/published/.
# Run from anywhere after building possim (default: build/cli/possim; or set POSSIM). OUT sets
# the folder written (default: profiles/).
# tests/model/input/test_profile_derive.cpp fails when a shipped profile differs from what this makes.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
possim=${POSSIM:-$root/build/cli/possim}
out=${OUT:-profiles}
cd "$root"
for gpu in k20c k40 k80 v100 a100 h100 h200; do
  "$possim" profile derive --from titanx_maxwell --device "profiles/devices/$gpu.json" \
    --out "$out/$gpu.json" >/dev/null
  echo "wrote $out/$gpu.json"
done
# Two parameters per GPU, what its two precisions can tell apart (reports/today/validation.md):
#   V100, fp32 and amp_fp16 points: the tensor-core share (fp32 convolutions keep the
#     derivation's 0.8 of the fp32 peak) and the memory-bound kinds' speed;
#   A100, tf32 and amp_fp16 points: the TF32 share and the memory-bound kinds' speed (a single
#     factor on both tensor peaks moves both precisions alike: the points cannot see it).
# The analytic engine: one GPU, no network, where every engine predicts the same time.
fit() {
  "$possim" calibrate fit "traces/measured/published/resnet50_$1.csv" --profile "$out/$1.json" \
    --out "$out/$1.json" --free "$2" --engine analytic >/dev/null 2>&1 || {
    echo "derive_all.sh: the fit of $1 failed or is poor; rerun by hand to see why" >&2
    exit 1
  }
  echo "fitted $out/$1.json ($2)"
}
fit v100 tensor_core_scale,memory_bound_scale
fit a100 tf32_scale,memory_bound_scale
