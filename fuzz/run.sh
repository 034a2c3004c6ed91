#!/usr/bin/env bash
# Build the libFuzzer targets (a clang tree: build-fuzz) and fuzz each parser in turn.
#   fuzz/run.sh [--keep-going] [SECONDS_PER_TARGET | --runs N] [TARGET...]
# Default: 60 seconds for each of scenario, profile, layer, measurements, results, points,
# device, prices, plan and nccl_tests. Each target starts from its committed seeds (fuzz/corpus/T, read
# only) and adds what it finds to
# $FUZZ_WORK/corpus/T (default build-fuzz/work; delete it for a fresh start). A finding -- a
# crash, an exception other than possim::InputError, a sanitizer report, an input that
# takes over 1 s or 2 GB -- is saved as $FUZZ_WORK/findings/T/crash-* (timeout-*, oom-*,
# ...), replayed, and what it does is written next to it as *.txt (the first line says what
# happened, then the stack). A target stops at its first finding, unless --keep-going
# (libFuzzer's fork mode: each finding ends one batch of inputs, and the next one goes on).
# The script fuzzes every target, then exits 1 if any had a finding.
# Replay one input: build-fuzz/fuzz/fuzz_T FILE
set -euo pipefail
cd "$(dirname "$0")/.."

mode=()
if [ "${1:-}" = --keep-going ]; then
  mode=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  shift
fi
limit=(-max_total_time=60)
case "${1:-}" in
  --runs) limit=(-runs="${2:?--runs needs a count}"); shift 2 ;;
  ''|-*) ;;
  *) limit=(-max_total_time="$1"); shift ;;
esac
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(scenario profile layer measurements results points device prices plan nccl_tests)

BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
WORK=${FUZZ_WORK:-$BUILD_DIR/work}
CLANG=${FUZZ_CLANG:-clang-19}  # the compiler of CI's sanitizer build; any clang with libFuzzer works
CLANGXX=${CLANG/clang/clang++}

if ! command -v "$CLANGXX" >/dev/null; then
  echo "fuzz: $CLANGXX not found (./setup.sh installs clang-19 and libclang-rt-19-dev)" >&2
  exit 2
fi
# Stacks with function names and lines (Debian's plain llvm-symbolizer may point nowhere).
symbolizer=$(command -v "llvm-symbolizer${CLANG#clang}" || command -v llvm-symbolizer || true)
[ -z "$symbolizer" ] || export ASAN_SYMBOLIZER_PATH=$symbolizer

CC=$CLANG CXX=$CLANGXX cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPOSSIM_FUZZ=ON -DBUILD_TESTING=OFF >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target "${targets[@]/#/fuzz_}" >&2

failed=()
for t in "${targets[@]}"; do
  findings="$WORK/findings/$t"
  mkdir -p "$WORK/corpus/$t" "$findings" "$WORK/logs"
  log="$WORK/logs/$t.log"
  echo "fuzz: $t (${mode[*]} ${limit[*]})" >&2
  start=$(date +%s%N)
  # stdin from /dev/null: an input that names /dev/stdin must not wait on a terminal.
  set +e
  "$BUILD_DIR/fuzz/fuzz_$t" "${mode[@]}" "${limit[@]}" -timeout=1 -rss_limit_mb=2048 \
    -dict=fuzz/possim.dict -print_final_stats=1 \
    -artifact_prefix="$findings/" "$WORK/corpus/$t" "fuzz/corpus/$t" \
    </dev/null >"$log" 2>&1
  rc=$?
  set -e
  end=$(date +%s%N)
  awk -v ns=$((end - start)) 'BEGIN { printf "wall_s: %.1f\n", ns / 1e9 }' >>"$log"
  echo "exit_status: $rc" >>"$log"

  # Replay each finding alone: its first line of what happened, then the stack.
  found=0
  for f in "$findings"/*; do
    [ -f "$f" ] && [ "${f%.txt}" = "$f" ] || continue
    found=$((found + 1))
    out=$(timeout 60 "$BUILD_DIR/fuzz/fuzz_$t" -timeout=1 -rss_limit_mb=2048 "$f" </dev/null 2>&1 || true)
    what=$(echo "$out" | grep -m1 -E "what\(\): |ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|libFuzzer): |runtime error: " || true)
    case "$(basename "$f")" in
      timeout-*) what=${what:-"over the 1 s limit"} ;;
      oom-*) what=${what:-"over the 2 GB limit"} ;;
    esac
    { echo "${what:-see the stack below}"; echo; echo "$out"; } >"$f.txt"
  done
  if [ $rc -ne 0 ] || [ $found -gt 0 ]; then
    failed+=("$t")
    echo "fuzz: FINDING in $t ($found input(s), libFuzzer exit $rc); what each does:" >&2
    for f in "$findings"/*.txt; do
      [ -f "$f" ] && echo "  $(basename "${f%.txt}"): $(head -1 "$f")" >&2
    done
    first=$(ls "$findings"/*.txt 2>/dev/null | head -1)
    if [ -n "$first" ]; then
      echo "fuzz: $first:" >&2
      head -n 50 "$first" >&2
    else
      tail -n 40 "$log" >&2
    fi
  else
    grep -oE 'Done [0-9]+ runs in [0-9]+ second|fuzzed for [0-9]+ iterations' "$log" | tail -1 >&2 || true
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}; inputs and stacks in $WORK/findings/" >&2
  exit 1
fi
echo "fuzz: no findings in ${targets[*]}" >&2
