#!/bin/sh
# Regenerates the derived profiles profiles/{k20c,k40,k80,v100,a100,h100,h200}.json from the
# measured base profile profiles/titanx_maxwell.json and the device sheets in this folder.
# Run from anywhere after building possim (default: build/cli/possim; or set POSSIM).
# tests/model/input/test_profile_derive.cpp fails when a shipped profile differs from what this makes.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
possim=${POSSIM:-$root/build/cli/possim}
cd "$root"
for gpu in k20c k40 k80 v100 a100 h100 h200; do
  "$possim" profile derive --from titanx_maxwell --device "profiles/devices/$gpu.json" \
    --out "profiles/$gpu.json" >/dev/null
  echo "wrote profiles/$gpu.json"
done
