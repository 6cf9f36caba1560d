#!/usr/bin/env bash
# Installs what is missing, builds, and runs the conformance suite (everything but the
# `long` sweeps; docs/TESTING.md); with SOFTMX_TEST_FUZZ=1 then the fuzz targets for a bounded time
# (scripts/fuzz.sh, about a minute plus their build, in build-fuzz/; .ci/run runs it after this
# script). Exit status: non-zero if either failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOFTMX_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
rm -f "$build"/conformance-summary/*.txt
status=0
# No two tests may share a name, and `long` is a whole binary's label (scripts/check-tests.sh):
# otherwise `-LE long` below would leave tests out without a word.
"$root/scripts/check-tests.sh" "$build" || status=$?
log="$build/ctest-default.log"
(cd "$build" && ctest -LE long -j "$(nproc)" --output-on-failure --timeout 1800 2>&1 | tee "$log"; exit "${PIPESTATUS[0]}") ||
  status=$?
"$root/scripts/summary.sh" "$build/conformance-summary"
# How many of the registered tests this run ran: the rest are the `long` label (docs/TESTING.md).
registered=$(cd "$build" && ctest -N | sed -n 's/^Total Tests: //p')
selected=$(cd "$build" && ctest -N -LE long | sed -n 's/^Total Tests: //p')
ran=$(sed -n 's/.*tests passed, [0-9]* tests\{0,1\} failed out of \([0-9]*\).*/\1/p' "$log" | tail -n 1)
echo "test: ran ${ran:-?} of the ${registered:-?} registered tests (${selected:-?} selected by -LE long; the" \
  "$(( ${registered:-0} - ${selected:-0} )) left out carry the label long: ctest -L long runs them)"
if [ -n "$ran" ] && [ -n "$selected" ] && [ "$ran" != "$selected" ]; then
  echo "test: ctest ran $ran tests where $selected were selected" >&2
  status=1
fi
[ $status -eq 0 ] || echo "test: the conformance suite FAILED (exit status $status)" >&2
fuzz_status=0
# The fuzz targets (a clang sanitizer build in build-fuzz/, about 5 minutes, then 100 s of fuzzing)
# run here with SOFTMX_TEST_FUZZ=1; .ci/run runs scripts/fuzz.sh itself after this script, which
# keeps this command within 20 minutes on 2 cores (issue 29).
if [ "${SOFTMX_TEST_FUZZ:-0}" = 1 ]; then
  echo
  echo "== fuzzing every parser (scripts/fuzz.sh)"
  "$root/scripts/fuzz.sh" || fuzz_status=$?
  [ $fuzz_status -eq 0 ] || echo "test: fuzzing FAILED (scripts/fuzz.sh exit status $fuzz_status)" >&2
else
  echo "test: the fuzz targets are not run here: scripts/fuzz.sh (CI runs it), or SOFTMX_TEST_FUZZ=1 ./scripts/test.sh"
fi
if [ $status -ne 0 ]; then exit $status; fi
exit $fuzz_status
