#!/usr/bin/env bash
# Builds a second tree with AddressSanitizer and UndefinedBehaviorSanitizer (build-asan/) and
# runs the suite there, except the `long` label (which holds the 2^32 sweeps), which would
# take hours under the sanitizers, and except the six exhaustive arithmetic sweeps below: they
# spend minutes in the same code that smaller tests in this run already drive under the sanitizers
# (the release run of scripts/test.sh runs them whole). Any sanitizer report fails the test it
# occurs in.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
# clang at -O1 with line tables only: the vector-kernel translation units compile about 3.6 times
# faster than with gcc -O2 -g (324 s against 1174 s for emulator/simd/isa_avx2.cpp, measured on a
# 2-core machine), and the reports still name file and line.
# The AVX-512 units are built only where this machine can run them (they would be compiled for
# nothing, 2 x 5 minutes); the AVX2 and scalar kernels are tested either way.
avx512=ON
grep -qw avx512bw /proc/cpuinfo 2>/dev/null || avx512=OFF
SOFTMX_BUILD_DIR=${SOFTMX_ASAN_BUILD_DIR:-$root/build-asan} CC=clang CXX=clang++ \
  "$root/scripts/build.sh" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSOFTMX_SANITIZE=ON -DSOFTMX_BUILD_BENCH=OFF \
  -DSOFTMX_ISA_AVX512=$avx512 \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG"
cd "${SOFTMX_ASAN_BUILD_DIR:-$root/build-asan}"
# The exhaustive sweeps left out, each with the smaller test that drives the same code here:
#   CommittedVectors.RegenerateToIdenticalBytes         gen: Gen.*, CommittedVectors.* (headers, SHA-256)
#   Dot.EveryCodePairOfEveryFormatPairThroughOneProduct Dot.RandomDotGeneral
#   Dot.EveryScalePairThroughTheScaleProduct            Dot.RandomDotGeneral
#   Blocks.QuantizeMatchesTheReference                  Blocks.*, BlockProperties.*
#   Gemm.EveryCodePairWithCompanions                    Gemm.DotPairs, Gemm.Random*, Gemm.EveryScalePair*
#   CApiRuntimeConvert.EverySpecFromEveryF16AndBf16Input CApiRuntimeConvert.EveryCodeOfEverySpecIntoEveryFormat
# The last two took 190 s and 53 s of this run's 1228 s of test CPU (build-asan's
# CTestCostData.txt, 2026-11-29): the run's longest, so the tail of its two-core schedule.
heavy='^(CommittedVectors\.RegenerateToIdenticalBytes|Dot\.EveryCodePairOfEveryFormatPairThroughOneProduct|Dot\.EveryScalePairThroughTheScaleProduct|Blocks\.QuantizeMatchesTheReference|Gemm\.EveryCodePairWithCompanions|CApiRuntimeConvert\.EverySpecFromEveryF16AndBf16Input)$'
ctest -LE 'long|sweep' -E "$heavy" -j "$(nproc)" --output-on-failure --timeout 3000
