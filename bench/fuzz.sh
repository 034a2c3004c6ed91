#!/usr/bin/env bash
# Fuzzing benchmark: 1,000,000 inputs for each parser's fuzz target, from the committed seeds
# alone (a fresh work folder), then a markdown table: target, inputs, wall s, exec/s,
# findings, corpus size. bench/results/fuzz.md records a run.
#   bench/fuzz.sh [RUNS [TARGET...]]   (default 1000000; every target)
# Findings do not stop a target (fuzz/run.sh --keep-going: libFuzzer's fork mode, which
# restarts the batch a finding ended); each is replayed and grouped by what it does. The
# inputs and stacks are in build-fuzz/bench/findings/. Exit status 1 when any target has one.
set -uo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-1000000}
shift || true
export FUZZ_WORK=${FUZZ_BUILD_DIR:-build-fuzz}/bench
rm -rf "$FUZZ_WORK"

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(scenario profile layer measurements results points device prices plan nccl_tests)
fuzz/run.sh --keep-going --runs "$RUNS" "${targets[@]}"
status=$?

echo
echo "| target | inputs | wall s | exec/s | findings | corpus size |"
echo "|---|---:|---:|---:|---|---:|"
for t in "${targets[@]}"; do
  log="$FUZZ_WORK/logs/$t.log"
  [ -f "$log" ] || { echo "| $t | not run | | | | |"; continue; }
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+|fuzzed for [0-9]+ iterations' "$log" |
         grep -oE '[0-9]+' | tail -1)
  [ -n "$runs" ] || runs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  wall=$(sed -n 's/^wall_s: *//p' "$log" | tail -1)
  rate=$(awk -v n="${runs:-0}" -v w="${wall:-0}" 'BEGIN { if (w > 0) printf "%.0f", n / w; else print "?" }')
  # The corpus at the end: the seeds and what this run added.
  seeds=$(ls "fuzz/corpus/$t" | wc -l)
  added=$(ls "$FUZZ_WORK/corpus/$t" | wc -l)
  kb=$(cat "fuzz/corpus/$t"/* "$FUZZ_WORK/corpus/$t"/* 2>/dev/null | wc -c | awk '{ printf "%.0f", $1 / 1024 }')
  # Findings grouped by their first line (numbers in quotes blanked, so one bug is one group).
  findings=$(for f in "$FUZZ_WORK/findings/$t"/*.txt; do
               [ -f "$f" ] && head -1 "$f" | sed "s/'[^']*'/'…'/g; s/^ *//"
             done | sort | uniq -c | awk '{ n = $1; $1 = ""; printf "%s%d x%s", (NR > 1 ? "; " : ""), n, $0 }')
  echo "| $t | ${runs:-?} | ${wall:-?} | $rate | ${findings:-none} | $((seeds + added)) inputs ($added new), $kb KiB |"
done
exit $status
