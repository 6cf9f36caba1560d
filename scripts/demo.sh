#!/usr/bin/env bash
# The main job: install what is missing, build, show conversions, then run the quick
# conformance checks and print their summary.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOFTMX_BUILD_DIR:-$root/build}
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
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
echo; echo "== the anatomy of one conversion"
show explain --to e8m0 3
echo; echo "== quick conformance run (spec tables, properties, MPFR exhaustive, NVIDIA's functions on 16-bit inputs)"
rm -f "$build"/conformance-summary/*.txt
(cd "$build" && ctest -L 'quick|mpfr|cli|cuda' -LE long -j "$(nproc)" --output-on-failure | tail -n 3)
"$root/scripts/summary.sh" "$build/conformance-summary"
echo; echo "The full suite (every f32 input against NVIDIA's functions too): ./scripts/test.sh"
