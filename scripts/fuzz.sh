#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, with clang, ASan and UBSan) into build-fuzz/ (or
# $SOFTMX_FUZZ_BUILD_DIR) and runs each for a bounded time on a copy of its seed corpus
# (fuzz/corpus/TARGET/, never modified: new inputs go to build-fuzz/fuzz-run/TARGET/corpus).
#
#   ./scripts/fuzz.sh [TARGET...]        all targets by default: fuzz_vectors fuzz_cli_args ...
#   FUZZ_SECONDS=600 ./scripts/fuzz.sh   longer runs (default 20 s per target: 6
#                                        targets 2 at a time take 60 s)
#   FUZZ_JOBS=1 ./scripts/fuzz.sh        targets run side by side, FUZZ_JOBS at a time (default:
#                                        the number of cores)
#
# Prints per target the executions, executions per second and the result. Exit status 1 if any
# target found something (a crash, a sanitizer report, an unexpected exception, a timeout of
# 10 s on one input, more than 2 GB of memory): the message names the input that did it and the
# command that replays it.
#
# The targets are built without the AVX2/AVX-512 kernels (SOFTMX_ISA_KERNELS=OFF): they fuzz
# parsers, which run the same with the scalar kernels, and those units would triple the build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOFTMX_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${FUZZ_SECONDS:-20}
jobs=${FUZZ_JOBS:-$(nproc)}
all_targets=(fuzz_vectors fuzz_cli_args fuzz_exact fuzz_commands fuzz_format_spec fuzz_forgery)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  [ -d "$root/fuzz/corpus/${t#fuzz_}" ] || { echo "fuzz: unknown target '$t' (expected: ${all_targets[*]})" >&2; exit 2; }
done

"$root/scripts/install-deps.sh"

# libFuzzer comes with clang's runtime libraries (Debian: libclang-rt-dev); say so plainly if not.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' > "$probe/probe.cpp"
if ! clang++ -fsanitize=fuzzer,address,undefined "$probe/probe.cpp" -o "$probe/probe" > "$probe/log" 2>&1; then
  cat "$probe/log" >&2
  echo "fuzz: clang++ cannot build a libFuzzer target (is clang's runtime, Debian package libclang-rt-dev, installed?)" >&2
  exit 1
fi

echo "fuzz: building the fuzz targets in $build"
start=$SECONDS
mkdir -p "$build"
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -DSOFTMX_FUZZ=ON -DSOFTMX_ISA_KERNELS=OFF -DCMAKE_BUILD_TYPE=Release \
  > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; echo "fuzz: configuring $build failed" >&2; exit 1; }
cmake --build "$build" --target "${targets[@]}" -j "$(nproc)" > "$build/build.log" 2>&1 ||
  { tail -n 60 "$build/build.log"; echo "fuzz: building the fuzz targets failed (log: $build/build.log)" >&2; exit 1; }
echo "fuzz: built in $((SECONDS - start)) s; running ${#targets[@]} targets for $seconds s each, $jobs at a time"

# One target: fresh run directory, a copy of the seeds, libFuzzer's log; the result goes to
# RUN/result ("ok EXECS EXEC_PER_SEC CORPUS" or "FOUND ARTIFACT").
run_target() {
  local t=$1 run=$build/fuzz-run/$1 status=0
  rm -rf "$run"
  mkdir -p "$run/corpus" "$run/artifacts"
  cp "$root/fuzz/corpus/${t#fuzz_}/"* "$run/corpus/"
  (cd "$run" && "$build/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
     -dict="$root/fuzz/${t#fuzz_}.dict" -artifact_prefix="$run/artifacts/" -print_final_stats=1 \
     "$run/corpus" > "$run/log" 2>&1) || status=$?
  local execs rate units
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$run/log" | tail -n 1)
  units=$(find "$run/corpus" -type f | wc -l)
  local artifact
  artifact=$(find "$run/artifacts" -type f -print -quit)
  if [ "$status" -eq 0 ] && [ -z "$artifact" ]; then
    echo "ok ${execs:-?} ${rate:-?} $units" > "$run/result"
  else
    echo "FOUND ${artifact:-none} $status" > "$run/result"
  fi
}

for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  run_target "$t" &
done
wait

found=0
printf '%-15s %12s %10s %8s  %s\n' target executions exec/s corpus result
for t in "${targets[@]}"; do
  run=$build/fuzz-run/$t
  read -r verdict a b c < "$run/result" || verdict="FOUND"
  if [ "$verdict" = ok ]; then
    printf '%-15s %12s %10s %8s  %s\n' "$t" "$a" "$b" "$c" "nothing found"
  else
    found=1
    printf '%-15s %12s %10s %8s  %s\n' "$t" - - - "FOUND A PROBLEM (exit status ${b:-?})"
    echo "---- $t: the report, from libFuzzer's log ($run/log):"
    # From the first line of the report (a sanitizer, the target's own check, libFuzzer).
    first=$(grep -n -m 1 -E '^==[0-9]+==|runtime error:|^fuzz_[a-z_]+: |^terminate called|^ALARM|ERROR: libFuzzer' \
            "$run/log" | cut -d: -f1 || true)
    if [ -n "$first" ]; then tail -n "+$first" "$run/log" | head -n 80; else tail -n 40 "$run/log"; fi | sed 's/^/    /'
    if [ -n "${a:-}" ] && [ "$a" != none ]; then
      echo "---- $t: the input is $a; replay it with:"
      echo "    $build/fuzz/$t $a"
    fi
  fi
done
if [ $found -ne 0 ]; then
  echo "fuzz: FAILED: a target found a problem (above)" >&2
  exit 1
fi
echo "fuzz: all ${#targets[@]} targets ran $seconds s each; nothing found"
