#!/usr/bin/env bash
# examples/certify.sh DEVICE [FORMAT] [WORKDIR]: the certification workflow end to end.
#
#   1. softmx gen writes the inputs: every rounding boundary of FORMAT (default e5m2) for f32
#      sources plus a random sample (level 2), and every f16 input (exhaustive);
#   2. DEVICE (a program: inputs on stdin, results on stdout) computes its results;
#   3. softmx verify checks every result and explains each disagreement;
#   4. on a failure, softmx identify names the settings the device really implements.
#
# Exit status: 0 when the device agrees everywhere, 1 when it does not, 2 on errors.
# SOFTMX names the softmx binary (default: build/tools/softmx/softmx).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
softmx=${SOFTMX:-$root/build/tools/softmx/softmx}
[ $# -ge 1 ] || { echo "usage: $0 DEVICE [FORMAT] [WORKDIR]" >&2; exit 2; }
device=$1
fmt=${2:-e5m2}
work=${3:-$(mktemp -d)}
mkdir -p "$work"
status=0
for src in f32 f16; do
  echo "== $src -> $fmt: gen, device, verify"
  "$softmx" gen convert --from $src --to $fmt --round rne --sat finite --dialect ocp --level 2 --seed 1 \
    --inputs-only -o "$work/$src-$fmt.inputs.vec"
  "$device" < "$work/$src-$fmt.inputs.vec" > "$work/$src-$fmt.results.vec"
  if "$softmx" verify --max-errors 3 "$work/$src-$fmt.results.vec"; then
    continue
  else
    rc=$?
    [ $rc -eq 1 ] || exit $rc
  fi
  status=1
  echo "== $src -> $fmt: identify"
  "$softmx" identify --max-errors 3 "$work/$src-$fmt.results.vec" || [ $? -eq 1 ]
done
exit $status
