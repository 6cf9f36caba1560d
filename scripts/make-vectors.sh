#!/usr/bin/env bash
# Makes softmx's canonical vector sets (vectors/README.md, "Committed vectors") and their
# MANIFEST, byte for byte the same on any machine.
#
#   scripts/make-vectors.sh [--small] [OUTDIR]      (default: the repository's vectors/)
#
# --small leaves out the run tables from f32 (2^32 inputs each, 104 of them: minutes on two
# cores); MANIFEST then lists only what was made.
#
# Needs the built `softmx` (build/tools/softmx/softmx, or $SOFTMX). Every file is written by
# one softmx command run inside OUTDIR; MANIFEST lists each file's SHA-256, its path and that
# command, tab-separated. The conformance test test_committed_vectors runs this script into a
# temporary folder and requires the result to equal the committed files exactly.
set -euo pipefail
export LC_ALL=C
root=$(cd "$(dirname "$0")/.." && pwd)
sources="f32 f16 bf16"
if [ "${1:-}" = "--small" ]; then
  sources="f16 bf16"
  shift
fi
out=${1:-$root/vectors}
softmx=${SOFTMX:-$root/build/tools/softmx/softmx}
[ -x "$softmx" ] || { echo "make-vectors: $softmx not found: build first (scripts/build.sh)" >&2; exit 1; }
softmx=$(cd "$(dirname "$softmx")" && pwd)/$(basename "$softmx")
mkdir -p "$out"
out=$(cd "$out" && pwd)
manifest_tmp=$(mktemp)
trap 'rm -f "$manifest_tmp"' EXIT
count=0
start=$SECONDS

# make PATH ARGS...: runs `softmx ARGS -o PATH` in $out and records it.
make() {
  local path=$1
  shift
  mkdir -p "$out/$(dirname "$path")"
  (cd "$out" && "$softmx" "$@" -o "$path")
  printf '%s\t%s\tsoftmx %s -o %s\n' "$(sha256sum "$out/$path" | cut -d' ' -f1)" "$path" "$*" "$path" >> "$manifest_tmp"
  count=$((count + 1))
  if [ -t 2 ]; then printf '\rmake-vectors: %d files, %ds' "$count" $((SECONDS - start)) >&2; fi
}

# make_dir DIR ARGS...: runs `softmx ARGS -o DIR` in $out (a command that writes a folder) and
# records every file under DIR, each with that command.
make_dir() {
  local dir=$1 f
  shift
  mkdir -p "$out/$(dirname "$dir")"
  (cd "$out" && "$softmx" "$@" -o "$dir" > /dev/null)
  while IFS= read -r f; do
    printf '%s\t%s\tsoftmx %s -o %s\n' "$(sha256sum "$out/$f" | cut -d' ' -f1)" "$f" "$*" "$dir" >> "$manifest_tmp"
    count=$((count + 1))
  done < <(cd "$out" && find "$dir" -type f | sort)
}

elements="e4m3 e5m2 e3m2 e2m3 e2m1 int8 e8m0"
modes="rne rna rz ru rd ro"

# Run tables: every f32, f16 and bf16 input into every element format and E8M0.
# runs DIALECT SRC FMT MODE...: one table per mode, each under saturation finite, then none.
runs() {
  local dialect=$1 src=$2 fmt=$3 mode sat
  shift 3
  for mode in "$@"; do
    for sat in finite none; do
      make "runs/$dialect/$src/$fmt-$mode-$sat.runs" sweep --from $src --to $fmt --round $mode --sat $sat --dialect $dialect
    done
  done
}
# ocp: every deterministic mode and both saturations.
for src in $sources; do
  for fmt in $elements; do
    runs ocp $src $fmt $modes
  done
done
# cuda: what NVIDIA's conversions accept (emulator/dialects.cpp, make_cuda): FP8 rne; FP6 and
# FP4 rne and rz; E8M0 rz and ru; no MXINT8.
cuda_modes() {
  case $1 in
    e4m3|e5m2) echo rne ;;
    e3m2|e2m3|e2m1) echo rne rz ;;
    e8m0) echo rz ru ;;
  esac
}
for src in $sources; do
  for fmt in e4m3 e5m2 e3m2 e2m3 e2m1 e8m0; do
    runs cuda $src $fmt $(cuda_modes $fmt)
  done
done

# Block and dot sets, levels 1 and 2 (seed 1). Quantize f32 blocks of 32, the OCP scale rule.
for fmt in e4m3 e5m2 e3m2 e2m3 e2m1 int8; do
  for level in 1 2; do
    make "blocks/quantize-f32-$fmt-k32-floor-L$level.vec" gen quantize --from f32 --to $fmt --block 32 --scale floor \
      --round rne --sat finite --dialect ocp --level $level --seed 1
  done
  # Dequantize: every scale and every code (exhaustive at every level).
  make "blocks/dequantize-$fmt-f32.vec" gen dequantize --from $fmt --to f32 --round rne --sat finite --dialect ocp \
    --level 1 --seed 1
done
for pair in e4m3:e4m3 e5m2:e5m2 e4m3:e5m2 e3m2:e2m3 e2m1:e2m1 int8:int8; do
  a=${pair%:*} b=${pair#*:}
  for acc in exact fp32-sequential; do
    for level in 1 2; do
      make "dot/dot-$a-$b-k32-$acc-L$level.vec" gen dot --a $a --b $b --block 32 --blocks 1 --acc $acc --round rne \
        --sat finite --level $level --seed 1
    done
  done
done

# TransformerEngine's recipes (docs/RECIPES.md): one quantize per recipe and role of interest, on
# the library's deterministic test tensor (recipe_test_input, seed 1), both outputs of the one
# call; --layouts adds TE's compact scale tensors and the cuBLAS 128x4 layout (MXFP8, NVFP4).
make recipes/te-fp8-current-f32-16x64-input.txt recipe te-fp8-current --shape 16x64 --from f32 --role input --seed 1
make recipes/te-fp8-current-bf16-16x64-gradient.txt recipe te-fp8-current --shape 16x64 --from bf16 --role gradient \
  --seed 1
make recipes/te-fp8-block-f32-4x256-input.txt recipe te-fp8-block --shape 4x256 --from f32 --role input --layouts --seed 1
make recipes/te-fp8-block-f32-8x128-weight.txt recipe te-fp8-block --shape 8x128 --from f32 --role weight --layouts \
  --seed 1
make recipes/te-mxfp8-bf16-32x32-input.txt recipe te-mxfp8 --shape 32x32 --from bf16 --role input --layouts --seed 1
make recipes/te-nvfp4-bf16-32x32-input.txt recipe te-nvfp4 --shape 32x32 --from bf16 --role input --layouts --seed 1
make recipes/te-nvfp4-bf16-32x32-weight.txt recipe te-nvfp4 --shape 32x32 --from bf16 --role weight --layouts --seed 1

# The seed-003 MX-FP4 GEMM golden generator's files (gemm-golden --layout lut-argmin) for a few
# shapes: odd K-block counts (scale padding), odd row lengths (nibble padding), both trans flags,
# both FP4 tables.
make_dir gemm/lut-argmin-m2-n2-k32-t00 gemm-golden --layout lut-argmin --m 2 --n 2 --k 32 --trans-a 0 --trans-b 0 --seed 1
make_dir gemm/lut-argmin-m4-n3-k96-t10 gemm-golden --layout lut-argmin --m 4 --n 3 --k 96 --trans-a 1 --trans-b 0 --seed 1
make_dir gemm/lut-argmin-m5-n4-k64-t01-e1m2 gemm-golden --layout lut-argmin --m 5 --n 4 --k 64 --trans-a 0 --trans-b 1 \
  --a e1m2 --b e1m2 --seed 1
make_dir gemm/lut-argmin-m3-n5-k128-t11 gemm-golden --layout lut-argmin --m 3 --n 5 --k 128 --trans-a 1 --trans-b 1 \
  --a e1m2 --seed 2

{
  echo "# softmx canonical vectors (vectors/README.md): SHA-256, path, and the command that makes the"
  echo "# file (run in this folder). Regenerate everything with scripts/make-vectors.sh; the test"
  echo "# test_committed_vectors requires identical bytes."
  sort -t$'\t' -k2,2 "$manifest_tmp"
} > "$out/MANIFEST.tmp"
mv "$out/MANIFEST.tmp" "$out/MANIFEST"
[ -t 2 ] && printf '\n' >&2
echo "make-vectors: $count files in $out ($((SECONDS - start)) s)"
