#!/usr/bin/env bash
# One prepared GPU calibration (issue 30): everything possim measures on a CUDA device, in
# one call of at most 8 minutes, its outputs packed to come back from a lent machine.
#
#   bench/gpu_calibration.sh --bundle [--build-dir DIR]
#       here, before the call: pack possim (stripped), the shared libraries it needs that a
#       CUDA image lacks (SimGrid, Boost, ...), the CUDA plugin built here (a fallback) and
#       nlohmann/json's headers into gpu_run/bundle.tar.gz (ignored by git; the device call
#       carries it). Use a portable build: cmake -B build-bundle -DPOSSIM_CPU_NATIVE=OFF.
#   bench/gpu_calibration.sh [--out DIR] [--budget-s S] [--kernels M:B:P,...] [--no-roofline]
#       on the GPU machine (DIR default $OUT, else gpu_calibration_out): unpack the bundle
#       (or use ./build's possim), build the plugin against the CUDA and cuDNN found there
#       (the bundled one where that fails), then measure, within S seconds (default 450):
#         1. the roofline: a 8192^3 GEMM in fp32, tf32 and bf16, a 1 GiB device copy;
#         2. every layer's forward, backward-data and backward-filter kernels (cuDNN's
#            chosen algorithm recorded) of resnet50 at batch 64, vgg19 at 32, inception_v3
#            at 32, googlenet at 128 and resnet50 at 256, each in fp32 and in bf16 (mixed
#            precision: bf16 tensors, fp32 accumulation), with each FC layer's SF rebuild
#            GEMM, then 10 whole steps of the prepared layers each waited for per pass and
#            back to back (the sidecar's step), and once the pinned and pageable host
#            copies as a bandwidth curve;
#         1b. compute/communication interference: a GEMM beside a reduce-copy kernel on 8 to
#            all CTAs (NCCL's ring kernel's shape) and beside copy-engine transfers
#            (bench/gpu_interference.py, PyTorch and CuPy; --help only in a dry run);
#         3. one `possim validate --live` point on 1 node with "compute": "kernels",
#            "kernel_backend": "gpu", on the profile measured in step 2.
#       A step that would not fit in what is left is skipped and listed as such. --kernels
#       measures only the points it names (model:batch:precision, in that order; the first
#       also gives the live point), --no-roofline skips step 1 and --no-interference step 1b:
#       a later call's shorter list.
#   bench/gpu_calibration.sh --dry-run [--build-dir DIR] [--out DIR]
#       the same steps (bundle, unpack, plugin build, measurements, packing) with the CPU
#       backend on tiny batches: what CI runs to prove the script end to end without a GPU.
#
# What comes back, in DIR: summary.md (each step: status, seconds, what it wrote),
# gpu_calibration.tar.gz (env/, roofline.json, kernels/*.json with their
# *.calibration.json, validate_live.txt and .json, logs/), and measured_profile.json
# (resnet50 at batch 64, fp32). DEVELOPERS.md says how to make the call and what to commit.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

mode=gpu build_dir=build out="" budget_s=450 only="" roofline=1 interference=1
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) mode=bundle ;;
    --dry-run) mode=dry ;;
    --build-dir) build_dir=${2:?--build-dir needs a folder}; shift ;;
    --out) out=${2:?--out needs a folder}; shift ;;
    --budget-s) budget_s=${2:?--budget-s needs seconds}; shift ;;
    --kernels) only=${2:?--kernels needs MODEL:BATCH:PRECISION,...}; shift ;;
    --no-roofline) roofline=0 ;;
    --no-interference) interference=0 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu_calibration: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
case "$build_dir" in /*) ;; *) build_dir=$root/$build_dir ;; esac

# --- the bundle: possim and what it needs beyond a CUDA image ------------------------------
# Left out: the C library and the C++ runtime every Linux has (a newer one runs possim).
make_bundle() {
  # possim-modules: the dynamically linked possim, which opens the GPU backend and SimGrid
  # itself (the static possim would restart as it); absent where possim is built dynamic.
  local bin=$build_dir/cli/possim-modules dest=$1
  [ -x "$bin" ] || bin=$build_dir/cli/possim
  [ -x "$bin" ] || { echo "gpu_calibration: no possim at $bin (build it first)" >&2; exit 2; }
  local stage
  stage=$(mktemp -d)
  mkdir -p "$stage/bundle/lib" "$stage/bundle/include"
  strip -o "$stage/bundle/possim" "$bin"
  # The SimGrid engine is a module possim opens on first use (validate compares against it).
  local module=$build_dir/sim/libpossim_simgrid.so
  [ -f "$module" ] || { echo "gpu_calibration: no SimGrid module at $module (build target possim_simgrid)" >&2; exit 2; }
  strip -o "$stage/bundle/libpossim_simgrid.so" "$module"
  ldd "$bin" "$module" | awk '$3 ~ /^\// {print $3}' | sort -u |
    grep -vE '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$stage/bundle/lib/"; done
  [ -f "$build_dir/cli/libpossim_cuda_backend.so" ] &&
    cp "$build_dir/cli/libpossim_cuda_backend.so" "$stage/bundle/libpossim_cuda_backend.so.here"
  cp -r /usr/include/nlohmann "$stage/bundle/include/"
  "$bin" --version > "$stage/bundle/VERSION"
  tar -C "$stage" -czf "$dest" bundle
  rm -rf "$stage"
}

if [ "$mode" = bundle ]; then
  mkdir -p gpu_run
  make_bundle "$root/gpu_run/bundle.tar.gz"
  echo "gpu_calibration: wrote gpu_run/bundle.tar.gz ($(du -h gpu_run/bundle.tar.gz | cut -f1)); carry gpu_run in the device call (DEVELOPERS.md)"
  exit 0
fi

t0=$SECONDS
[ -n "$out" ] || out=${OUT:-$root/gpu_calibration_out}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
res=$work/gpu_calibration
mkdir -p "$res/env" "$res/kernels" "$res/logs"
summary=$work/summary.md
backend=gpu
[ "$mode" = dry ] && backend=cpu
{
  echo "# GPU calibration: $(date -u +%Y-%m-%dT%H:%M:%SZ), mode $mode, backend $backend, budget ${budget_s} s"
  echo
  echo "| step | status | s | wrote |"
  echo "|---|---|---:|---|"
} > "$summary"
note() { echo "| $1 | $2 | $3 | $4 |" >> "$summary"; }

# --- possim: from the bundle (made here first in a dry run), or this tree's build ----------
bundle=$root/gpu_run/bundle.tar.gz
if [ "$mode" = dry ]; then
  bundle=$work/bundle.tar.gz
  make_bundle "$bundle"
fi
if [ -f "$bundle" ]; then
  tar -C "$work" -xzf "$bundle"
  bin=$work/bundle
  export LD_LIBRARY_PATH=$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export POSSIM_SIMGRID_MODULE=$bin/libpossim_simgrid.so
  note "unpack bundle" ok $((SECONDS - t0)) "possim $(cat "$bin/VERSION" | cut -d' ' -f2)"
else
  bin=$work/bin
  mkdir -p "$bin"
  cp "$build_dir/cli/possim" "$bin/possim"
  [ -x "$build_dir/cli/possim-modules" ] && cp "$build_dir/cli/possim-modules" "$bin/possim-modules"
  note "unpack bundle" "none: $build_dir/cli/possim" 0 ""
fi
possim=$bin/possim
if ldd "$possim" | grep -q 'not found'; then
  ldd "$possim" | grep 'not found' > "$res/logs/ldd_missing.txt"
  note "possim loads" FAILED 0 "missing libraries: $(tr -s ' \t\n' ' ' < "$res/logs/ldd_missing.txt")"
fi

# --- the CUDA plugin, built against the CUDA and cuDNN found here ---------------------------
# cuDNN and cuBLAS come from the CUDA toolkit or from Python's nvidia-* wheels (PyTorch's).
{
  for d in /usr/local/cuda /usr/local/cuda-*; do [ -d "$d/include" ] && echo "cuda $d"; done
  python3 - <<'PY' 2>/dev/null || true
import importlib, os
for name in ("nvidia.cudnn", "nvidia.cublas", "nvidia.cuda_runtime", "nvidia.cu13"):
    try:
        m = importlib.import_module(name)
        for p in m.__path__:
            print("wheel", p)
    except Exception:
        pass
PY
} > "$res/env/cuda_roots.txt"
incs=() dirs=()
while read -r kind dir; do
  [ -d "$dir/include" ] && incs+=("-I$dir/include")
  for l in lib64 lib; do
    if [ -d "$dir/$l" ]; then
      dirs+=("$dir/$l")
      export LD_LIBRARY_PATH=$dir/$l${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
  done
done < "$res/env/cuda_roots.txt"
# A library by name, as the toolkit (libX.so) or a wheel (libX.so.13 only) ships it.
find_lib() {
  local d f
  for d in "${dirs[@]}"; do
    for f in "$d/lib$1.so" "$d"/lib$1.so.[0-9]*; do [ -e "$f" ] && { echo "$f"; return 0; }; done
  done
  return 1
}
plugin=$bin/libpossim_cuda_backend.so
s=$SECONDS
link=()
for l in cudart cublas cublasLt cudnn; do f=$(find_lib $l) && link+=("$f" "-Wl,-rpath,$(dirname "$f")"); done
if command -v g++ >/dev/null && [ ${#incs[@]} -gt 0 ] && [ ${#link[@]} -eq 8 ] &&
   g++ -O2 -std=c++17 -shared -fPIC -w -I"$root" -I"$bin/include" "${incs[@]}" \
     kernels/cuda_backend.cpp kernels/timing.cpp model/input/text.cpp "${link[@]}" \
     -o "$plugin" > "$res/logs/plugin_build.txt" 2>&1; then
  note "plugin build" ok $((SECONDS - s)) "against $(tr '\n' ' ' < "$res/env/cuda_roots.txt")"
elif [ -f "$bin/libpossim_cuda_backend.so.here" ]; then
  cp "$bin/libpossim_cuda_backend.so.here" "$plugin"
  note "plugin build" "failed: the bundled plugin is used" $((SECONDS - s)) "logs/plugin_build.txt"
else
  note "plugin build" "failed, no plugin" $((SECONDS - s)) "logs/plugin_build.txt"
fi
{
  date -u
  uname -a
  "$possim" --version
  command -v nvidia-smi >/dev/null && nvidia-smi || echo "no nvidia-smi"
  command -v nvcc >/dev/null && nvcc --version || echo "no nvcc"
  lscpu | head -20
} > "$res/env/machine.txt" 2>&1 || true
command -v nvidia-smi >/dev/null && nvidia-smi -q > "$res/env/nvidia-smi-q.txt" 2>&1 || true

# --- the measurements, each within what is left of the budget ------------------------------
left() { echo $((budget_s - (SECONDS - t0))); }
# step NAME MIN_S WROTE CMD...: runs CMD with a timeout of what is left (less 15 s to pack),
# or skips it when less than MIN_S is left; logs to logs/NAME.txt.
step() {
  local name=$1 min=$2 wrote=$3
  shift 3
  local avail=$(( $(left) - 15 ))
  if [ "$avail" -lt "$min" ]; then
    note "$name" "skipped: ${avail} s left, needs ${min}" 0 ""
    return 0
  fi
  local s=$SECONDS rc=0
  timeout -k 5 "$avail" "$@" > "$res/logs/$name.txt" 2>&1 || rc=$?
  if [ $rc -eq 0 ]; then note "$name" ok $((SECONDS - s)) "$wrote"
  elif [ $rc -eq 124 ]; then note "$name" "stopped at the budget" $((SECONDS - s)) "logs/$name.txt"
  else note "$name" "FAILED ($rc)" $((SECONDS - s)) "logs/$name.txt"; fi
}

if [ "$mode" = dry ]; then
  # The plugin built above loads, and is what answers (no device here): on the GPU machine
  # the roofline below is the first to use it.
  [ -f "$plugin" ] && step plugin_loads 2 "" sh -c "'$possim' calibrate roofline --backend gpu 2>&1 | grep 'no CUDA device'"
  step roofline 5 roofline.json "$possim" calibrate roofline --backend cpu --gemm 128 --copy-mib 4 \
    --repeats 3 --warmup 1 --out "$res/roofline.json"
  points=("resnet50 1" "vgg19 1" "inception_v3 1" "googlenet 1" "resnet50 2")
  precisions=(fp32)
  kopts=(--repeats 1 --warmup 0 --layers 3 --step-repeats 1)
else
  [ $roofline -eq 1 ] && step roofline 20 roofline.json "$possim" calibrate roofline --backend gpu --gemm 8192 \
    --copy-mib 1024 --repeats 20 --warmup 3 --out "$res/roofline.json"
  points=("resnet50 64" "vgg19 32" "inception_v3 32" "googlenet 128" "resnet50 256")
  precisions=(fp32 bf16)
  kopts=(--repeats 10 --warmup 2 --step-repeats 10)
fi
# The kernel points, in order: every point in every precision, or those --kernels names.
runs=()
if [ -n "$only" ]; then
  IFS=, read -r -a runs <<< "$only"
else
  for point in "${points[@]}"; do
    set -- $point
    for prec in "${precisions[@]}"; do runs+=("$1:$2:$prec"); done
  done
fi
# Compute/communication interference (issue 28 item 3a): PyTorch and CuPy on the GPU machine;
# here, the script's arguments parse.
if [ "$mode" = dry ]; then
  step interference 2 "" python3 bench/gpu_interference.py --help
elif [ $interference -eq 1 ]; then
  step interference 20 interference.json timeout 75 python3 bench/gpu_interference.py --trials 3 \
    --out "$res/interference.json"
fi
first=1
for run in "${runs[@]}"; do
  IFS=: read -r m b prec <<< "$run"
  set -- "$m" "$b"
  name=${1}_b${2}_$prec
  copies=(--no-copies)
  # The host copy curve once, with the first model; kept whatever its line's fit (a device
  # call is not repeated for it: a poor line is written with the note that says so).
  [ $first -eq 1 ] && copies=(--accept-poor-fit)
  step "kernels_$name" 10 "kernels/$name.json" "$possim" calibrate kernels --model "$1" --batch "$2" \
    --backend "$backend" --precision "$prec" "${kopts[@]}" "${copies[@]}" --out "$res/kernels/$name.json"
  if [ $first -eq 1 ] && [ -f "$res/kernels/$name.json" ]; then
    # One live point on the profile just measured: the same kernels run for real on 1 node.
    first=0
    vbatch=$2
    [ "$mode" = dry ] && vbatch=1
    cat > "$res/validate_live.scenario.json" <<JSON
{
  "name": "gpu_live_${1}",
  "description": "$1 at batch $vbatch on 1 node: its layers' $backend kernels run live against SimGrid on the profile measured from them",
  "model": "$1",
  "batch_per_gpu": $vbatch,
  "precision": "$([ "$prec" = bf16 ] && echo amp_bf16 || echo fp32)",
  "cluster": { "nodes": [1], "nic_gbps": [100] },
  "strategies": ["allreduce"],
  "profile": "kernels/$name.json",
  "iterations": $([ "$mode" = dry ] && echo 2 || echo 10),
  "seed": 1,
  "live": { "links": "loopback", "compute": "kernels", "kernel_backend": "$backend" }
}
JSON
    step validate_live 10 validate_live.txt sh -c "cd '$res' && '$possim' validate validate_live.scenario.json --live \
      --json validate_live.json > validate_live.txt"
  fi
done

# --- packing: what comes back fits the call's limits (8 files, 16 MiB each) ----------------
tar -C "$work" -czf "$out/gpu_calibration.tar.gz" gpu_calibration
[ -f "$res/interference.json" ] && cp "$res/interference.json" "$out/interference.json"
[ -f "$res/kernels/resnet50_b64_fp32.json" ] && cp "$res/kernels/resnet50_b64_fp32.json" "$out/measured_profile.json"
echo >> "$summary"
echo "$(( SECONDS - t0 )) s in all; outputs in gpu_calibration.tar.gz ($(du -h "$out/gpu_calibration.tar.gz" | cut -f1))" >> "$summary"
cp "$summary" "$out/summary.md"
cat "$summary"
# A failed step fails the run (a skipped one does not: the budget decides what fits).
! grep -q '| FAILED' "$summary"
