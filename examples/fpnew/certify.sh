#!/usr/bin/env bash
# examples/fpnew/certify.sh: certifies FPnew's FP-to-FP conversions (openhwgroup/cvfpu,
# fpnew_cast_multi) against softmx's fpnew dialect. README.md beside this script explains the
# flow, the results and what they prove.
#
#   certify.sh CVFPU_DIR [options]          build, simulate, verify, identify; write OUT/
#   certify.sh CVFPU_DIR shard --from F --to T --round R --shard I/N -o FILE [--tininess T]
#   certify.sh CVFPU_DIR shard --header FILE -o FILE
#                                           one shard's run table (a command per shard: a cluster
#                                           runs N of them, then `softmx merge` joins them); with
#                                           --header, the table starts with FILE's lines and the
#                                           conversion and range are read from them (the shard
#                                           header of scripts/slurm/sweep-array.sh and
#                                           softmx.distributed: docs/SHARDING.md 4)
#   certify.sh CVFPU_DIR build [--from F --to T]   build the simulator only; prints its path
#
# CVFPU_DIR is a cvfpu work tree with common_cells in CVFPU_DIR/src/common_cells (fetch.sh makes
# one; the RTL is never part of softmx's repository).
#
# options:
#   -o, --out DIR        the results (default ./fpnew-results): one file per source, destination
#                        and mode, MANIFEST (what was run, on which RTL) and SUMMARY (the verdicts)
#   --work DIR           builds, inputs, shards and logs (default ${TMPDIR:-/tmp}/softmx-fpnew-$UID)
#   --softmx BIN         the softmx command (default: softmx on PATH, else this repository's
#                        build/tools/softmx/softmx)
#   --sources LIST       sources swept exhaustively (default f16,bf16,e5m2,e4m3ieee; none)
#   --to LIST            destinations (default f32,f16,bf16,e5m2,e4m3ieee)
#   --modes LIST         RISC-V rounding modes as softmx names them (default rne,rz,rd,ru,rna,ro:
#                        RNE RTZ RDN RUP RMM and FPnew's ROD)
#   --f32 none|vectors|full
#                        f32 inputs (default vectors): vectors: softmx gen convert --level 2 (every
#                        rounding boundary of the destination, then --count random inputs) per
#                        destination and mode; full: every one of the 2^32 inputs, in --shards
#                        shards run --jobs at a time, merged into one run table. Shorthand for
#                        --f32-vectors or --f32-full with every destination of --to but f32
#   --f32-vectors LIST, --f32-full LIST
#                        f32 destinations by vector files, and by all 2^32 inputs (both may be
#                        given); an entry DST:M1+M2 gives DST its own modes (e5m2,f16:rne: e5m2
#                        in --f32-modes, f16 in rne only)
#   --f32-modes LIST     (default: --modes)
#   --count N            random f32 inputs per vector file (default 100000)
#   --shards N           shards per full f32 sweep (default 16)
#   --jobs N             simulations at a time, and verify's threads (default 1)
#   --tininess after|after-bounded
#                        the tininess rule the files' headers state (default after: RISC-V's,
#                        IEEE 754-2019 7.5). A snapshot before PR #168 fails verify under after
#                        (underflow missing just below the smallest normal) and passes under
#                        after-bounded
#   --snapshot NAME      the RTL's name in headers and MANIFEST (default: CVFPU_DIR's
#                        .softmx-fpnew-snapshot, written by fetch.sh, else its commit)
#   --lanes N            unit copies evaluated at once (default 32)
#   --no-verify          simulate only
#
# Exit status: 0 every file passes softmx verify; 1 some file fails (SUMMARY and the logs say
# which, and identify says what FPnew implements there); 2 bad usage or a build failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
usage() { sed -n '2,52p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "certify.sh: $*" >&2; exit 2; }

[ $# -ge 1 ] || usage
case $1 in -h|--help) usage ;; esac
invocation=
for a in "$@"; do
  if [[ $a =~ ^[A-Za-z0-9_./:=+,@%-]+$ ]]; then invocation+=" $a"; else invocation+=" $(printf '%q' "$a")"; fi
done
cvfpu=$(cd "$1" 2>/dev/null && pwd) || die "no folder $1"
shift
action=run
case ${1:-} in shard|build) action=$1; shift ;; esac

out=fpnew-results work=${TMPDIR:-/tmp}/softmx-fpnew-$(id -u) softmx=
sources=f16,bf16,e5m2,e4m3ieee to=f32,f16,bf16,e5m2,e4m3ieee modes=rne,rz,rd,ru,rna,ro
f32=vectors f32_vectors=- f32_full=- f32_modes= count=100000 shards=16 jobs=1 tininess=after snapshot= lanes=32
verify=1 from= dst= round= shard= ofile= header=
while [ $# -gt 0 ]; do
  case $1 in
    -o|--out) out=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --softmx) softmx=$2; shift 2 ;;
    --sources) sources=$2; shift 2 ;;
    --to) to=$2; dst=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --f32) f32=$2; shift 2 ;;
    --f32-vectors) f32_vectors=$2; shift 2 ;;
    --f32-full) f32_full=$2; shift 2 ;;
    --f32-modes) f32_modes=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --shards) shards=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --tininess) tininess=$2; shift 2 ;;
    --snapshot) snapshot=$2; shift 2 ;;
    --lanes) lanes=$2; shift 2 ;;
    --no-verify) verify=0; shift ;;
    --from) from=$2; shift 2 ;;
    --round) round=$2; shift 2 ;;
    --shard) shard=$2; shift 2 ;;
    --header) header=$2; shift 2 ;;
    -h|--help) usage ;;
    *) die "unknown argument $1 (--help lists them)" ;;
  esac
done
if [ "$action" = shard ] && [ "$out" != fpnew-results ]; then ofile=$out; fi
case $tininess in after|after-bounded) ;; *) die "--tininess after or after-bounded" ;; esac
case $f32 in none|vectors|full) ;; *) die "--f32 none, vectors or full" ;; esac
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "--jobs N (N >= 1)"
[[ $lanes =~ ^[1-9][0-9]*$ ]] && [ "$lanes" -ge 4 ] || die "--lanes N (N >= 4)"

# ---- the RTL -------------------------------------------------------------------------------
cc=$cvfpu/src/common_cells
rtl=("$cc/src/cf_math_pkg.sv" "$cvfpu/src/fpnew_pkg.sv" "$cc/src/lzc.sv" "$cvfpu/src/fpnew_classifier.sv"
     "$cvfpu/src/fpnew_rounding.sv" "$cvfpu/src/fpnew_cast_multi.sv")
for f in "${rtl[@]}" "$cc/include/common_cells/registers.svh"; do
  [ -f "$f" ] || die "$f is missing: CVFPU_DIR must be a cvfpu work tree with common_cells in src/common_cells (examples/fpnew/fetch.sh makes one)"
done
command -v verilator > /dev/null || die "verilator not found (Debian: apt-get install verilator)"
vversion=$(verilator --version)
has_fp8alt=0
grep -q 'FP8ALT' "$cvfpu/src/fpnew_pkg.sv" && has_fp8alt=1

# Format names: file name, softmx spec, fpnew_pkg::fp_format_e, width.
spec() { case $1 in e4m3ieee) echo 'e4m3:specials=ieee' ;; f32|f16|bf16|e5m2) echo "$1" ;; *) die "unknown format $1 (f32 f16 bf16 e5m2 e4m3ieee)" ;; esac; }
fpfmt() { case $1 in f32) echo 0 ;; f16) echo 2 ;; e5m2) echo 3 ;; bf16) echo 4 ;; e4m3ieee) echo 5 ;; esac; }
width() { case $1 in f32) echo 32 ;; f16|bf16) echo 16 ;; e5m2|e4m3ieee) echo 8 ;; esac; }
check_mode() { case $1 in rne|rz|rd|ru|rna|ro) ;; *) die "unknown rounding $1 (rne rz rd ru rna ro)" ;; esac; }
list() { [ "$1" = none ] || tr ',' ' ' <<< "$1"; }
usable() {  # FORMAT: 0 when the snapshot has it
  spec "$1" > /dev/null
  [ "$1" != e4m3ieee ] || [ "$has_fp8alt" = 1 ]
}

# Provenance, for the headers and MANIFEST.
git_head() { git -C "$1" rev-parse HEAD 2>/dev/null || echo unknown; }
rtl_commit=$(git_head "$cvfpu")
rtl_patch=$(git -C "$cvfpu" diff HEAD -- src/'*.sv' 2>/dev/null | sha256sum | cut -c1-64)
[ -n "$(git -C "$cvfpu" diff HEAD --name-only -- src/'*.sv' 2>/dev/null)" ] || rtl_patch=none
cc_commit=$(git_head "$cc")
if [ -z "$snapshot" ]; then
  if [ -f "$cvfpu/.softmx-fpnew-snapshot" ]; then snapshot=$(head -1 "$cvfpu/.softmx-fpnew-snapshot")
  else snapshot=${rtl_commit:0:7}; [ "$rtl_patch" = none ] || snapshot=$snapshot+patch; fi
fi
xkeys=(--x "x-device=FPnew fpnew_cast_multi (openhwgroup/cvfpu), F2F, FP32 FP16 FP8 FP16ALT$([ $has_fp8alt = 1 ] && echo ' FP8ALT') enabled, NumPipeRegs 0"
       --x "x-rtl-snapshot=$snapshot" --x "x-rtl-commit=$rtl_commit" --x "x-rtl-patch-sha256=$rtl_patch"
       --x "x-common-cells-commit=$cc_commit" --x "x-simulator=$vversion")

mkdir -p "$work"
# build SRC DST: the simulator for SRC -> DST ('any' any: formats chosen at run time); prints its
# path. A build is reused while its RTL, bench and options are unchanged; concurrent shards
# wait for one build (flock).
build() {
  local src=$1 dst=$2 name=$1-$2 g=()
  [ "$src" = any ] || g+=(-GSRC_FMT="$(fpfmt "$src")" -GDST_FMT="$(fpfmt "$dst")")
  local dir=$work/sim-$name
  local defs=()
  grep -q 'reg_ena_i' "$cvfpu/src/fpnew_cast_multi.sv" && defs+=(-DFPNEW_HAS_REG_ENA)
  local key
  key=$( { sha256sum "${rtl[@]}" "$here/tb/fpnew_cast_lanes.sv" "$here/tb/sim_main.cpp"; echo "${g[*]} ${defs[*]} $lanes $vversion"; } |
         sha256sum | cut -c1-64)
  (
    flock 9
    if [ ! -x "$dir/obj/fpnew_sim" ] || [ "$(cat "$dir/key" 2>/dev/null)" != "$key" ]; then
      rm -rf "$dir" && mkdir -p "$dir"
      echo "certify.sh: building the simulator ($name) in $dir" >&2
      # Verilator's -O3 and the model compiled at -O2 (not its default -Os): about twice as fast.
      nice -n 10 verilator --cc --exe --build -j 2 -O3 --x-assign fast --x-initial fast --noassert \
        -Wno-fatal -Wno-lint -Wno-style -Wno-UNOPTFLAT --top-module fpnew_cast_lanes \
        -GLANES="$lanes" "${g[@]}" "${defs[@]}" -I"$cc/include" \
        -CFLAGS "-O2 -DLANES=$lanes" -MAKEFLAGS "OPT_FAST=-O2 OPT_SLOW=-O1" \
        "${rtl[@]}" "$here/tb/fpnew_cast_lanes.sv" "$here/tb/sim_main.cpp" \
        --Mdir "$dir/obj" -o fpnew_sim > "$dir/build.log" 2>&1 ||
        { cat "$dir/build.log" >&2; echo "certify.sh: the Verilator build failed ($dir/build.log)" >&2; exit 2; }
      echo "$key" > "$dir/key"
    fi
  ) 9> "$work/.build-$name.lock" || exit 2
  echo "$dir/obj/fpnew_sim"
}

case $action in
  build)
    if [ -n "$from" ]; then build "$from" "${dst:?--to}"; else build any any; fi
    exit 0 ;;
  shard)
    if [ -n "$header" ]; then
      [ -f "$header" ] && [ -n "$ofile" ] || die "shard --header FILE needs the file and -o FILE"
      hkey() { sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*\(.*[^[:space:]]\)[[:space:]]*\$/\1/p" "$header" | head -1; }
      short() { case $1 in 'e4m3:specials=ieee'|e4m3ieee) echo e4m3ieee ;; *) echo "$1" ;; esac; }
      from=$(short "$(hkey from)") dst=$(short "$(hkey to)")
      usable "$from" && usable "$dst" || die "$header: this snapshot has no FP8ALT"
      sim=$(build "$from" "$dst")
      exec nice -n 10 "$sim" sweep --header "$header" "${xkeys[@]}" -o "$ofile"
    fi
    [ -n "$from" ] && [ -n "$dst" ] && [ -n "$round" ] && [ -n "$shard" ] && [ -n "$ofile" ] ||
      die "shard needs --from, --to, --round, --shard I/N and -o FILE (or --header FILE -o FILE)"
    check_mode "$round"; usable "$from" && usable "$dst" || die "this snapshot has no FP8ALT"
    sim=$(build "$from" "$dst")
    exec nice -n 10 "$sim" sweep --from "$(spec "$from")" --to "$(spec "$dst")" --round "$round" --shard "$shard" \
      --tininess "$tininess" --dialect fpnew "${xkeys[@]}" -o "$ofile" ;;
esac

# ---- the certification run ---------------------------------------------------------------------
if [ -z "$softmx" ]; then
  softmx=$(command -v softmx || true)
  [ -n "$softmx" ] || softmx=$repo/build/tools/softmx/softmx
fi
[ -x "$softmx" ] || die "softmx not found (--softmx BIN)"
"$softmx" dialects | grep -q '^fpnew:' || die "$softmx has no fpnew dialect (softmx dialects): a newer softmx is needed"
[ -n "$f32_modes" ] || f32_modes=$modes
# --f32 fills whichever of --f32-vectors and --f32-full was not given ('-').
f32_default=$(list "$to" | tr ' ' '\n' | grep -vx f32 | paste -sd, -)
if [ "$f32_vectors" = - ]; then f32_vectors=none; [ "$f32" != vectors ] || [ "$f32_full" != - ] || f32_vectors=$f32_default; fi
if [ "$f32_full" = - ]; then f32_full=none; [ "$f32" != full ] || f32_full=$f32_default; fi
[ -n "$f32_vectors" ] || f32_vectors=none
[ -n "$f32_full" ] || f32_full=none
for m in $(list "$modes") $(list "$f32_modes"); do check_mode "$m"; done
# f32_dst_modes ENTRY: the modes of an --f32-vectors or --f32-full entry (DST or DST:M1+M2).
f32_dst_modes() {
  if [[ $1 == *:* ]]; then tr '+' ' ' <<< "${1#*:}"; else list "$f32_modes"; fi
}
mkdir -p "$out" "$work/logs" "$work/inputs"
out=$(cd "$out" && pwd)
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# A small job queue: at most $jobs commands at a time.
running=0
queue() {
  if [ "$running" -ge "$jobs" ]; then wait -n || failed=1; running=$((running - 1)); fi
  "$@" &
  running=$((running + 1))
}
drain() { while [ "$running" -gt 0 ]; do wait -n || failed=1; running=$((running - 1)); done; }
failed=0

files=()
simlogs=()
reused=0 computed=0
sim_any=
# Every input of the 16- and 8-bit sources.
for s in $(list "$sources"); do
  usable "$s" || { echo "certify.sh: skipping source $s (this snapshot has no FP8ALT)" >&2; continue; }
  for d in $(list "$to"); do
    [ "$s" != "$d" ] || continue
    usable "$d" || continue
    [ "$(width "$s")" -le 16 ] || die "--sources takes 16- and 8-bit formats (f32: --f32)"
    [ -n "$sim_any" ] || sim_any=$(build any any)
    for m in $(list "$modes"); do
      f=$s-$d-$m.runs
      files+=("$f")
      simlogs+=("$work/logs/$f.sim")
      queue sh -c 'nice -n 10 "$@" 2> "$0"' "$work/logs/$f.sim" "$sim_any" sweep --from "$(spec "$s")" --to "$(spec "$d")" \
        --round "$m" --tininess "$tininess" --dialect fpnew "${xkeys[@]}" -o "$out/$f"
    done
  done
done
drain

# f32 inputs: vector files (every rounding boundary, then random inputs) ...
if [ "$f32_vectors" != none ]; then
  for entry in $(list "$f32_vectors"); do
    d=${entry%%:*}
    usable "$d" || continue
    [ -n "$sim_any" ] || sim_any=$(build any any)
    for m in $(f32_dst_modes "$entry"); do
      check_mode "$m"
      f=f32-$d-$m-L2.vec
      in=$work/inputs/f32-$d-$m-L2.vec
      "$softmx" gen convert --from f32 --to "$(spec "$d")" --round "$m" --sat none --dialect fpnew \
        --tininess "$tininess" --level 2 --seed 1 --count "$count" --inputs-only -o "$in"
      files+=("$f")
      simlogs+=("$work/logs/$f.sim")
      queue sh -c 'nice -n 10 "$@" 2> "$0"' "$work/logs/$f.sim" "$sim_any" vectors "$in" "${xkeys[@]}" -o "$out/$f"
    done
  done
  drain
fi
# ... or every f32 input, sharded and merged.
if [ "$f32_full" != none ]; then
  for entry in $(list "$f32_full"); do
    d=${entry%%:*}
    usable "$d" || continue
    sim=$(build f32 "$d")
    shard_dir=$work/shards/$(tr -c 'A-Za-z0-9+._\n-' _ <<< "$snapshot")
    mkdir -p "$shard_dir"
    for m in $(f32_dst_modes "$entry"); do
      check_mode "$m"
      f=f32-$d-$m.runs
      files+=("$f")
      parts=()
      for ((i = 0; i < shards; i++)); do
        p=$shard_dir/f32-$d-$m-$tininess.$i-of-$shards.runs
        parts+=("$p")
        simlogs+=("$work/logs/f32-$d-$m-$tininess.$i-of-$shards.sim")
        if [ -f "$p" ]; then reused=$((reused + 1)); continue; fi  # a finished shard (written by rename) is kept: a rerun resumes
        computed=$((computed + 1))
        queue sh -c 'nice -n 10 "$@" 2> "$0"' "$work/logs/f32-$d-$m-$tininess.$i-of-$shards.sim" "$sim" sweep --from f32 \
          --to "$(spec "$d")" --round "$m" --shard "$i/$shards" --tininess "$tininess" --dialect fpnew "${xkeys[@]}" -o "$p"
      done
      drain
      [ "$failed" = 0 ] || die "a shard of $f failed (logs in $work/logs)"
      "$softmx" merge -o "$out/$f" "${parts[@]}"
    done
  done
fi
[ "$failed" = 0 ] || die "a simulation failed (logs in $work/logs)"

# The simulation rate, from the simulators' own reports.
rate=$(cat "${simlogs[@]}" 2>/dev/null | awk '/inputs\/s/ { n += $2; t += $5 } END { if (t > 0) printf "%.0f inputs in %.1f s of simulation: %.0f inputs/s, %.1f ns per input", n, t, n / t, 1e9 * t / n }')

# ---- verify and identify --------------------------------------------------------------------
summary=$out/SUMMARY
status=0
{
  echo "# FPnew ($snapshot) against softmx's fpnew dialect, tininess $tininess: softmx verify on every file"
  echo "# file  inputs  mismatches (results / flags only)  verdict  [identify's best setting]"
} > "$summary.tmp"
total=0 total_bad=0
if [ "$verify" = 1 ]; then
  for f in "${files[@]}"; do
    json=$work/logs/$f.verify.json
    rc=0
    "$softmx" verify --json --threads "$jobs" "$out/$f" > "$json" 2> "$work/logs/$f.verify.err" || rc=$?
    [ "$rc" -le 1 ] || { cat "$work/logs/$f.verify.err" >&2; die "softmx verify $out/$f exited $rc"; }
    field() { sed -n "s/^  \"$1\": \\([0-9]*\\),\$/\\1/p" "$json" | head -1; }
    n=$(field inputs); [ -n "$n" ] || n=$(field cases)
    bad=$(field mismatched) res=$(field result_mismatches) flg=$(field flags_only_mismatches)
    total=$((total + n)) total_bad=$((total_bad + bad))
    line="$f  $n  $bad ($res / $flg)"
    if [ "$rc" = 0 ]; then
      line="$line  PASS"
    else
      status=1
      "$softmx" identify --threads "$jobs" "$out/$f" > "$work/logs/$f.identify.txt" 2>&1 || true
      # Its first-ranked setting and how it differs from the header.
      best=$(awk '$1 == "1" && NF >= 3 { $1 = ""; print; exit }' "$work/logs/$f.identify.txt" | sed 's/^ *//; s/); .*/); .../')
      diffs=$(sed -n 's/^  differs from the header: //p' "$work/logs/$f.identify.txt" | head -1)
      line="$line  FAIL  [identify: $best${diffs:+; $diffs}]"
    fi
    echo "$line" >> "$summary.tmp"
    echo "certify.sh: $line" >&2
  done
  echo "# total: $total inputs, $total_bad mismatches" >> "$summary.tmp"
fi
mv "$summary.tmp" "$summary"

# ---- MANIFEST -------------------------------------------------------------------------------
{
  echo "# FPnew certified with softmx (examples/fpnew/certify.sh; examples/fpnew/README.md)"
  echo "snapshot = $snapshot"
  echo "cvfpu = $rtl_commit ($(git -C "$cvfpu" log -1 --format='%s, %ad' --date=short 2>/dev/null || echo '?'))"
  echo "cvfpu-work-tree-patch = $rtl_patch (sha256 of git diff HEAD -- 'src/*.sv'; files: $(git -C "$cvfpu" diff HEAD --name-only -- src/'*.sv' 2>/dev/null | paste -sd' ' - || true))"
  echo "common-cells = $cc_commit ($(git -C "$cc" describe --tags 2>/dev/null || echo '?'))"
  echo "simulator = $vversion"
  echo "unit = fpnew_cast_multi, FpFmtConfig all but FP64 ($([ $has_fp8alt = 1 ] && echo "6'b101111" || echo "5'b10111")), IntFmtConfig 4'b0010, NumPipeRegs 0, op F2F, operands NaN-boxed, is_boxed_i '1"
  echo "softmx = $("$softmx" --version 2>/dev/null | head -1 || echo softmx)"
  echo "dialect = fpnew"
  echo "tininess = $tininess"
  echo "command = examples/fpnew/certify.sh$invocation"
  echo "settings = --sources $sources --to $to --modes $modes --f32-vectors $f32_vectors --f32-full $f32_full --f32-modes $f32_modes --count $count --shards $shards --tininess $tininess --snapshot $snapshot"
  echo "run = $started .. $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(nproc) cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)), --jobs $jobs"
  [ -z "$rate" ] || echo "rate = $rate (per simulator process)"
  [ $((reused + computed)) = 0 ] || echo "f32-shards = $computed computed in this run, $reused finished earlier and reused (the same snapshot, tininess and shard count, in $work/shards)"
  echo "# sha256  file"
  (cd "$out" && sha256sum "${files[@]}")
} > "$out/MANIFEST"
echo "certify.sh: $out: ${#files[@]} files; $(tail -1 "$summary" | sed 's/^# //')" >&2
[ -z "$rate" ] || echo "certify.sh: simulation: $rate" >&2
exit $status
