#!/bin/sh
# Makes the IEEE P3109 vector sets (issue 28) in vectors/p3109/ (or DIR) and their MANIFEST:
# SHA-256, path and the command that makes the file, run in that folder, as vectors/MANIFEST.
# binary8p3se, binary8p4se and binary8p5se under the p3109 dialect: every f16 and bf16 input
# as run tables under the six deterministic rounding directions x SatFinite, SatPropagate,
# SatNone; f32 vector files (level 1, seed 1) under NearestTiesToEven x the three saturations and
# StochasticA (rs, 8 random bits). conformance/test_p3109_tables.cpp (P3109Vectors.*) checks them.
set -eu
SOFTMX=${SOFTMX:-softmx}
DIR=${1:-$(dirname "$0")/../vectors/p3109}
mkdir -p "$DIR"
cd "$DIR"
: > MANIFEST.tmp
emit() {  # path, command (without the softmx binary)
  mkdir -p "$(dirname "$1")"
  # shellcheck disable=SC2086
  "$SOFTMX" $2 -o "$1" >/dev/null
  printf '%s\t%s\tsoftmx %s -o %s\n' "$(sha256sum "$1" | cut -d' ' -f1)" "$1" "$2" "$1" >> MANIFEST.tmp
}
for f in binary8p3se binary8p4se binary8p5se; do
  for src in f16 bf16; do
    for r in rne rna rz ru rd ro; do
      for s in finite propagate none; do
        emit "$f/runs/$src-$r-$s.runs" "sweep --from $src --to $f --round $r --sat $s --dialect p3109"
      done
    done
  done
  for s in finite propagate none; do
    emit "$f/convert-f32-rne-$s-L1.vec" "gen convert --from f32 --to $f --round rne --sat $s --dialect p3109 --level 1 --seed 1"
  done
  emit "$f/convert-f32-rs8-none-L1.vec" "gen convert --from f32 --to $f --round rs --rbits 8 --sat none --dialect p3109 --level 1 --seed 1"
done
{
  echo "# softmx IEEE P3109 vectors (scripts/make-p3109-vectors.sh, vectors/p3109/README.md): SHA-256, path, and"
  echo "# the command that makes the file (run in this folder); P3109Vectors.* requires identical bytes."
  sort -k2 MANIFEST.tmp
} > MANIFEST
rm MANIFEST.tmp
