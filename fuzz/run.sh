#!/usr/bin/env bash
# Build the libFuzzer targets (a clang tree: build-fuzz) and fuzz each parser in turn.
#   fuzz/run.sh [SECONDS_PER_TARGET | --runs N] [TARGET...]
# Default: 60 seconds for each of scenario, profile, layer, measurements. Each target starts
# from its committed seeds (fuzz/corpus/T, read only) and adds what it finds to
# $FUZZ_WORK/corpus/T (default build-fuzz/work; delete it for a fresh start). A finding -- a
# crash, an exception other than possim::InputError, a sanitizer report, an input that
# takes over 1 s or 2 GB -- is saved as $FUZZ_WORK/findings/T/crash-* (timeout-*, oom-*, ...)
# with its log in $FUZZ_WORK/logs/T.log; the script fuzzes the other targets, then exits 1.
# Replay one: build-fuzz/fuzz/fuzz_T FILE
set -euo pipefail
cd "$(dirname "$0")/.."

limit=(-max_total_time=60)
case "${1:-}" in
  --runs) limit=(-runs="${2:?--runs needs a count}"); shift 2 ;;
  ''|-*) ;;
  *) limit=(-max_total_time="$1"); shift ;;
esac
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(scenario profile layer measurements)

BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
WORK=${FUZZ_WORK:-$BUILD_DIR/work}
CLANG=${FUZZ_CLANG:-clang-19}  # the compiler of CI's sanitizer build; any clang with libFuzzer works

if ! command -v "${CLANG/clang/clang++}" >/dev/null; then
  echo "fuzz: ${CLANG/clang/clang++} not found (./setup.sh installs clang-19 and libclang-rt-19-dev)" >&2
  exit 2
fi
CC=$CLANG CXX=${CLANG/clang/clang++} cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPOSSIM_FUZZ=ON -DBUILD_TESTING=OFF >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target "${targets[@]/#/fuzz_}" >&2

failed=()
for t in "${targets[@]}"; do
  mkdir -p "$WORK/corpus/$t" "$WORK/findings/$t" "$WORK/logs"
  log="$WORK/logs/$t.log"
  echo "fuzz: $t (${limit[*]})" >&2
  start=$(date +%s%N)
  # stdin from /dev/null: an input that names /dev/stdin must not wait on a terminal.
  set +e
  "$BUILD_DIR/fuzz/fuzz_$t" "${limit[@]}" -timeout=1 -rss_limit_mb=2048 \
    -dict=fuzz/possim.dict -print_final_stats=1 \
    -artifact_prefix="$WORK/findings/$t/" "$WORK/corpus/$t" "fuzz/corpus/$t" \
    </dev/null >"$log" 2>&1
  rc=$?
  set -e
  end=$(date +%s%N)
  awk -v ns=$((end - start)) 'BEGIN { printf "wall_s: %.1f\n", ns / 1e9 }' >>"$log"
  echo "exit_status: $rc" >>"$log"
  if [ $rc -ne 0 ]; then
    failed+=("$t")
    echo "fuzz: FINDING in $t (exit $rc); the end of $log:" >&2
    tail -n 60 "$log" >&2
  else
    grep -E '^Done|stat::number_of_executed_units|stat::average_exec_per_sec' "$log" >&2 || true
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}; inputs in $WORK/findings/" >&2
  exit 1
fi
echo "fuzz: no findings in ${targets[*]}" >&2
