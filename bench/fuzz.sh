#!/usr/bin/env bash
# Fuzzing benchmark: 1,000,000 inputs for each parser's fuzz target from the committed seeds
# alone (a fresh work folder), then a markdown table: target, inputs, wall s, exec/s,
# findings, corpus size. bench/results/fuzz.md records a run.
#   bench/fuzz.sh [RUNS]   (default 1000000)
# A finding stops that target's run where libFuzzer found it (the inputs column says how
# far it got); its input and log are in build-fuzz/bench/. Exit status 1 when any target
# has a finding.
set -uo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-1000000}
export FUZZ_WORK=${FUZZ_BUILD_DIR:-build-fuzz}/bench
rm -rf "$FUZZ_WORK"

targets=(scenario profile layer measurements)
fuzz/run.sh --runs "$RUNS" "${targets[@]}"
status=$?

echo "| target | inputs | wall s | exec/s | findings | corpus size |"
echo "|---|---:|---:|---:|---|---:|"
for t in "${targets[@]}"; do
  log="$FUZZ_WORK/logs/$t.log"
  [ -f "$log" ] || { echo "| $t | (not run: see above) | | | | |"; continue; }
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  wall=$(sed -n 's/^wall_s: *//p' "$log" | tail -1)
  # The last status line's "corp: N/SIZE": inputs kept, seeds included.
  corp=$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" | tail -1 | sed 's/corp: //; s|/| inputs, |')
  findings="none"
  files=$(ls "$FUZZ_WORK/findings/$t" 2>/dev/null)
  if [ -n "$files" ]; then
    # libFuzzer's one-line summary of the finding, e.g. "deadly signal" or the sanitizer's.
    what=$(grep -m1 -oE 'ERROR: (libFuzzer|AddressSanitizer|UndefinedBehaviorSanitizer): [^(]*|runtime error: .*|terminate called after throwing an instance of .*' "$log" | head -1)
    findings="$(echo "$files" | wc -l): ${what:-see log} ($(echo "$files" | tr '\n' ' ' | sed 's/ $//'))"
  fi
  echo "| $t | ${runs:-?} | ${wall:-?} | ${rate:-?} | $findings | ${corp:-?} |"
done
exit $status
