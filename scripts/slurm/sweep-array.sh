#!/usr/bin/env bash
# scripts/slurm/sweep-array.sh: a run table (vectors/README.md 5) swept as a Slurm job array, one
# array task per shard, then merged by a dependent job: `softmx sweep --shard I/N` (or your own
# per-shard command, e.g. an RTL simulation) on the cluster's nodes, `softmx merge` at the end.
# docs/SHARDING.md has the whole story; docs/guides/certify-rtl.md "Sharding on a cluster" the short one.
#
# usage:
#   sweep-array.sh -n N -d DIR -o OUT [options] -- SWEEP-OPTIONS...
#
#   SWEEP-OPTIONS   softmx sweep's: --from SRC --to DST [--round M] [--sat S] [--tininess T]
#                   [--dialect D] [--threads T] (not --shard or -o: this script sets them)
#   -n, --shards N  the number of shards, 1 <= N <= 2^w for a w-bit source (and at most Slurm's
#                   MaxArraySize, 1001 by default)
#   -d, --dir DIR   the shard tables, DIR/shard-I-of-N.runs, and the logs, DIR/logs/; on a
#                   file system every node sees
#   -o, --out OUT   the merged table, written once every shard has succeeded
#   -c, --command TEMPLATE
#                   the per-shard command instead of softmx sweep, run by bash in the task, with
#                   these replaced (and also exported as SOFTMX_SHARD_* variables):
#                     {I} {N}          the shard, I of N                 (SOFTMX_SHARD_INDEX, _COUNT)
#                     {FIRST} {LAST}   its inputs, hex, the source's digits (SOFTMX_SHARD_FIRST, _LAST)
#                     {COUNT}          how many, decimal                 (SOFTMX_SHARD_INPUTS)
#                     {HEADER}         a file holding the header the table must start with
#                                                                        (SOFTMX_SHARD_HEADER)
#                     {OUT}            the file to write                 (SOFTMX_SHARD_OUT)
#                   It must write to {OUT} a run table of exactly FIRST..LAST: the lines of
#                   {HEADER} (x- keys may be added), then `FIRST OUT FLAGS` lines, canonical or
#                   not (one `INPUT OUT FLAGS` line per input, as `softmx convert` prints, will
#                   do), and exit 0. The task then checks it with softmx (header and range),
#                   writes it canonically to DIR/shard-I-of-N.runs, atomically, and removes {OUT}.
#   --softmx PATH   the softmx command (default: $SOFTMX, else softmx on PATH)
#   --sbatch OPT    one more option for both sbatch calls, repeatable: --sbatch --partition=cpu
#                   --sbatch --time=04:00:00 (sbatch's SBATCH_* variables work too)
#   --throttle K    at most K array tasks at a time (--array=0-(N-1)%K)
#   --resume        keep shard tables already in DIR that are complete tables of their shard
#   --local         no Slurm: print the sbatch commands, then run the array's tasks on this
#                   machine (SLURM_ARRAY_TASK_ID set as Slurm would) and, if all succeed, the
#                   merge; SLURM_DRY_RUN=1 in the environment does the same
#   -j, --jobs P    with --local: P tasks at a time (xargs -P; default 1)
#   -h, --help      this text
#
# Submitting (the default) runs
#   sbatch --parsable --array=0-(N-1) --output=DIR/logs/shard-%a.out ... sweep-array.sh --task ...
#   sbatch --parsable --dependency=afterok:ARRAYJOB --kill-on-invalid-dep=yes ... sweep-array.sh --merge-step ...
# and prints both job ids: the merge runs only when every array task has exited 0, and checks
# again that every shard's table is there (it names those missing and merges nothing otherwise).
# Each task writes its table under a temporary name and renames it into place, so a table in
# DIR is always complete; after a failure, fix the cause and submit again with --resume: only the
# missing shards are computed. Exit status: 0 submitted (or, --local, merged); 1 a shard or the
# merge failed (--local), or sbatch refused; 2 bad usage (softmx's message for bad sweep options).
#
# Internal modes (what the jobs run): --task (shard $SLURM_ARRAY_TASK_ID), --merge-step, and
# --shard-header I (prints the header of shard I's table: what {HEADER} holds; the tests use it).
set -euo pipefail

prog=sweep-array.sh
die() { echo "$prog: error: $*" >&2; exit 2; }
usage() { sed -n '/^# usage:/,/^# Submitting/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

shards="" dir="" out="" command="" softmx="${SOFTMX:-}" throttle="" resume=0 local_run=0 jobs=1 mode=submit
shard_header_index=""
sbatch_opts=() sweep_args=()
[ "${SLURM_DRY_RUN:-0}" = 1 ] && local_run=1
while [ $# -gt 0 ]; do
  case "$1" in
    -n|--shards) shards="${2:?$1 needs a value}"; shift 2 ;;
    -d|--dir) dir="${2:?$1 needs a value}"; shift 2 ;;
    -o|--out) out="${2:?$1 needs a value}"; shift 2 ;;
    -c|--command) command="${2:?$1 needs a value}"; shift 2 ;;
    --softmx) softmx="${2:?$1 needs a value}"; shift 2 ;;
    --sbatch) sbatch_opts+=("${2:?$1 needs a value}"); shift 2 ;;
    --throttle) throttle="${2:?$1 needs a value}"; shift 2 ;;
    --resume) resume=1; shift ;;
    --local) local_run=1; shift ;;
    -j|--jobs) jobs="${2:?$1 needs a value}"; shift 2 ;;
    --task) mode=task; shift ;;
    --merge-step) mode=merge; shift ;;
    --shard-header) mode=header; shard_header_index="${2:?$1 needs a value}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; sweep_args=("$@"); break ;;
    *) die "unexpected argument '$1' (softmx sweep's options go after --; $prog --help)" ;;
  esac
done

is_count() { [[ "$1" =~ ^[0-9]{1,10}$ ]] && [ "$1" -ge 1 ]; }
is_count "$shards" || die "-n N: expected the number of shards, 1 or more, got '${shards}'"
[ -n "$dir" ] || die "missing -d DIR (the folder of the shard tables)"
[ -n "$out" ] || die "missing -o OUT (the merged table)"
[ ${#sweep_args[@]} -gt 0 ] || die "missing softmx sweep's options after -- (--from SRC --to DST ...)"
for a in "${sweep_args[@]}"; do
  case "$a" in
    --shard|--shard=*|-o|--out|--out=*) die "'$a': this script sets --shard and -o itself" ;;
  esac
done
[ -z "$throttle" ] || is_count "$throttle" || die "--throttle K: expected a count, got '$throttle'"
is_count "$jobs" || die "-j P: expected a count, got '$jobs'"
if [ -z "$softmx" ]; then
  softmx="$(command -v softmx || true)"
  [ -n "$softmx" ] || die "no softmx command: put it on PATH, set SOFTMX or give --softmx PATH"
fi
[ -x "$softmx" ] || softmx="$(command -v "$softmx" || true)"
[ -n "$softmx" ] && [ -x "$softmx" ] || die "--softmx: not an executable: '$softmx'"
case "$softmx" in /*) ;; *) softmx="$PWD/$softmx" ;; esac
case "$dir" in /*) ;; *) dir="$PWD/$dir" ;; esac
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac

table_of() { echo "$dir/shard-$1-of-$shards.runs"; }

# W: the source's width, from softmx itself: `--shard 0/2^k` is accepted exactly when 2^k <= 2^w,
# and at k = w it sweeps one input. Bad sweep options fail every try: softmx then says why.
source_width() {
  local k
  for ((k = 32; k >= 1; k--)); do
    if "$softmx" sweep "${sweep_args[@]}" --shard "0/$((1 << k))" -o /dev/null 2>/dev/null; then
      W=$k
      return 0
    fi
  done
  "$softmx" sweep "${sweep_args[@]}" --shard 0/1 -o /dev/null >&2 || exit 2
  die "cannot find the source's width"
}

# floor(I * 2^W / N) without overflowing bash's 64-bit integers (I < N <= 2^32, W <= 32).
shard_start() {
  local i=$1 h1=$((W / 2)) h2=$((W - W / 2))
  local a=$((i << h1))
  echo $((((a / shards) << h2) + (((a % shards) << h2) / shards)))
}

# The header of shard I's table into file $2 (softmx's own: a one-input sweep at FIRST, with
# last set to the shard's LAST); sets FIRST, LAST (decimal) and FIRST_HEX, LAST_HEX.
shard_header() {
  local i=$1 file=$2 digits
  [ "$shards" -le $((1 << W)) ] || die "-n $shards: a $W-bit source has only $((1 << W)) inputs"
  FIRST=$(shard_start "$i")
  LAST=$(($(shard_start $((i + 1))) - 1))
  "$softmx" sweep "${sweep_args[@]}" --shard "$FIRST/$((1 << W))" | sed '/^#/,$d' > "$file.tmp"
  FIRST_HEX=$(sed -n 's/^first = //p' "$file.tmp")
  digits=${#FIRST_HEX}
  [ "$digits" -gt 0 ] || die "softmx sweep wrote no 'first' line"
  LAST_HEX=$(printf '%0*X' "$digits" "$LAST")
  sed "s/^last = .*/last = $LAST_HEX/" "$file.tmp" > "$file"
  rm -f "$file.tmp"
}

# The header lines of a table, less x- keys (what a shard's table must agree with).
header_of() { sed '/^#/,$d' "$1" | grep -v '^x-' || true; }

run_task() {
  local i="${SLURM_ARRAY_TASK_ID:?--task runs as a Slurm array task (SLURM_ARRAY_TASK_ID)}"
  [[ "$i" =~ ^[0-9]+$ ]] && [ "$i" -lt "$shards" ] || die "SLURM_ARRAY_TASK_ID=$i: expected 0..$((shards - 1))"
  local table tag header part checked t0
  table=$(table_of "$i")
  tag="$(hostname 2>/dev/null || echo host)-$$"
  header="$dir/.shard-$i-of-$shards.header.$tag"
  part="$dir/.shard-$i-of-$shards.runs.part.$tag"
  checked="$dir/.shard-$i-of-$shards.runs.checked.$tag"
  task_tmp=("$header" "$header.tmp" "$part" "$checked")
  trap 'rm -f "${task_tmp[@]}"' EXIT
  t0=$(date +%s)
  if [ -n "$command" ] || [ "$resume" = 1 ]; then
    source_width
    shard_header "$i" "$header"
  fi
  if [ "$resume" = 1 ] && [ -f "$table" ] && header_of "$table" | cmp -s - "$header" &&
      "$softmx" merge -o /dev/null "$table" 2>/dev/null; then
    echo "shard $i of $shards: $table is complete, kept (--resume)"
    return 0
  fi
  if [ -z "$command" ]; then
    "$softmx" sweep "${sweep_args[@]}" --shard "$i/$shards" -o "$table"
  else
    local c="$command"
    c=${c//\{I\}/$i}
    c=${c//\{N\}/$shards}
    c=${c//\{FIRST\}/$FIRST_HEX}
    c=${c//\{LAST\}/$LAST_HEX}
    c=${c//\{COUNT\}/$((LAST - FIRST + 1))}
    c=${c//\{HEADER\}/$header}
    c=${c//\{OUT\}/$part}
    export SOFTMX="$softmx" SOFTMX_SHARD_INDEX="$i" SOFTMX_SHARD_COUNT="$shards" SOFTMX_SHARD_FIRST="$FIRST_HEX" \
      SOFTMX_SHARD_LAST="$LAST_HEX" SOFTMX_SHARD_INPUTS=$((LAST - FIRST + 1)) SOFTMX_SHARD_HEADER="$header" \
      SOFTMX_SHARD_OUT="$part"
    local rc=0
    bash -c "$c" || rc=$?
    if [ "$rc" -ne 0 ]; then
      echo "$prog: shard $i of $shards (inputs $FIRST_HEX..$LAST_HEX): the command exited with status $rc" >&2
      exit 1
    fi
    [ -f "$part" ] || { echo "$prog: shard $i of $shards: the command wrote no table to {OUT}" >&2; exit 1; }
    # softmx's reader checks the table (syntax, runs from FIRST to LAST) and writes it canonically.
    if ! "$softmx" merge -o "$checked" "$part"; then
      echo "$prog: shard $i of $shards (inputs $FIRST_HEX..$LAST_HEX): the command's table is not a run table softmx can read" >&2
      exit 1
    fi
    if ! header_of "$checked" | cmp -s - "$header"; then
      echo "$prog: shard $i of $shards (inputs $FIRST_HEX..$LAST_HEX): the command's table is not this shard's; its header differs:" >&2
      diff <(header_of "$checked") "$header" >&2 || true
      exit 1
    fi
    mv -f "$checked" "$table"
  fi
  echo "shard $i of $shards: $table ($(($(date +%s) - t0)) s on $(hostname 2>/dev/null || echo '?'))"
}

run_merge() {
  local missing=() tables=() i
  for ((i = 0; i < shards; i++)); do
    tables+=("$(table_of "$i")")
    [ -f "${tables[-1]}" ] || missing+=("$i")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "$prog: ${#missing[@]} of $shards shard tables missing in $dir (shards ${missing[*]}): nothing merged" >&2
    exit 1
  fi
  "$softmx" merge -o "$out" "${tables[@]}"
  echo "merged $shards shards into $out"
}

case "$mode" in
  task) run_task; exit 0 ;;
  merge) run_merge; exit 0 ;;
  header)
    source_width
    [[ "$shard_header_index" =~ ^[0-9]+$ ]] && [ "$shard_header_index" -lt "$shards" ] ||
      die "--shard-header I: expected 0..$((shards - 1))"
    hdr=$(mktemp)
    shard_header "$shard_header_index" "$hdr"
    cat "$hdr"
    rm -f "$hdr"
    exit 0 ;;
esac

# Submit (or, --local, run here). The options every job gets again:
source_width  # checks the sweep options before anything is submitted
[ "$shards" -le $((1 << W)) ] || die "-n $shards: a $W-bit source has only $((1 << W)) inputs"
mkdir -p "$dir/logs"
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
common=(-n "$shards" -d "$dir" -o "$out" --softmx "$softmx")
[ -z "$command" ] || common+=(-c "$command")
[ "$resume" = 0 ] || common+=(--resume)
common+=(-- "${sweep_args[@]}")
array="0-$((shards - 1))${throttle:+%$throttle}"
array_cmd=(sbatch --parsable --job-name=softmx-sweep "--array=$array" "--output=$dir/logs/shard-%a.out"
           "${sbatch_opts[@]}" "$self" --task "${common[@]}")
merge_cmd() {  # the merge job's sbatch command, after array job $1
  merge_cmd=(sbatch --parsable --job-name=softmx-merge "--dependency=afterok:$1" --kill-on-invalid-dep=yes
             "--output=$dir/logs/merge.out" "${sbatch_opts[@]}" "$self" --merge-step "${common[@]}")
}

if [ "$local_run" = 0 ]; then
  command -v sbatch >/dev/null || die "sbatch not found: run on a Slurm login node, or use --local (SLURM_DRY_RUN=1)"
  array_id=$("${array_cmd[@]}") || exit 1
  array_id=${array_id%%;*}
  merge_cmd "$array_id"
  merge_id=$("${merge_cmd[@]}") || exit 1
  merge_id=${merge_id%%;*}
  echo "submitted: array job $array_id ($shards shards of softmx sweep ${sweep_args[*]}, logs $dir/logs/)"
  echo "           merge job $merge_id (after every shard succeeds) -> $out"
  exit 0
fi

# --local: what Slurm would run, here.
echo "(local run: no Slurm) would submit:"
printf ' %q' "${array_cmd[@]}" | sed 's/^/ /'; echo
merge_cmd ARRAYJOB
printf ' %q' "${merge_cmd[@]}" | sed 's/^/ /'; echo
failed="$dir/logs/.failed.$$"
rm -f "$failed"
trap 'rm -f "$failed"' EXIT
export SOFTMX_SWEEP_LOGS="$dir/logs" SOFTMX_SWEEP_FAILED="$failed"
# One task per shard index, P at a time; xargs appends the index as the last argument.
seq 0 $((shards - 1)) | xargs -P "$jobs" -n 1 bash -c '
  i=${!#}; set -- "${@:1:$#-1}"
  SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_JOB_ID=local SLURM_DRY_RUN=0 "$@" > "$SOFTMX_SWEEP_LOGS/shard-$i.out" 2>&1 ||
    { echo "$i" >> "$SOFTMX_SWEEP_FAILED"; exit 1; }' _ "$self" --task "${common[@]}" || true
if [ -s "$failed" ]; then
  echo "$prog: $(wc -l < "$failed") of $shards shards failed, nothing merged (their tables' folder: $dir):" >&2
  for i in $(sort -n "$failed"); do
    line=$(tail -n 1 "$dir/logs/shard-$i.out") prefix="$prog: shard $i of $shards"
    [[ "$line" == "$prefix"* ]] && line=${line#"$prefix"} || line=": $line"
    echo "  shard $i of $shards$line (log: $dir/logs/shard-$i.out)" >&2
  done
  exit 1
fi
for ((i = 0; i < shards; i++)); do cat "$dir/logs/shard-$i.out"; done
"$self" --merge-step "${common[@]}" 2>&1 | tee "$dir/logs/merge.out"
