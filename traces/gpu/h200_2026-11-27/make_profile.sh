#!/bin/sh
# profiles/h200_measured.json from the kernels timed on a lent H200 on 2026-11-27 (call1/,
# call2/, call3/: bench/gpu_calibration.sh's three calls) and on 2026-11-29
# (../h200_2026-11-29/call1: resnet50 at batch 256 in fp32), on the datasheet-derived profiles/h200.json
# (which keeps what a single GPU cannot measure: the network, the server, NVLink).
# Each step adds one recorded run's measured block (used exactly for that model, batch and
# precision) and refits the kind efficiencies of the kinds it timed; the last fp32 run
# (resnet50, batch 64) sets the fp32 peak, and the last bf16 run (resnet50, batch 64 too) the
# bf16 peak and conv/fc efficiencies; the other bf16 runs keep their measured blocks.
# Needs no GPU: possim calibrate kernels --from reads the recorded timings.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
possim=${POSSIM:-$root/build/cli/possim}
here=traces/gpu/h200_2026-11-27
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
base=h200
i=0
for run in call1/kernels/googlenet_b128_fp32 call1/kernels/inception_v3_b32_fp32 call1/kernels/vgg19_b32_fp32 \
           ../h200_2026-11-29/call1/kernels/resnet50_b256_fp32 call1/kernels/resnet50_b64_fp32 call3/kernels/googlenet_b128_bf16 call3/kernels/inception_v3_b32_bf16 \
           call3/kernels/vgg19_b32_bf16 call3/kernels/resnet50_b256_bf16 call2/kernels/resnet50_b64_bf16; do
  i=$((i + 1))
  "$possim" calibrate kernels --from "$here/$run.calibration.json" --base "$base" --name h200_measured \
    --roofline "$here/call1/roofline.json" \
    --out "$tmp/step$i.json" -q
  base=$tmp/step$i.json
done
cp "$base" profiles/h200_measured.json
# The last step's sidecar names its base by a temporary path: say what it was instead.
python3 - "${base%.json}.calibration.json" profiles/h200_measured.calibration.json <<'PY'
import json, sys
side = json.load(open(sys.argv[1]))
side["base_profile"]["path"] = "the profile of the step before, in make_profile.sh"
json.dump(side, open(sys.argv[2], "w"), indent=2)
open(sys.argv[2], "a").write("\n")
PY
echo "wrote profiles/h200_measured.json"
