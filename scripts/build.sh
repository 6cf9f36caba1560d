#!/usr/bin/env bash
# Configures and builds softmx (Release) into build/ (or $SOFTMX_BUILD_DIR), using every core.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SOFTMX_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" > "$build.configure.log" 2>&1 || {
  cat "$build.configure.log"; exit 1; }
grep "softmx:" "$build.configure.log" || true
cmake --build "$build" -j "$(nproc)"
