#!/usr/bin/env bash
# Writes the issue's deep-nesting inputs (arrays nested DEPTH deep, default 100000) into
# fuzz/findings/T/deep_nesting.json: too large to commit, and past what libFuzzer's input
# size lets it build. Each overflowed the stack (recursive dump in an error message) before
# the safety branch's fix.
set -euo pipefail
cd "$(dirname "$0")"
depth=${1:-100000}
open=$(printf '%*s' "$depth" '' | tr ' ' '[')
close=$(printf '%*s' "$depth" '' | tr ' ' ']')
printf '{"name": %s%s}\n' "$open" "$close" >scenario/deep_nesting.json
printf '{"format": "possim-profile-1", "name": %s%s}\n' "$open" "$close" >profile/deep_nesting.json
printf '{"format": "possim-network-1", "name": "x", "input": %s%s}\n' "$open" "$close" >layer/deep_nesting.json
printf '{"points": [{"model": %s%s}]}\n' "$open" "$close" >measurements/deep_nesting.json
