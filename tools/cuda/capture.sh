#!/usr/bin/env bash
# tools/cuda/capture.sh [OUTDIR]: capture this machine's GPU conversions, in one command.
#
# Builds softmx, softmx_capture_cuda, softmx_capture_manifest (and softmx_capture_mma when
# tools/cuda/mma/ provides it) in build-capture-gpu/ with only what they need (no tests, no
# benchmarks), runs the capture programs on GPU 0, writes the tables and MANIFEST to
# OUTDIR/<gpu-slug>/ (OUTDIR: vectors/cuda by default), then checks every table with
# `softmx verify` in the dialect its header names and prints a summary. Exit status 0 when
# every table verifies, 1 when any capture failed or any table disagrees, 2 when it could not
# build or run. Environment: SOFTMX_CAPTURE_BUILD (build folder), SOFTMX_CUDA_ARCHS (CMake list
# of targets, e.g. "90a"), CUDACXX (nvcc; default: nvcc on PATH, else /usr/local/cuda/bin/nvcc).
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${SOFTMX_CAPTURE_BUILD:-$repo/build-capture-gpu}
outroot=${1:-$repo/vectors/cuda}
nvcc=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
jobs=$(nproc 2>/dev/null || echo 2)

die() { echo "capture.sh: $*" >&2; exit 2; }
[ -x "$nvcc" ] || die "no nvcc at '$nvcc' (install the CUDA toolkit or set CUDACXX)"

archs=()
[ -n "${SOFTMX_CUDA_ARCHS:-}" ] && archs=("-DSOFTMX_CUDA_ARCHS=$SOFTMX_CUDA_ARCHS")
echo "== configure ($build)"
cmake -S "$repo" -B "$build" -DSOFTMX_BUILD_TESTS=OFF -DSOFTMX_BUILD_BENCH=OFF -DSOFTMX_CUDA_CAPTURE=ON \
      -DCMAKE_CUDA_COMPILER="$nvcc" "${archs[@]}" > "$build.configure.log" 2>&1 \
  || die "cmake configure failed; see $build.configure.log (softmx needs g++ 12+, cmake 3.20+ and the Boost headers)"
targets=(softmx softmx_capture_cuda softmx_capture_manifest)
mma=no
if grep -q "softmx_capture_mma" "$build/Makefile" 2>/dev/null || [ -f "$repo/tools/cuda/mma/CMakeLists.txt" ]; then
  targets+=(softmx_capture_mma)
  mma=yes
fi
echo "== build ${targets[*]} (-j$jobs)"
start=$(date +%s)
cmake --build "$build" -j"$jobs" --target "${targets[@]}" > "$build.build.log" 2>&1 \
  || die "build failed; see $build.build.log"
echo "   built in $(( $(date +%s) - start )) s"

bin=$build/tools/cuda
slug=$("$bin/softmx_capture_cuda" --print-slug) || die "no usable GPU (softmx_capture_cuda --print-slug failed)"
out=$outroot/$slug
mkdir -p "$out" || die "cannot create $out"
rm -f "$out"/*.vec "$out"/MANIFEST
status=0

echo "== capture into $out"
"$bin/softmx_capture_cuda" "$out"
rc=$?
[ $rc -eq 2 ] && die "softmx_capture_cuda could not run"
[ $rc -ne 0 ] && status=1
if [ "$mma" = yes ]; then
  echo "== mma captures"
  if ! "$bin/mma/softmx_capture_mma" "$out"; then status=1; fi
fi

echo "== manifest"
"$build/tools/cuda/softmx_capture_manifest" "$out" || die "writing the MANIFEST failed"

echo "== softmx verify (each table in the dialect its header names)"
pass=0; fail=0; failed=()
for t in "$out"/*.vec; do
  if "$build/tools/softmx/softmx" verify --max-errors 5 "$t" > "$t.verify.txt" 2>&1; then
    pass=$((pass + 1)); rm -f "$t.verify.txt"
  else
    fail=$((fail + 1)); failed+=("$(basename "$t")")
  fi
done
echo "== summary: $(ls "$out"/*.vec | wc -l) tables in $out; $pass verify, $fail disagree"
for f in "${failed[@]}"; do
  echo "   DISAGREES: $f (details: $out/$f.verify.txt)"
  tail -n 1 "$out/$f.verify.txt" | sed 's/^/     /'
done
[ $fail -ne 0 ] && status=1
exit $status
