#!/usr/bin/env bash
# Pins scripts/test-long.sh's budget (SOFTMX_LONG_DEADLINE), which .ci/run uses to keep CI within
# its hour: in a throw-away ctest project whose tests carry the `long` label, a test the stop
# time interrupts or never starts is listed as not run and does not fail the script, a test that
# fails on its own does, a budget already spent runs nothing, and a malformed deadline is refused.
# Usage: test_long_budget.sh SOURCE_DIR WORK_DIR. About 20 s, mostly sleeping.
set -uo pipefail
src=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
fail=0
check() { # check NAME CONDITION...: a failed condition fails the test, naming the case
  local name=$1; shift
  if ! "$@"; then echo "FAIL: $name: $*" >&2; fail=1; fi
}
project() { # project DIR FAILING(0/1): quick, slow and (optionally) failing tests, all `long`
  mkdir -p "$1"
  {
    echo 'cmake_minimum_required(VERSION 3.16)'
    echo 'project(budget NONE)'
    echo 'enable_testing()'
    # The failing test comes first, so that it runs before the slow ones fill every slot.
    [ "$2" = 1 ] && echo 'add_test(NAME broken COMMAND false)' && echo 'set_tests_properties(broken PROPERTIES LABELS long)'
    echo 'add_test(NAME quick COMMAND sleep 1)'
    echo 'add_test(NAME slow_one COMMAND sleep 120)'
    echo 'add_test(NAME slow_two COMMAND sleep 120)'
    echo 'add_test(NAME unlabelled COMMAND false)'
    echo 'set_tests_properties(quick slow_one slow_two PROPERTIES LABELS long)'
  } > "$1/CMakeLists.txt"
  cmake -S "$1" -B "$1/build" > /dev/null || { echo "FAIL: cmake could not configure $1" >&2; exit 1; }
}
run() { # run BUILD DEADLINE [MIN_S]: test-long.sh's output in $out, its status in $rc
  out=$(SOFTMX_BUILD_DIR=$1 SOFTMX_LONG_DEADLINE=$2 SOFTMX_LONG_MIN_S=${3:-1} "$src/scripts/test-long.sh" 2>&1)
  rc=$?
  printf '%s\n' "$out" | sed 's/^/    /'
}
has() { printf '%s\n' "$out" | grep -q -- "$1"; }

project "$work/pass" 0
echo "== the stop time ends two slow tests: listed, status 0"
run "$work/pass/build" $(( $(date +%s) + 6 ))
check "stopped run exits 0" [ "$rc" -eq 0 ]
check "stopped run names slow_one" has '^  slow_one$'
check "stopped run names slow_two" has '^  slow_two$'
check "stopped run counts the quick test" has 'the budget ended the run: 1 passed, 0 failed, 2 not run or stopped'
check "the unlabelled test is not run" eval '! has unlabelled'

project "$work/fail" 1
echo "== a test that fails on its own fails the budgeted run"
run "$work/fail/build" $(( $(date +%s) + 6 ))
check "failing run exits 1" [ "$rc" -eq 1 ]
check "failing run counts the failure" has '1 failed'
check "failing run says FAILED" has 'the long label FAILED'

echo "== a spent budget runs nothing and lists the label"
run "$work/pass/build" $(( $(date +%s) + 30 )) 120
check "spent budget exits 0" [ "$rc" -eq 0 ]
check "spent budget says not run" has 'not run: .* s left of the budget'
check "spent budget lists quick" has '^  quick$'
check "spent budget starts nothing" eval '! has "Start "'

echo "== a malformed deadline is refused"
run "$work/pass/build" 'soon'
check "malformed deadline exits 2" [ "$rc" -eq 2 ]
check "malformed deadline is named" has "SOFTMX_LONG_DEADLINE must be seconds since the epoch, not 'soon'"

rm -rf "$work"
[ $fail -eq 0 ] && echo "test_long_budget: every case passed"
exit $fail
