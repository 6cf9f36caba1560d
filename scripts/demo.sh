#!/usr/bin/env bash
# The main job: install what is missing, build only what the demo runs (the softmx command and
# the example unit; not the test suite, the benchmarks or the GPU programs), show conversions and
# the anatomy of one, certify the example unit with its planted fault, then build and run a
# quick conformance check (the OCP spec tables, MPFR on every 16-bit input, NVIDIA's functions)
# and print its verdict and counts. Every line it prints fits 100 columns (test_demo_width).
#
#   scripts/demo.sh               all of it
#   scripts/demo.sh --tour-only   the conversions and the certificate only, on an existing build
#                                 (SOFTMX_BUILD_DIR or build/): no install, no build, no tests
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOFTMX_BUILD_DIR:-$root/build}
tour_only=0
[ "${1:-}" = --tour-only ] && tour_only=1
if [ $tour_only -eq 0 ]; then
  "$root/scripts/install-deps.sh"
  start=$(date +%s)
  SOFTMX_BUILD_TARGETS="softmx device_faulty" "$root/scripts/build.sh"
  echo "demo: built the softmx command and the example unit in $(( $(date +%s) - start )) s"
fi
sx="$build/tools/softmx/softmx"
show() { echo; echo "\$ softmx $*"; "$sx" "$@"; }

echo; echo "== the formats"
show formats
echo; echo "== one value into each MX element format (ocp dialect, rne, satfinite)"
for f in e4m3 e5m2 e3m2 e2m3 e2m1 int8 e8m0; do "$sx" convert --to "$f" 3.3; done
echo; echo "== OFP8 table 3 cases: 464 ties to 448; 465 overflows; NONSAT gives NaN (E4M3) or Inf (E5M2)"
show convert --to e4m3 464 465 inf nan -1e-9
show convert --to e4m3 --sat none 465
show convert --to e5m2 --sat none 61440
echo; echo "== raw bit patterns on stdin, TestFloat style: INPUT RESULT FLAGS"
echo "\$ printf '43E80000\n3F800000\nFFC00000\n' | softmx convert --from f32 --to e4m3"
printf '43E80000\n3F800000\nFFC00000\n' | "$sx" convert --from f32 --to e4m3
echo; echo "== where the dialects differ: CUDA's E8M0 ignores the sign; its float NaN is always 0x7F"
show convert --from f32 --to e8m0 --round rz --dialect cuda C0400000
show convert --from f32 --to e8m0 --round rz C0400000
show convert --from f32 --to e5m2 --dialect cuda FFC00000
echo; echo "== the anatomy of one conversion (--wide: the results as one table)"
show explain --to e8m0 3

# The certificate (docs/REPORT.md) of the example unit: examples/device_standin built with its
# planted fault (device_faulty: ties rounded away from zero into e5m2), certified as
# examples/certify.sh does: every rounding boundary of f32 -> e5m2 plus 100,000 random inputs,
# and every f16 input. One HTML page: the verdict, provenance, completeness, per-class counts,
# plots, the first failures explained, identify's scores, and how to reproduce it all.
echo; echo "== the certificate of the example unit (examples/device_faulty: a planted fault)"
work="$build/demo-certificate"
mkdir -p "$work"
for src in f32 f16; do
  "$sx" gen convert --from $src --to e5m2 --round rne --sat finite --dialect ocp --level 2 --seed 1 \
    --inputs-only -o "$work/$src-e5m2.inputs.vec"
  "$build/examples/device_faulty" < "$work/$src-e5m2.inputs.vec" > "$work/$src-e5m2.results.vec"
done
echo "\$ softmx report --title 'Certificate: examples/device_faulty' --identify f32-e5m2.results.vec \\"
echo "    -o certificate.html f32-e5m2.results.vec f16-e5m2.results.vec"
rc=0
(cd "$work" && "$sx" report --title "Certificate: examples/device_faulty" --identify f32-e5m2.results.vec \
  -o certificate.html f32-e5m2.results.vec f16-e5m2.results.vec) || rc=$?
# The unit's fault must fail it (exit status 1); anything else is the demo's failure.
[ $rc -eq 1 ] || { echo "demo: expected the certificate to FAIL the faulty unit (exit status 1), got $rc" >&2; exit 1; }
echo "The certificate: $work/certificate.html"
echo "(one self-contained page: open it in any browser, or print it)"
[ $tour_only -eq 1 ] && exit 0

# A quick conformance check: three test programs, built now (about 2 minutes on 2 cores), run by
# ctest by their suites' names; the verdict is ctest's own line, never cut off.
echo; echo "== quick conformance check (the OCP spec tables, MPFR on every 16-bit input, NVIDIA's functions)"
cmake --build "$build" -j "$(nproc)" --target test_spec_tables test_mpfr_exhaustive test_cuda_reference \
  > "$build/demo-tests.build.log" 2>&1 || { cat "$build/demo-tests.build.log"; exit 1; }
rm -f "$build"/conformance-summary/*.txt
log="$build/demo-tests.log"
status=0
(cd "$build" && ctest -R '^(SpecTables|EveryElementCode|Mpfr/Every16BitInput|CudaReference)\.' -j "$(nproc)" \
  --output-on-failure > "$log" 2>&1) || status=$?
# ctest's verdict ("100% tests passed, 0 tests failed out of 37"), what failed or was skipped,
# and its time; the whole log is $log.
grep -E '^[0-9]+% tests passed|^Total Test time|^The following tests|^[[:space:]]+[0-9]+ - ' "$log" | cut -c1-100
"$root/scripts/summary.sh" "$build/conformance-summary" | cut -c1-100
echo
echo "The whole suite (every test; every f32 input against NVIDIA's functions too): ./scripts/test.sh"
[ $status -eq 0 ] || { echo "demo: the quick conformance check FAILED (ctest exit status $status; $log)" >&2; exit 1; }
