#!/bin/sh
# profiles/h200_measured.json from the kernels timed on a lent H200 on 2026-11-27 (call1/,
# call2/, call3/: bench/gpu_calibration.sh's three calls) and on 2026-11-29
# (../h200_2026-11-29/call1: resnet50 at batch 256 in fp32), on the datasheet-derived profiles/h200.json
# (which keeps what a single GPU cannot measure: the network, the server, NVLink).
# Each step adds one recorded run's measured block (used exactly for that model, batch and
# precision) and refits the kind efficiencies of the kinds it timed; the last fp32 run
# (resnet50, batch 64) sets the fp32 peak, and the last bf16 run (resnet50, batch 64 too) the
# bf16 peak and conv/fc efficiencies; the other bf16 runs keep their measured blocks.
# Needs no GPU: possim calibrate kernels --from reads the recorded timings (../chain_profile.sh).
set -eu
here=traces/gpu/h200_2026-11-27
exec "$(dirname "$0")/../chain_profile.sh" profiles/h200_measured.json h200 "$here/call1/roofline.json" -- \
  "$here/call1/kernels/googlenet_b128_fp32" "$here/call1/kernels/inception_v3_b32_fp32" \
  "$here/call1/kernels/vgg19_b32_fp32" "$here/../h200_2026-11-29/call1/kernels/resnet50_b256_fp32" \
  "$here/call1/kernels/resnet50_b64_fp32" "$here/call3/kernels/googlenet_b128_bf16" \
  "$here/call3/kernels/inception_v3_b32_bf16" "$here/call3/kernels/vgg19_b32_bf16" \
  "$here/call3/kernels/resnet50_b256_bf16" "$here/call2/kernels/resnet50_b64_bf16"
