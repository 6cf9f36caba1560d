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
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOFTMX_BUILD_DIR:-$root/build}
[ -f "$build/CTestTestfile.cmake" ] || { echo "test-long: $build is not a built tree (run scripts/test.sh)" >&2; exit 2; }
hours='^(Mpfr/EveryF32Input\..*|test_python_install)$'
exclude=(-E "$hours")
[ "${SOFTMX_LONG_ALL:-0}" = 1 ] && exclude=()
start=$(date +%s)
echo "== the long label (ctest -L long${exclude:+ -E '$hours'})"
status=0
(cd "$build" && ctest -L long "${exclude[@]}" -j "$(nproc)" --output-on-failure --timeout 3600) || status=$?
echo "test-long: $(( ($(date +%s) - start) / 60 )) min $(( ($(date +%s) - start) % 60 )) s"
[ $status -eq 0 ] || echo "test-long: the long label FAILED (exit status $status)" >&2
exit $status
