#!/bin/sh
# Chains recorded kernel runs into one profile, without a GPU: each run (RUN.calibration.json,
# a path from the repository's root without that suffix) is made into a profile on the one
# before (`possim calibrate kernels --from RUN --base PREVIOUS`), starting from BASE, with the
# optimizer step's rate from ROOFLINE. Each adds its measured block (used exactly for its
# model, batch and precision) and refits the efficiencies of the kinds it timed, so the order
# says which run sets each kind. Extra calibrate options (--queued-step) go before the runs.
# Usage: traces/gpu/chain_profile.sh OUT BASE ROOFLINE [OPTION...] -- RUN...
# Writes OUT (a profile named by its stem: profiles/NAME.json ships one) and its sidecar, the
# last run's, naming its base as this chain.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
possim=${POSSIM:-$root/build/cli/possim}
out=$1 base=$2 roofline=$3
name=$(basename "$out" .json)
shift 3
options=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  options="$options $1"
  shift
done
[ "${1:-}" = -- ] || { echo "chain_profile.sh: no -- before the runs" >&2; exit 2; }
shift
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
i=0
for run in "$@"; do
  i=$((i + 1))
  # shellcheck disable=SC2086 # the options are words
  "$possim" calibrate kernels --from "$run.calibration.json" $options --base "$base" --name "$name" \
    --roofline "$roofline" --out "$tmp/step$i.json" -q
  base=$tmp/step$i.json
done
cp "$base" "$out"
# The last step's sidecar names its base by a temporary path: say what it was instead.
python3 - "${base%.json}.calibration.json" "${out%.json}.calibration.json" <<'PY'
import json, sys
side = json.load(open(sys.argv[1]))
side["base_profile"]["path"] = "the profile of the step before, in traces/gpu/chain_profile.sh"
json.dump(side, open(sys.argv[2], "w"), indent=2)
open(sys.argv[2], "a").write("\n")
PY
echo "wrote $out"
