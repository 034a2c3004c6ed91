#!/bin/sh
# profiles/h200_queued.json: the H200 runs recorded with whole steps timed (call1/, call2/:
# bench/gpu_calibration.sh with --step-repeats 10), each scaled to its own back-to-back step
# (possim calibrate kernels --from RUN --queued-step: every layer times the run's back-to-back
# step / its summed kernel medians), on the datasheet-derived profiles/h200.json (which keeps
# what a single GPU cannot measure: the network, the server, NVLink).
# Each step adds one run's measured block (used exactly for that model, batch and precision)
# and refits the efficiencies of the kinds it timed, as ../h200_2026-11-27/make_profile.sh
# does for h200_measured: the last fp32 run (resnet50, batch 64) sets the fp32 peak, the last
# bf16 run (resnet50, batch 64 too) the bf16 peak and conv/fc efficiencies.
# Models without a run here (googlenet and vgg19 in fp32, resnet50 at batch 256) take the
# fitted kind rates, which are queued-step rates too.
# Needs no GPU: the recorded timings are read back (../chain_profile.sh).
set -eu
here=traces/gpu/h200_2026-11-30
exec "$(dirname "$0")/../chain_profile.sh" profiles/h200_queued.json h200 traces/gpu/h200_2026-11-27/call1/roofline.json \
  --queued-step -- \
  "$here/call2/kernels/inception_v3_b32_fp32" "$here/call1/kernels/resnet50_b64_fp32" \
  "$here/call2/kernels/googlenet_b128_bf16" "$here/call2/kernels/inception_v3_b32_bf16" \
  "$here/call1/kernels/vgg19_b32_bf16" "$here/call1/kernels/resnet50_b64_bf16"
