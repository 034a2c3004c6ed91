#!/usr/bin/env bash
# Benchmark: the analytic engine over 9 models x 8 strategies x 11 node counts x 7
# bandwidths, on one core. Prints a Markdown table; commit it to bench/results/.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build --target bench_analytic_sweep -j2 >/dev/null
echo "# Analytic sweep benchmark"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), build $(grep CMAKE_BUILD_TYPE: build/CMakeCache.txt | cut -d= -f2)"
echo "command: taskset -c 0 build/bench/bench_analytic_sweep ${1:-5}"
echo
taskset -c 0 build/bench/bench_analytic_sweep "${1:-5}"
