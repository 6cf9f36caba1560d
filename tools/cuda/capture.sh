#!/usr/bin/env bash
# tools/cuda/capture.sh [OUTDIR]: capture this machine's GPU conversions and tensor-core
# arithmetic, in one command.
#
# Builds softmx, softmx_capture_cuda, softmx_capture_mma and softmx_capture_manifest in
# build-capture-gpu/ with only what they need (no tests, no benchmarks), runs the capture
# programs on GPU 0, writes the tables, the mma vector files (mma-*.vec) and MANIFEST to
# OUTDIR/<gpu-slug>/ (OUTDIR: vectors/cuda by default), then checks every file with `softmx
# verify` (the dialect or tensor-core model its header names) and prints a summary. On a
# Blackwell GPU (compute capability 10.x/11.0: tcgen05; 12.x: the sm_120 mma.sync block-scaled
# forms) the mma program captures the Blackwell forms too; on any other GPU it lists them as
# skipped with the reason. A file whose tensor-core model this softmx does not know yet (the
# Blackwell models may land after the capture) is kept and reported as waiting for its model,
# not as a failure.
#
# Exit status 0 when every file verifies or waits for its model, 1 when a capture failed or a
# file disagrees, 2 when it could not build or run. Environment: SOFTMX_CAPTURE_BUILD (build
# folder), SOFTMX_CUDA_ARCHS / SOFTMX_CUDA_MMA_ARCHS (CMake lists of targets, e.g. "90a"),
# CUDACXX (nvcc; default: nvcc on PATH, else /usr/local/cuda/bin/nvcc), SOFTMX_MMA_ARGS (extra
# arguments of softmx_capture_mma, e.g. "--count 2000" or "--only tcgen05").
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${SOFTMX_CAPTURE_BUILD:-$repo/build-capture-gpu}
outroot=${1:-$repo/vectors/cuda}
nvcc=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
jobs=$(nproc 2>/dev/null || echo 2)

die() { echo "capture.sh: $*" >&2; exit 2; }
[ -x "$nvcc" ] || die "no nvcc at '$nvcc' (install the CUDA toolkit or set CUDACXX)"

archs=()
[ -n "${SOFTMX_CUDA_ARCHS:-}" ] && archs+=("-DSOFTMX_CUDA_ARCHS=$SOFTMX_CUDA_ARCHS")
[ -n "${SOFTMX_CUDA_MMA_ARCHS:-}" ] && archs+=("-DSOFTMX_CUDA_MMA_ARCHS=$SOFTMX_CUDA_MMA_ARCHS")
echo "== configure ($build)"
cmake -S "$repo" -B "$build" -DSOFTMX_BUILD_TESTS=OFF -DSOFTMX_BUILD_BENCH=OFF -DSOFTMX_CUDA_CAPTURE=ON \
      -DCMAKE_CUDA_COMPILER="$nvcc" "${archs[@]}" > "$build.configure.log" 2>&1 \
  || die "cmake configure failed; see $build.configure.log (softmx needs g++ 12+, cmake 3.20+ and the Boost headers)"
targets=(softmx softmx_capture_cuda softmx_capture_mma softmx_capture_manifest)
echo "== build ${targets[*]} (-j$jobs)"
start=$(date +%s)
cmake --build "$build" -j"$jobs" --target "${targets[@]}" > "$build.build.log" 2>&1 \
  || die "build failed; see $build.build.log"
echo "   built in $(( $(date +%s) - start )) s"

bin=$build/tools/cuda
manifest=$bin/softmx_capture_manifest
slug=$("$bin/softmx_capture_cuda" --print-slug) || die "no usable GPU (softmx_capture_cuda --print-slug failed)"
out=$outroot/$slug
mkdir -p "$out" || die "cannot create $out"
rm -f "$out"/*.vec "$out"/*.verify.txt "$out"/MANIFEST
status=0

echo "== conversion captures into $out"
"$bin/softmx_capture_cuda" "$out"
rc=$?
# It cannot run on a GPU no dialect models (compute capability below 9.0, e.g. Ada): the
# tensor-core captures still can.
[ $rc -eq 2 ] && echo "capture.sh: softmx_capture_cuda could not run (above); going on with the tensor-core captures" >&2
[ $rc -ne 0 ] && status=1

echo "== tensor-core (mma) captures into $out"
# shellcheck disable=SC2086
"$bin/mma/softmx_capture_mma" "$out" ${SOFTMX_MMA_ARGS:-} | tee "$build.mma.log"
rc=${PIPESTATUS[0]}
[ $rc -eq 2 ] && die "softmx_capture_mma could not run"
[ $rc -ne 0 ] && status=1

echo "== manifest and softmx verify"
"$repo/tools/cuda/verify_capture.sh" "$out" "$build/tools/softmx/softmx" "$manifest"
rc=$?
[ $rc -eq 2 ] && die "writing the MANIFEST failed"
[ $rc -ne 0 ] && status=1
if grep -q '^skip ' "$build.mma.log"; then
  echo "   mma forms this GPU or build cannot run (not captured):"
  grep -h '^skip \|Blackwell forms skipped' "$build.mma.log" | sed 's/^/   /'
fi
exit $status
