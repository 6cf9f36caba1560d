#!/usr/bin/env bash
# Installs what is missing, builds, and runs the conformance suite (everything but the
# `long` sweeps; see README), then the fuzz targets for a bounded time (scripts/fuzz.sh, about a
# minute plus their build, in build-fuzz/). Exit status: non-zero if either failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOFTMX_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
rm -f "$build"/conformance-summary/*.txt
status=0
(cd "$build" && ctest -LE long -j "$(nproc)" --output-on-failure --timeout 1800) || status=$?
"$root/scripts/summary.sh" "$build/conformance-summary"
[ $status -eq 0 ] || echo "test: the conformance suite FAILED (ctest exit status $status)" >&2
fuzz_status=0
echo
echo "== fuzzing every parser (scripts/fuzz.sh)"
"$root/scripts/fuzz.sh" || fuzz_status=$?
[ $fuzz_status -eq 0 ] || echo "test: fuzzing FAILED (scripts/fuzz.sh exit status $fuzz_status)" >&2
if [ $status -ne 0 ]; then exit $status; fi
exit $fuzz_status
