#!/usr/bin/env bash
# Benchmark (issue 27 item 5): each engine's time per point as nodes (8 to 4,096) and
# layers (16 to 2,000) grow, with fitted growth exponents, then the time to answer of one
# whole possim process (bench/time_to_answer.sh). Prints Markdown; commit it to
# bench/results/growth.md. About 10 minutes on one core, most of it SimGrid's WFBP at
# 2,000 layers; --quick: up to 512 nodes and 250 layers (~1 min); --nodes: the table by
# nodes only (~2 min).
#   bench/growth.sh [--quick] [--nodes]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build build --target bench_growth possim -j2 >/dev/null
echo "# Engine growth: time per point by nodes and by layers, and time to answer"
echo
echo "$(date -u +%Y-%m-%d), commit $(git rev-parse --short HEAD), $(nproc --all) cores, this run on $(nproc) ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), build $(grep CMAKE_BUILD_TYPE: build/CMakeCache.txt | cut -d= -f2)"
echo "command: bench/growth.sh $*  (build/bench/bench_growth 5 $*, then bench/time_to_answer.sh 10)"
echo
build/bench/bench_growth 5 "$@"
echo
bench/time_to_answer.sh 10 | sed 's/^# /## /'
