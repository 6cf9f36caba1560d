#!/usr/bin/env bash
# Runs the `long` label in an existing build tree (build/, or $SOFTMX_BUILD_DIR; scripts/test.sh
# builds it): the exhaustive checks the README's test command leaves out to stay under 20 minutes
# (the 2^32 vector == scalar, fused-sweep and NVIDIA sweeps, every committed f32 run table
# regenerated, the long GEMM, Python, runtime-format and Verilator 2^32 runs). .ci/run runs it
# after scripts/test.sh. Left out, named here, are the runs that take hours on 2 cores, which
# `ctest -L long` still runs by hand:
#   Mpfr/EveryF32Input.*       every f32 input against MPFR, 10-15 minutes per format (7 formats)
#   test_python_install        the offline Python install in a copy of the repository (it compiles
#                              the library again: about 28 minutes on 2 busy cores without ccache)
# SOFTMX_LONG_ALL=1 runs the whole label.
# SOFTMX_LONG_DEADLINE=<seconds since the epoch> bounds the run (.ci/run sets it to keep CI within
# its budget): ctest stops at that time (--stop-time), the tests it stops or never starts are
# listed as not run, and only a test that failed on its own fails this script.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOFTMX_BUILD_DIR:-$root/build}
[ -f "$build/CTestTestfile.cmake" ] || { echo "test-long: $build is not a built tree (run scripts/test.sh)" >&2; exit 2; }
hours='^(Mpfr/EveryF32Input\..*|test_python_install)$'
exclude=(-E "$hours")
[ "${SOFTMX_LONG_ALL:-0}" = 1 ] && exclude=()
start=$(date +%s)
stop=()
deadline=${SOFTMX_LONG_DEADLINE:-}
if [ -n "$deadline" ]; then
  case $deadline in *[!0-9]*|'') echo "test-long: SOFTMX_LONG_DEADLINE must be seconds since the epoch, not '$deadline'" >&2; exit 2 ;; esac
  left=$(( deadline - start ))
  # Under two minutes (SOFTMX_LONG_MIN_S) nothing in the label finishes; and a --stop-time in the
  # past would mean that time tomorrow.
  if [ $left -lt "${SOFTMX_LONG_MIN_S:-120}" ]; then
    echo "test-long: not run: ${left} s left of the budget (SOFTMX_LONG_DEADLINE); the label's tests:"
    (cd "$build" && ctest -N -L long "${exclude[@]}" | sed -n 's/^ *Test *#[0-9]*: /  /p')
    exit 0
  fi
  # ctest reads --stop-time as local time of day, without a zone (a zone suffix is ignored).
  stop=(--stop-time "$(date -d "@$deadline" +%H:%M:%S)")
  echo "test-long: budget ${left} s (until $(date -d "@$deadline" +%H:%M:%S) local time)"
fi
echo "== the long label (ctest -L long${exclude:+ -E '$hours'})"
log="$build/ctest-long.log"
status=0
(cd "$build" && ctest -L long "${exclude[@]}" "${stop[@]}" -j "$(nproc)" --output-on-failure --timeout 3600 2>&1 | tee "$log"
 exit "${PIPESTATUS[0]}") || status=$?
if [ -n "$deadline" ] && grep -q 'The stop time has been passed' "$log"; then
  # At the stop time ctest reports the tests it was running as timed out and never starts the
  # rest: neither is a failure of the test. Every other failure still is.
  failed=$(sed -n 's/^[0-9]*\/[0-9]* Test *#[0-9]*: \([^ ]*\) .*\*\*\*\(Failed\|Exception\|Not Run\).*/\1/p' "$log")
  all=$(cd "$build" && ctest -N -L long "${exclude[@]}" | sed -n 's/^ *Test *#[0-9]*: //p')
  passed=$(sed -n 's/^[0-9]*\/[0-9]* Test *#[0-9]*: \([^ ]*\) .* Passed .*/\1/p' "$log")
  notrun=$(comm -23 <(printf '%s\n' "$all" | sort) <(printf '%s\n' "$passed" $failed | sort))
  echo "test-long: the budget ended the run: $(printf '%s\n' "$passed" | grep -c .) passed," \
    "$(printf '%s\n' "$failed" | grep -c .) failed, $(printf '%s\n' "$notrun" | grep -c .) not run or stopped:"
  printf '  %s\n' $notrun
  status=0
  [ -z "$failed" ] || status=1
fi
echo "test-long: $(( ($(date +%s) - start) / 60 )) min $(( ($(date +%s) - start) % 60 )) s"
[ $status -eq 0 ] || echo "test-long: the long label FAILED (exit status $status)" >&2
exit $status
