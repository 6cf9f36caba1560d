#!/usr/bin/env bash
# Installs what is missing, builds, and runs the conformance suite (everything but the
# `long` sweeps; see README). Exit status: ctest's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOFTMX_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
rm -f "$build"/conformance-summary/*.txt
status=0
(cd "$build" && ctest -LE long -j "$(nproc)" --output-on-failure --timeout 1800) || status=$?
"$root/scripts/summary.sh" "$build/conformance-summary"
exit $status
