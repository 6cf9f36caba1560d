#!/usr/bin/env bash
# Builds a second tree with AddressSanitizer and UndefinedBehaviorSanitizer (build-asan/) and
# runs the suite there, except the 2^32 sweeps (label `sweep`) and the `long` label, which would
# take hours under the sanitizers. Any sanitizer report fails the test it occurs in.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
SOFTMX_BUILD_DIR=${SOFTMX_ASAN_BUILD_DIR:-$root/build-asan} \
  "$root/scripts/build.sh" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSOFTMX_SANITIZE=ON -DSOFTMX_BUILD_BENCH=OFF
cd "${SOFTMX_ASAN_BUILD_DIR:-$root/build-asan}"
ctest -LE 'long|sweep' -j "$(nproc)" --output-on-failure --timeout 3000
