#!/usr/bin/env bash
# Set up possim on Debian 12: install the Debian packages it needs (idempotent), then
# configure and build. Usage: ./setup.sh [build-dir]   (default: build)
set -euo pipefail
cd "$(dirname "$0")"
BUILD_DIR=${1:-build}

PACKAGES=(
  build-essential cmake pkg-config git
  nlohmann-json3-dev          # scenario, profile and result JSON
  libboost-program-options-dev  # the command line
  libeigen3-dev               # fitting, factor rebuild
  libsimgrid-dev              # the discrete-event engine
  catch2                      # tests
  gnuplot-nox                 # report plots
  openmpi-bin libopenmpi-dev  # `possim sweep` under mpirun (a rank is a shard; see cli/sweep_shard.hpp)
  iproute2                    # network namespaces and tc for live runs
  clang-19 libclang-rt-19-dev # CI's sanitizer build and fuzz/ (libFuzzer; the runtimes are
                              # only a recommendation of clang-19)
  llvm-19                     # llvm-symbolizer-19: function names and lines in their stacks
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo >&2
cmake --build "$BUILD_DIR" -j"$(nproc)" >&2
echo "setup: built $BUILD_DIR/cli/possim" >&2
