#!/usr/bin/env bash
# Prints the conformance counts the tests wrote (one line per check) and their totals.
set -euo pipefail
dir=${1:?usage: summary.sh BUILD_DIR/conformance-summary}
shopt -s nullglob
files=("$dir"/*.txt)
if [ ${#files[@]} -eq 0 ]; then echo "no conformance counts were written"; exit 0; fi
echo "conformance summary (cases checked, mismatches):"
sort "${files[@]}" | sed 's/^/  /'
cat "${files[@]}" | awk -F': ' '{split($NF, a, " "); c += a[1]; m += a[3]} END {printf "  TOTAL: %.0f cases, %.0f mismatches, %d checks\n", c, m, NR}'
