#!/usr/bin/env bash
# Checks the registered ctest tests of a build tree (default build/, or $SOFTMX_BUILD_DIR, or the
# first argument) for the two defects that made `ctest -LE long` silently leave out 34 tests
# (issue 24):
#   1. two tests with one name: ctest keeps one test, whose labels are merged ("long quick"),
#      so excluding `long` drops the quick one too;
#   2. a `long` label on a test of a binary that is not a long one: for the tests GoogleTest
#      discovered (each runs one binary with --gtest_filter), every test of one binary carries
#      `long`, or none does.
# Tests registered with add_test (one name each, written out in CMake, possibly running a
# binary with a --gtest_filter pattern) are covered by rule 1.
# Prints the counts; exit status 1 naming every offender, 2 when the tree cannot be read.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${SOFTMX_BUILD_DIR:-$root/build}}
[ -f "$build/CTestTestfile.cmake" ] || { echo "check-tests: $build is not a configured build tree" >&2; exit 2; }
json=$(cd "$build" && ctest --show-only=json-v1) || { echo "check-tests: ctest --show-only=json-v1 failed in $build" >&2; exit 2; }
printf '%s' "$json" | /usr/bin/python3 -c '
import collections, json, os, sys
tests = json.load(sys.stdin)["tests"]
def labels(t):
    for p in t.get("properties", []):
        if p["name"] == "LABELS":
            return p["value"]
    return []
bad = []
names = collections.Counter(t["name"] for t in tests)
for n, k in sorted(names.items()):
    if k > 1:
        bad.append(f"{k} tests are named {n!r} (ctest merges them: their labels become one list)")
by_binary = collections.defaultdict(list)
for t in tests:
    cmd = t.get("command", [])
    # gtest_discover_tests writes one exact --gtest_filter=Suite.Test per test; an add_test that
    # runs a binary with a pattern (test_committed_vectors_all) is one named test of its own.
    if any(a.startswith("--gtest_filter=") and not any(c in a for c in "*?:") for a in cmd[1:]):
        by_binary[os.path.basename(cmd[0])].append(t)
for b, ts in sorted(by_binary.items()):
    long_ = [t["name"] for t in ts if "long" in labels(t)]
    if long_ and len(long_) != len(ts):
        bad.append(f"{b}: {len(long_)} of its {len(ts)} tests carry the label long (first: {long_[0]!r}); "
                   "a binary is long whole or not at all")
nolabel = [t["name"] for t in tests if not labels(t)]
for n in nolabel:
    bad.append(f"{n!r} has no label")
n_long = sum("long" in labels(t) for t in tests)
print(f"check-tests: {len(tests)} tests registered, {len(names)} distinct names, {n_long} labelled long, "
      f"{len(by_binary)} GoogleTest binaries")
for b in bad:
    print("check-tests: " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
'
