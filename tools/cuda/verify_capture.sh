#!/usr/bin/env bash
# tools/cuda/verify_capture.sh DIR SOFTMX MANIFEST_TOOL: the host half of tools/cuda/capture.sh,
# after the capture programs ran (no GPU needed; the conformance suite runs it on folders it
# makes). Writes DIR/MANIFEST (MANIFEST_TOOL DIR), then checks every DIR/*.vec:
#   - a file softmx can check (MANIFEST_TOOL --can-verify FILE: exit 0) is verified with
#     `SOFTMX verify` in the dialect or tensor-core model its header names; a disagreement
#     leaves FILE.verify.txt beside it;
#   - a file that names a tensor-core model this softmx does not know yet (the Blackwell models
#     of issue 17 may land after the capture), or carries block scales no model takes, is kept
#     and reported as waiting for its model, with the reason: not a failure;
#   - a file the tool cannot read is a failure.
# Prints a summary. Exit status 0 when every file verifies or waits, 1 when one disagrees or
# cannot be read, 2 when the MANIFEST cannot be written.
set -uo pipefail
[ $# -eq 3 ] || { echo "usage: verify_capture.sh DIR SOFTMX MANIFEST_TOOL" >&2; exit 2; }
out=$1 softmx=$2 manifest=$3

"$manifest" "$out" || { echo "verify_capture.sh: writing $out/MANIFEST failed" >&2; exit 2; }
rm -f "$out"/*.verify.txt
pass=0; fail=0; wait=0; failed=(); waiting=()
for t in "$out"/*.vec; do
  why=$("$manifest" --can-verify "$t" 2>&1)
  rc=$?
  if [ $rc -eq 3 ]; then
    wait=$((wait + 1)); waiting+=("$(basename "$t"): $why"); continue
  elif [ $rc -ne 0 ]; then
    fail=$((fail + 1)); failed+=("$(basename "$t")"); echo "$why" > "$t.verify.txt"; continue
  fi
  if "$softmx" verify --max-errors 5 "$t" > "$t.verify.txt" 2>&1; then
    pass=$((pass + 1)); rm -f "$t.verify.txt"
  else
    fail=$((fail + 1)); failed+=("$(basename "$t")")
  fi
done
echo "== summary: $(ls "$out"/*.vec | wc -l) files in $out; $pass verify, $fail disagree, $wait wait for a model softmx does not have yet"
for f in "${failed[@]}"; do
  echo "   DISAGREES: $f (details: $out/$f.verify.txt)"
  tail -n 1 "$out/$f.verify.txt" | sed 's/^/     /'
done
if [ $wait -ne 0 ]; then
  echo "   WAITING (kept in $out and in its MANIFEST; each verifies once its model lands):"
  for w in "${waiting[@]}"; do echo "     $w"; done
fi
[ $fail -eq 0 ]
