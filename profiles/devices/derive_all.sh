#!/bin/sh
# Regenerates the derived profiles profiles/{k20c,k40,k80,v100,a100,h100,h200}.json from the
# measured base profile profiles/titanx_maxwell.json and the device sheets in this folder, then
# fits V100's, A100's and H100's to the published single-GPU throughputs in
# traces/measured/published/.
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
#     factor on both tensor peaks moves both precisions alike: the points cannot see it);
#   H100, tf32 points only (resnet50_h100.csv says why): the memory-bound kinds' speed, with
#     the TF32 share held at A100's fitted value (one precision cannot tell the two apart;
#     Hopper's TF32 kernels read the same fp32 operands from a DRAM with less bandwidth per
#     TF32 FLOP than A100's, so A100's share is the nearer measurement than the datasheet's 1).
# The analytic engine: one GPU, no network, where every engine predicts the same time. Every
# iteration scheduled (--all-iterations), as when these fits were made: read from iteration 0
# instead, the iteration times differ by rounding (1e-16), which the fit's finite-difference
# Jacobian turns into 1e-10 moves of the fitted values, and those move SimGrid's ring
# all-reduce on h100_resnet50_amp (32 x 8 GPUs, 100 Gbit/s) by 0.8%: a discontinuity of the
# simulation, not of the hardware, that a regenerated reports/today would carry.
tf32_peak() { sed -n 's/^ *"tf32": *\([0-9.eE+-]*\),*$/\1/p' "$1" | head -n 1; }
fit() {
  gpu=$1 free=$2
  shift 2
  "$possim" calibrate fit "traces/measured/published/resnet50_$gpu.csv" --profile "$out/$gpu.json" \
    --out "$out/$gpu.json" --free "$free" "$@" --engine analytic --all-iterations >/dev/null 2>&1 || {
    echo "derive_all.sh: the fit of $gpu failed or is poor; rerun by hand to see why" >&2
    exit 1
  }
  echo "fitted $out/$gpu.json ($free${1:+ $1 $2})"
}
fit v100 tensor_core_scale,memory_bound_scale
a100_derived=$(tf32_peak "$out/a100.json")
fit a100 tf32_scale,memory_bound_scale
a100_tf32_scale=$(awk -v f="$(tf32_peak "$out/a100.json")" -v d="$a100_derived" 'BEGIN { printf "%.6g", f / d }')
fit h100 memory_bound_scale --set "tf32_scale=$a100_tf32_scale" \
  --set-why "A100's fitted TF32 share (profiles/a100.json), carried: the tf32 points alone cannot tell it from memory_bound_scale"
