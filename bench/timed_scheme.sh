#!/usr/bin/env bash
# BestScheme by time against ATC'17's bytes rule (issue 28 item 7): Poseidon on every point
# of scenarios/vgg19_10gbe.json, scenarios/paper/ and scenarios/today/ under both rules on
# SimGrid, and every point where the two choose differently. The rows come from the ctest
# entry that holds the result (tests/model/strategies/test_timed_scheme.cpp, [scheme-shipped]);
# this prints them as a Markdown table to commit to bench/results/timed_scheme.md.
# About 90 s on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
tests=${POSSIM_TESTS:-build/tests/possim_tests}
[ -x "$tests" ] || { echo "timed_scheme: no test binary at $tests (build it first)" >&2; exit 2; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$tests" "[scheme-shipped]" > "$log" 2>&1 || { cat "$log" >&2; echo "timed_scheme: the test failed" >&2; exit 1; }
echo "# BestScheme by time against ATC'17's rule, Poseidon on SimGrid"
echo
echo "$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs))"
echo "command: bench/timed_scheme.sh (possim_tests \"[scheme-shipped]\")"
echo
grep "^best_scheme timed against" "$log"
echo
echo "Where the two rules choose differently (\`\"best_scheme\": \"timed\"\` against \`\"atc17\"\`), each"
echo "point's SimGrid iteration under both; the timed rule keeps its plan only where the analytic"
echo "engine times it 3% shorter than the rule's (model/strategies/poseidon.cpp)."
echo
echo "| scenario | model | nodes x GPUs | Gbit/s | FC layers switched | ATC'17 iteration s | timed iteration s | change |"
echo "|---|---|---|---:|---|---:|---:|---:|"
grep "^| " "$log" | sort -t'|' -k9 -g
