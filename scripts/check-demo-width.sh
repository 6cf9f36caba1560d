#!/usr/bin/env bash
# scripts/check-demo-width.sh [BUILD_DIR]: ctest test_demo_width. Runs `scripts/demo.sh
# --tour-only` on a built tree (the demonstration and the certificate: everything the demo prints
# but its build and its conformance check, whose lines it cuts to 100 columns itself) and fails
# naming every line wider than 100 columns.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-${SOFTMX_BUILD_DIR:-$root/build}}" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
SOFTMX_BUILD_DIR=$build "$root/scripts/demo.sh" --tour-only > "$out" 2>&1 || status=$?
if [ $status -ne 0 ]; then
  cat "$out"
  echo "check-demo-width: scripts/demo.sh --tour-only failed (exit status $status)" >&2
  exit 1
fi
wide=$(awk 'length($0) > 100 { printf "  line %d, %d columns: %s\n", NR, length($0), $0 }' "$out")
if [ -n "$wide" ]; then
  echo "check-demo-width: lines of scripts/demo.sh wider than 100 columns:" >&2
  echo "$wide" >&2
  exit 1
fi
echo "check-demo-width: all $(wc -l < "$out") lines of scripts/demo.sh --tour-only fit 100 columns"
