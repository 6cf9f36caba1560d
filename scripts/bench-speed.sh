#!/usr/bin/env bash
# Runs the speed benchmarks behind README's "Speed" table, one core each, and prints their
# summaries with the machine they ran on. Every figure is a ratio against a peer measured in the
# same process (the memory loops, the E8M0 path of the same element, OpenBLAS sgemm), so the
# table compares like with like on any machine.
#
#   scripts/bench-speed.sh [OUT_DIR]      (default: build/speed; the raw output of each benchmark
#                                          lands there as <name>.txt)
#
# SOFTMX_BUILD_DIR picks the build (default build/). Pins each run to one core (taskset, the last
# core) so that the single-thread figures do not move between cores. OpenBLAS's own overrides
# (OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE) are cleared so that its sgemm picks its kernel for this
# CPU, as a user's would; bench_gemm prints the kernel it ran.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOFTMX_BUILD_DIR:-$root/build}
out=${1:-$build/speed}
mkdir -p "$out"
benches=(bench_block bench_block_scales bench_gemm)
SOFTMX_BUILD_TARGETS="${benches[*]}" "$root/scripts/build.sh" > "$out/build.log" 2>&1 || {
  tail -30 "$out/build.log"; exit 1; }
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
export OPENBLAS_NUM_THREADS=1
core=$(($(nproc) - 1))
pin=()
if command -v taskset > /dev/null; then pin=(taskset -c "$core"); fi
{
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" \
    "(family $(grep -m1 'cpu family' /proc/cpuinfo | cut -d: -f2 | tr -d ' ')," \
    "model $(grep -m1 '^model[[:space:]]*:' /proc/cpuinfo | cut -d: -f2 | tr -d ' '))"
  echo "instruction sets: $(grep -m1 -o -w 'avx512f\|avx2' /proc/cpuinfo | sort -u | tr '\n' ' ')"
  echo "cores: $(nproc); pinned to core $core"
} | tee "$out/machine.txt"
for b in "${benches[@]}"; do
  exe="$build/bench/$b"
  if [ ! -x "$exe" ]; then echo "$b: not built (see $out/build.log)"; continue; fi
  echo; echo "== $b"
  # The summary (everything after Google Benchmark's own table) is what the README quotes.
  "${pin[@]}" "$exe" --benchmark_color=false > "$out/$b.txt" 2> "$out/$b.err" || {
    echo "$b failed:"; tail -20 "$out/$b.err"; exit 1; }
  # Everything after Google Benchmark's table header that is not one of its rows (a run's name,
  # then its times): colour codes stripped.
  sed 's/\x1b\[[0-9;]*m//g' "$out/$b.txt" |
    awk '/^--------------------/ {seen = 1; next} seen && !/^Benchmark / && !/^[^ ]+\/[^ ]* +[0-9.]+ (ns|us|ms|s) /'
done
echo; echo "raw output: $out"
