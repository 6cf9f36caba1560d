#!/usr/bin/env bash
# The test of scripts/slurm/sweep-array.sh without Slurm (ctest: test_slurm_sweep_array, registered
# by scripts/slurm/tests.cmake): every merged table is compared byte for byte (cmp) with the single
# run it stands for.
#   1. --local (and SLURM_DRY_RUN=1) runs of softmx sweep: f16 -> e4m3 in 4 shards, bf16 -> e5m2
#      (rz, no saturation) in 3, e8m11 -> e2m1 (a 20-bit source, 2^20 inputs) in 5, 2 at a time, each equal
#      to one `softmx sweep`;
#   2. the shard ranges and headers the script computes (--shard-header) are softmx sweep
#      --shard I/N's, f32 ones up to I = 2^32 - 2 included;
#   3. a per-shard command (a stand-in device: softmx convert under ml_dtypes writing one line per
#      input, as a simulator's log would) in 4 shards equals the same command run once (-n 1);
#   4. a failing shard: exit 1 naming it, nothing merged, the others' tables kept; --resume then
#      computes only that shard; a table that is not its shard's fails it;
#   5. submission with a stand-in sbatch on PATH (records its arguments, runs each job at once):
#      the array job, the merge job after it with --dependency=afterok:ID, and no merge when a
#      task fails;
#   6. bad usage exits 2.
# usage: test-sweep-array.sh SOFTMX WORKDIR
set -euo pipefail

SOFTMX=$(realpath "${1:?usage: test-sweep-array.sh SOFTMX WORKDIR}")
WORK=${2:?usage: test-sweep-array.sh SOFTMX WORKDIR}
export SOFTMX
SCRIPT="$(cd "$(dirname "$0")" && pwd)/sweep-array.sh"
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"

fail() { echo "FAIL: $*" >&2; exit 1; }
same() {  # A B WHAT: A and B byte for byte
  cmp "$1" "$2" || fail "$3: $1 and $2 differ"
  echo "ok: $3: $(wc -c < "$1") bytes, byte-identical"
}

# 1. softmx sweep in shards, merged, against one sweep.
"$SCRIPT" --local -j 2 -n 4 -d f16 -o f16.runs -- --from f16 --to e4m3 > f16.log
"$SOFTMX" sweep --from f16 --to e4m3 -o f16.single
same f16.runs f16.single "f16 -> e4m3, 4 shards (--local -j 2)"
[ "$(ls f16)" = "$(printf 'logs\nshard-0-of-4.runs\nshard-1-of-4.runs\nshard-2-of-4.runs\nshard-3-of-4.runs')" ] ||
  fail "the shard tables in f16/: $(ls f16)"
"$SOFTMX" sweep --from f16 --to e4m3 --shard 2/4 -o f16.shard2
same f16/shard-2-of-4.runs f16.shard2 "shard 2 of 4 is softmx sweep --shard 2/4's table"
grep -q "would submit" f16.log && grep -q -- "--array=0-3 " f16.log && grep -q -- "--dependency=afterok:ARRAYJOB" f16.log ||
  fail "the local run does not show the sbatch commands: $(cat f16.log)"

SLURM_DRY_RUN=1 "$SCRIPT" -n 3 -d bf16 -o bf16.runs -- --from bf16 --to e5m2 --round rz --sat none > /dev/null
"$SOFTMX" sweep --from bf16 --to e5m2 --round rz --sat none -o bf16.single
same bf16.runs bf16.single "bf16 -> e5m2 rz satnone, 3 shards (SLURM_DRY_RUN=1)"

"$SCRIPT" --local -j 2 -n 5 -d e8m11 -o e8m11.runs -- --from e8m11 --to e2m1 --threads 1 > /dev/null
"$SOFTMX" sweep --from e8m11 --to e2m1 -o e8m11.single
same e8m11.runs e8m11.single "e8m11 -> e2m1 (2^20 inputs), 5 shards"

# 2. The ranges and headers of the shards are softmx's.
for c in "f32 4294967295 4294967294" "f32 4294967296 2147483649" "f32 4000000001 3000000000" "f32 7 6" \
         "e8m11 1000 999" "e8m11 3 1" "f16 5 3" "e2m1 16 15" "e2m1 3 1"; do
  set -- $c
  "$SCRIPT" --shard-header "$3" -n "$2" -d unused -o unused -- --from "$1" --to e2m1 > h.script
  "$SOFTMX" sweep --from "$1" --to e2m1 --shard "$3/$2" | sed '/^#/,$d' > h.softmx
  cmp -s h.script h.softmx || fail "the header of shard $3 of $2 of $1: $(diff h.script h.softmx)"
done
echo "ok: shard ranges and headers (f32 up to shard 4294967294 of 4294967295, e8m11, f16, e2m1) are softmx sweep --shard's"

# 3. A per-shard command: the stand-in device, one line per input after the shard's header.
device='{ cat {HEADER}; printf "%04X\n" $(seq $((16#{FIRST})) $((16#{LAST}))) |
  "$SOFTMX" convert --from f16 --to e4m3 --dialect ml_dtypes --sat finite; } > {OUT}'
"$SCRIPT" --local -j 2 -n 4 -d dev -o dev.runs -c "$device" -- --from f16 --to e4m3 > /dev/null
"$SCRIPT" --local -n 1 -d dev1 -o dev.single -c "$device" -- --from f16 --to e4m3 > /dev/null
same dev.runs dev.single "a per-shard command (stand-in device), 4 shards against one run"
rc=0; "$SOFTMX" diff dev.runs f16.single > dev.diff || rc=$?
[ "$rc" = 1 ] || fail "the device's table should differ from softmx's (diff exit $rc)"
echo "ok: the device's results are its own: $(tail -n 1 dev.diff)"
env_device='[ "$SOFTMX_SHARD_INDEX/$SOFTMX_SHARD_COUNT" = "{I}/{N}" ] && [ "$SOFTMX_SHARD_OUT" = {OUT} ] &&
  [ "$SOFTMX_SHARD_INPUTS" = {COUNT} ] && [ {COUNT} = $((16#{LAST} - 16#{FIRST} + 1)) ] && '"$device"
"$SCRIPT" --local -n 3 -d env -o env.runs -c "$env_device" -- --from f16 --to e4m3 > /dev/null
same env.runs dev.single "the SOFTMX_SHARD_* variables agree with the placeholders"

# 4. A failing shard is named, nothing is merged; --resume computes only what is missing.
crash='[ {I} != 2 ] || { echo "simulator crashed at input {FIRST}" >&2; exit 3; }; '"$device"
rc=0; "$SCRIPT" --local -j 2 -n 4 -d crash -o crash.runs -c "$crash" -- --from f16 --to e4m3 > crash.log 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "a failing shard: exit $rc, expected 1"
grep -q "1 of 4 shards failed, nothing merged" crash.log &&
  grep -q "^  shard 2 of 4 (inputs 8000..BFFF): the command exited with status 3 (log: " crash.log ||
  fail "the failing shard is not named: $(cat crash.log)"
[ ! -e crash.runs ] || fail "a partial result was merged"
[ "$(ls crash)" = "$(printf 'logs\nshard-0-of-4.runs\nshard-1-of-4.runs\nshard-3-of-4.runs')" ] ||
  fail "the tables kept after a failure: $(ls crash)"
grep -q "simulator crashed at input 8000" crash/logs/shard-2.out || fail "the log of shard 2 lacks the command's message"
only2='[ {I} = 2 ] || { echo "shard {I} computed again" >&2; exit 1; }; '"$device"
"$SCRIPT" --local -j 2 -n 4 -d crash -o crash.runs -c "$only2" --resume -- --from f16 --to e4m3 > resume.log
same crash.runs dev.single "--resume after a failure computes only the failed shard"
grep -q "shard 0 of 4: .* is complete, kept (--resume)" resume.log || fail "resume: $(cat resume.log)"
whole='"$SOFTMX" sweep --from f16 --to e4m3 -o {OUT}'  # the whole table, not the shard's range
rc=0; "$SCRIPT" --local -n 2 -d whole -o whole.runs -c "$whole" -- --from f16 --to e4m3 > whole.log 2>&1 || rc=$?
[ "$rc" = 1 ] && [ ! -e whole.runs ] || fail "a table of the wrong range was accepted (exit $rc)"
grep -q "not this shard's" whole/logs/shard-1.out || fail "the wrong range is not named: $(cat whole/logs/shard-1.out)"
echo "ok: a failing shard is named, nothing merged; --resume; a wrong table fails its shard"

# 5. Submission, with a stand-in sbatch that runs each job at once and records its arguments.
mkdir -p bin stub
cat > bin/sbatch <<'EOF'
#!/usr/bin/env bash
# A stand-in for Slurm's sbatch: records its arguments, runs the job (each array task in turn) at
# once, and prints a job id; a job whose afterok dependency failed never runs.
set -euo pipefail
echo "sbatch $*" >> "$STUB_DIR/calls"
array="" dep="" output=""
while [ $# -gt 0 ]; do
  case "$1" in
    --array=*) array=${1#--array=} ;;
    --dependency=*) dep=${1#--dependency=} ;;
    --output=*) output=${1#--output=} ;;
    --parsable|--job-name=*|--kill-on-invalid-dep=*|--partition=*) ;;
    -*) echo "sbatch (stub): unexpected option $1" >&2; exit 1 ;;
    *) break ;;
  esac
  shift
done
id=$(cat "$STUB_DIR/next" 2>/dev/null || echo 1000)
echo $((id + 1)) > "$STUB_DIR/next"
if [ -n "$dep" ] && [ "$(cat "$STUB_DIR/${dep#afterok:}.rc")" != 0 ]; then
  echo never > "$STUB_DIR/$id.rc"; echo "$id"; exit 0
fi
rc=0
if [ -n "$array" ]; then
  range=${array%%\%*}
  for ((i = ${range%-*}; i <= ${range#*-}; i++)); do
    SLURM_ARRAY_JOB_ID=$id SLURM_ARRAY_TASK_ID=$i bash "$@" > "${output//%a/$i}" 2>&1 || rc=1
  done
else
  bash "$@" > "$output" 2>&1 || rc=1
fi
echo "$rc" > "$STUB_DIR/$id.rc"
echo "$id"
EOF
chmod +x bin/sbatch
export STUB_DIR="$PWD/stub"
PATH="$PWD/bin:$PATH" "$SCRIPT" -n 4 -d sub -o sub.runs --sbatch --partition=test --throttle 2 \
  -- --from f16 --to e4m3 > sub.log
same sub.runs f16.single "submitted through (stand-in) sbatch: array job, then merge job"
grep -q "^sbatch --parsable --job-name=softmx-sweep --array=0-3%2 --output=$PWD/sub/logs/shard-%a.out --partition=test .*sweep-array.sh --task -n 4 " stub/calls &&
  grep -q "^sbatch --parsable --job-name=softmx-merge --dependency=afterok:1000 --kill-on-invalid-dep=yes .*--partition=test .*sweep-array.sh --merge-step -n 4 " stub/calls &&
  grep -q "array job 1000" sub.log && grep -q "merge job 1001" sub.log || fail "the sbatch calls: $(cat stub/calls sub.log)"
PATH="$PWD/bin:$PATH" "$SCRIPT" -n 4 -d subcrash -o subcrash.runs -c "$crash" -- --from f16 --to e4m3 > /dev/null
[ "$(cat stub/1003.rc)" = never ] && [ ! -e subcrash.runs ] || fail "the merge job ran after a failed array task"
grep -q "simulator crashed" subcrash/logs/shard-2.out || fail "the failed task's log"
echo "ok: submission: --array=0-3%2, --dependency=afterok:ID, no merge after a failed task"

# 6. Bad usage.
for bad in "-d x -o y -- --from f16 --to e4m3" "-n 2 -d x -o y -- --from f16 --to e4m3 --shard 1/2" \
           "-n 2 -d x -o y -- --from nosuch --to e4m3" "-n 17 -d x -o y -- --from e2m1 --to e4m3" \
           "-n 2 -o y -- --from f16 --to e4m3" "-n 2 -d x -o y"; do
  rc=0; "$SCRIPT" --local $bad > bad.log 2>&1 || rc=$?
  [ "$rc" = 2 ] || fail "sweep-array.sh $bad: exit $rc, expected 2: $(cat bad.log)"
done
grep -q "softmx\|error" bad.log
echo "ok: bad usage exits 2"
echo "PASS: sweep-array.sh"
