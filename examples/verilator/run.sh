#!/usr/bin/env bash
# examples/verilator/run.sh TEST ARGS...: one Verilator certification test (tests.cmake).
#
#   dpi SPACE FMT [FIRST COUNT]      the good unit through the DPI scoreboard: must pass
#   dpi-bugged SPACE FMT INPUT       the bugged unit: must fail, naming INPUT (hex) first
#   dpi-wrong SPACE FMT UNIT INPUT   the good unit set to format UNIT, checked as FMT (a negative
#                                    control): must fail, naming INPUT first
#   dpi-badspec FMT TEXT             the bench given a bad format spec: must stop, printing
#                                    softmx's message (through softmx_dpi_error) with TEXT
#   vectors FMT                      gen -> $readmemh -> results -> softmx verify: must pass
#   vectors-bugged FMT INPUT         the bugged unit: verify must fail naming INPUT first;
#                                    then softmx identify says what the unit seems to implement
#
# Environment: SOFTMX (the softmx binary), SOFTMX_TB_GOOD and SOFTMX_TB_BUGGED (the two builds
# of the bench), SOFTMX_TB_WORK (a folder for files). Exit 0 when the test's expectation holds.
set -euo pipefail
# The benches find libsoftmx.so through their rpath, as a user runs them: never the environment.
unset LD_LIBRARY_PATH
test=$1
shift
work=${SOFTMX_TB_WORK:-$(mktemp -d)}
mkdir -p "$work"
fail() { echo "FAILED: $*" >&2; exit 1; }
ulimit -c 0  # a $fatal aborts the simulator: no core files

# Runs a bench, its output to stdout and to LOG; sets $rc to its exit status.
simulate() {
  local log=$1
  shift
  set +e
  "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
}

case $test in
  dpi)
    space=$1 fmt=$2
    args=(+mode=sweep +space="$space" +fmt="$fmt")
    if [ $# -ge 4 ]; then args+=(+first="$3" +count="$4"); fi
    log=$work/dpi-$space-$fmt${3:+-$3}.log
    start=$(date +%s.%N)
    simulate "$log" "$SOFTMX_TB_GOOD" "${args[@]}"
    end=$(date +%s.%N)
    echo "run.sh: $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s"
    [ "$rc" -eq 0 ] || fail "the good unit failed the DPI scoreboard (exit $rc)"
    grep -q " 0 mismatches" "$log" || fail "no '0 mismatches' summary"
    ;;
  dpi-bugged)
    space=$1 fmt=$2 want=$3
    log=$work/dpi-bugged-$space-$fmt.log
    simulate "$log" "$SOFTMX_TB_BUGGED" +mode=sweep +space="$space" +fmt="$fmt" +max_errors=3
    [ "$rc" -ne 0 ] || fail "the bugged unit passed the DPI scoreboard"
    first=$(grep -m1 '^FIRST MISMATCH:' "$log" || true)
    [ -n "$first" ] || fail "the scoreboard named no first mismatch"
    [[ $first == "FIRST MISMATCH: $space $want "*" -> $fmt" ]] ||
      fail "the first mismatch is '$first', expected $space $want"
    grep -m1 "^MISMATCH $space $want " "$log" | grep -q 'under: rna/' ||
      fail "the scoreboard did not say that the unit's result is rna's at $space $want"
    grep -m1 '^SUMMARY: ' "$log" | grep -q "result is softmx's under: rna/finite rna/none" ||
      fail "the scoreboard's summary does not name rna"
    echo "run.sh: the bugged unit failed as expected: $first"
    ;;
  dpi-wrong)
    space=$1 fmt=$2 unit=$3 want=$4
    log=$work/dpi-wrong-$space-$fmt-$unit.log
    simulate "$log" "$SOFTMX_TB_GOOD" +mode=sweep +space="$space" +fmt="$fmt" +unit="$unit" +max_errors=3
    [ "$rc" -ne 0 ] || fail "the unit converting into $unit passed the scoreboard of $fmt"
    first=$(grep -m1 '^FIRST MISMATCH:' "$log" || true)
    [[ $first == "FIRST MISMATCH: $space $want "*" -> $fmt" ]] ||
      fail "the first mismatch is '$first', expected $space $want"
    echo "run.sh: the $unit unit failed the $fmt scoreboard as expected: $first"
    ;;
  dpi-badspec)
    fmt=$1 text=$2
    log=$work/dpi-badspec.log
    simulate "$log" "$SOFTMX_TB_GOOD" +mode=sweep +space=f16 +fmt="$fmt"
    [ "$rc" -ne 0 ] || fail "the bench accepted +fmt=$fmt"
    grep -F -q "$text" "$log" || fail "the bench's output does not say '$text'"
    echo "run.sh: +fmt=$fmt refused with softmx's message: $(grep -F -m1 "$text" "$log")"
    ;;
  vectors|vectors-bugged)
    fmt=$1
    tb=$SOFTMX_TB_GOOD
    [ "$test" = vectors ] || tb=$SOFTMX_TB_BUGGED
    base=$work/$test-$fmt
    "$SOFTMX" gen convert --from f32 --to "$fmt" --round rne --sat finite --dialect ocp --level 2 --seed 1 \
      --inputs-only --export readmemh -o "$base.inputs.memh"
    simulate "$base.sim.log" "$tb" +mode=vectors +fmt="$fmt" +in="$base.inputs.memh" +out="$base.results.vec"
    [ "$rc" -eq 0 ] || fail "the bench failed (exit $rc)"
    vrc=0
    "$SOFTMX" verify --max-errors 3 "$base.results.vec" > "$base.verify.log" 2>&1 || vrc=$?
    cat "$base.verify.log"
    if [ "$test" = vectors ]; then
      [ "$vrc" -eq 0 ] || fail "softmx verify rejected the good unit's results (exit $vrc)"
    else
      want=$2
      [ "$vrc" -eq 1 ] || fail "softmx verify exited $vrc on the bugged unit's results, expected 1"
      first=$(grep -m1 ' => ' "$base.verify.log" || true)
      [[ $first == *": $want => "* ]] || fail "verify's first disagreement is '$first', expected input $want"
      grep -m1 'comes from:' "$base.verify.log" | grep -q 'comes from: rna' ||
        fail "verify did not say that rna gives the unit's result at $want"
      irc=0
      "$SOFTMX" identify --max-errors 3 "$base.results.vec" > "$base.identify.log" 2>&1 || irc=$?
      cat "$base.identify.log"
      [ "$irc" -eq 1 ] || fail "softmx identify exited $irc, expected 1 (no setting agrees everywhere)"
      # The unit is rne, satfinite, ocp everywhere but on the ties of one binade: identify must
      # rank that setting first and count the disagreements.
      grep -q '^best: rne finite, dialect ocp: disagrees on [1-9][0-9]* of [0-9]* cases$' "$base.identify.log" ||
        fail "softmx identify did not rank rne finite ocp best: '$(grep -m1 '^best: ' "$base.identify.log" || true)'"
      echo "run.sh: verify named $want first; identify: $(grep -m1 '^best: ' "$base.identify.log")"
    fi
    ;;
  *) fail "unknown test $test" ;;
esac
