#!/usr/bin/env bash
# Configures and builds softmx (Release) into build/ (or $SOFTMX_BUILD_DIR), using every core.
# SOFTMX_BUILD_TARGETS="t1 t2 ...": only those targets and what they need (scripts/demo.sh);
# otherwise everything (the library, the CLI, the Python module, every test and benchmark).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOFTMX_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" > "$build.configure.log" 2>&1 || {
  cat "$build.configure.log"; exit 1; }
grep "softmx:" "$build.configure.log" || true
if [ -n "${SOFTMX_BUILD_TARGETS:-}" ]; then
  # shellcheck disable=SC2086 # a list of target names
  cmake --build "$build" -j "$(nproc)" --target $SOFTMX_BUILD_TARGETS
else
  cmake --build "$build" -j "$(nproc)"
fi
