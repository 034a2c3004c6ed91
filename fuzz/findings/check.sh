#!/usr/bin/env bash
# Replays every known finding through its target's corpus replayer, one input at a time, and
# says which still fail. Usage: fuzz/findings/check.sh [BUILD_DIR]  (default build-asan; any
# tree without POSSIM_FUZZ has the replayers). Exit status 1 while any fails.
set -uo pipefail
cd "$(dirname "$0")"
build=${1:-../../build-asan}
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
./make_deep.sh
bad=0
for t in scenario profile layer measurements; do
  for f in "$t"/*; do
    out=$(ASAN_OPTIONS=detect_leaks=0 timeout 60 "$build/fuzz/fuzz_$t" "$f" 2>&1)
    if [ $? -eq 0 ]; then
      echo "fixed   $f"
    else
      bad=$((bad + 1))
      what=$(grep -m1 -oE 'what\(\): .{0,100}|ERROR: [A-Za-z]+Sanitizer: [a-z-]+|runtime error: .{0,100}' <<<"$out")
      echo "FAILS   $f: ${what:-a nonzero exit; replay it to see}"
    fi
  done
done
[ $bad -eq 0 ]
