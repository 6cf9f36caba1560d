#!/usr/bin/env bash
# examples/mxdotp/certify.sh: certifies MXDOTP (github gamzeisl/cvfpu, fpnew_mxdotp_multi), an MX
# dot-product unit with E8M0 scales and an FP32 or BF16 accumulator, against softmx's mxdotp
# accumulation model. docs/research/mxdotp.md says what the unit computes, with the RTL lines.
#
#   certify.sh CVFPU_DIR --common-cells DIR [options]
#
# CVFPU_DIR is a checkout of gamzeisl/cvfpu holding src/fpnew_mxdotp_multi.sv, src/mxdotp/
# (fpnew_mxdotp_multi_pkg.sv, fpnew_mxdotp_multi_modules.sv), src/fpnew_pkg.sv,
# src/fpnew_classifier.sv and src/fpnew_rounding.sv; DIR is pulp-platform/common_cells with
# src/lzc.sv, src/cf_math_pkg.sv and include/common_cells/ (v1.37.0 has them there). Both are
# copied into the work folder and patches/mxdotp-glue.patch applied to the copy; the checkouts
# are not changed, and the RTL is never part of softmx's repository.
#
# The flow: verilate the unit (tb/mxdotp_dut.sv: no pipeline registers, one 64-bit lane, the
# harness tb/sim_main.cpp), then for each element x destination x rounding mode two files:
#   L2   softmx gen dot --acc mxdotp --addend yes --level 2 (level 1's structured cases, its C
#        probes among them, then --count random ones): verify must PASS, completeness proven;
#   ADV  adversarial.py (the bypass thresholds, signed zeros, cancellation, ties, the underflow
#        window, overflow, specials, extreme scales): verify must pass; its completeness is
#        unproven (no level and seed), so it runs with --accept-unproven.
# Each is the unit's inputs run through the simulator, the unit's results and flags written into
# the file (softmx's vector format), and softmx verify's verdict on it. rtl_reading.py, an
# independent reading of the RTL in exact arithmetic, checks every file too when python3 is there.
#
# options:
#   -o, --out DIR      the results (default ./mxdotp-results): the files, MANIFEST (what ran, on
#                      which RTL, SHA-256 of every file) and SUMMARY (the verdicts)
#   --work DIR         the RTL copy, the build and the inputs (default ${TMPDIR:-/tmp}/softmx-mxdotp-UID)
#   --softmx BIN       the softmx command (default softmx on PATH, else build/tools/softmx/softmx)
#   --elems LIST       default e4m3,e5m2,e3m2,e2m3,e2m1,int8:bias=-5 (MXDOTPI: INT8 codes read as
#                      integers; plain int8, OCP's k/64, runs with --acc exact --sets L2 and fails
#                      by 2^12: mxdotp refuses it)
#   --to LIST          default f32,bf16 (FP32, FP16ALT)
#   --modes LIST       default rne,rz,rd,ru,rna,ro (RNE RTZ RDN RUP RMM ROD)
#   --count N          random cases per L2 file (default 200)
#   --seed S           L2 seed (default 1)
#   --random N         random cases per ADV file (default 100); --full: adversarial.py --full
#   --sets LIST        default L2,ADV
#   --acc MODEL        the model the headers name and verify checks (default mxdotp; exact shows
#                      the departures)
#   --snapshot NAME    the RTL's name in MANIFEST (default: CVFPU_DIR's commit, or "checkout")
#
# Exit status: 0 every file passes; 1 some file fails (SUMMARY names it; WORK/logs has verify's
# and identify's reports); 2 bad usage or a build failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
usage() { sed -n '2,45p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "certify.sh: $*" >&2; exit 2; }

[ $# -ge 1 ] || usage
case $1 in -h|--help) usage ;; esac
cvfpu=$(cd "$1" 2>/dev/null && pwd) || die "no folder $1"
shift
cc= out=mxdotp-results work=${TMPDIR:-/tmp}/softmx-mxdotp-$(id -u) softmx=
elems=e4m3,e5m2,e3m2,e2m3,e2m1,int8:bias=-5 tos=f32,bf16 modes=rne,rz,rd,ru,rna,ro
count=200 seed=1 random=100 full= sets=L2,ADV acc=mxdotp snapshot=
while [ $# -gt 0 ]; do
  case $1 in
    --common-cells) cc=$2; shift 2 ;;
    -o|--out) out=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --softmx) softmx=$2; shift 2 ;;
    --elems) elems=$2; shift 2 ;;
    --to) tos=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --count) count=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --random) random=$2; shift 2 ;;
    --full) full=--full; shift ;;
    --sets) sets=$2; shift 2 ;;
    --acc) acc=$2; shift 2 ;;
    --snapshot) snapshot=$2; shift 2 ;;
    -h|--help) usage ;;
    *) die "unknown option $1 (certify.sh --help)" ;;
  esac
done
[ -n "$cc" ] || die "--common-cells DIR is required (pulp-platform/common_cells)"
cc=$(cd "$cc" 2>/dev/null && pwd) || die "no folder $cc"
if [ -z "$softmx" ]; then
  softmx=$(command -v softmx || true)
  [ -n "$softmx" ] || softmx=$repo/build/tools/softmx/softmx
fi
[ -x "$softmx" ] || die "no softmx command at $softmx (build softmx, or give --softmx)"
command -v verilator > /dev/null || die "verilator is not installed (Verilator 5 is needed)"
command -v patch > /dev/null || die "patch is not installed"

# The sources, and the SHA-256 of the versions this flow was made and committed with
# (vectors/rtl/mxdotp/MANIFEST): another version is used, and said so, when the glue applies.
declare -A known=(
  [src/fpnew_mxdotp_multi.sv]=4950fe08e0b85ab80258508477547af259f4fc1b32ea2571c59ac2ab419b6160
  [src/mxdotp/fpnew_mxdotp_multi_modules.sv]=9b34b6e5c62b6ab01c299cdf263cb4841210033a491ba9dda831f0217cf23e4e
  [src/mxdotp/fpnew_mxdotp_multi_pkg.sv]=64816b5e68a34984457d16ed6c9601cb11e51033826098ce6d1a236fb69b765b
  [src/fpnew_pkg.sv]=3b24b256d84f2d38d2866caef78d6fbf7043f9726bb9c2227e0b06d8a50e9655
  [src/fpnew_classifier.sv]=0f9a2a773ff9d6d3a9c309fa9d016b6ee88eee5e3f028b5a7ae4203ecd8dd8ad
  [src/fpnew_rounding.sv]=5529f649e08007969a04e68162ecbd3983f8548d9e0189980697e1b89baee780
  [src/lzc.sv]=f0a1d2d56db0990c0e86b6528c780b6424c4c84bcb5a9e88646038a73072a043
  [src/cf_math_pkg.sv]=d986ff4e1079a600dd760416b36f539b36a29c67c3bdbdf10b9be0663447676a
  [include/common_cells/registers.svh]=532dfd1723d2936421b921235abdafcc8ca407990224992ca13575fdb620053a
)
# Where each of those versions is stored (the search index's copies; a repository checkout at one
# commit may hold other versions of some files, hence the SHA-256 check).
declare -A origin=(
  [src/fpnew_mxdotp_multi.sv]="gamzeisl/cvfpu 2fea9878dfdfce31062ca61f2cf7c73178f923fa"
  [src/mxdotp/fpnew_mxdotp_multi_modules.sv]="gamzeisl/cvfpu 2fea9878dfdfce31062ca61f2cf7c73178f923fa"
  [src/mxdotp/fpnew_mxdotp_multi_pkg.sv]="gamzeisl/cvfpu bdb3b5030cc73e2f133b3b261641d42d51746434"
  [src/fpnew_pkg.sv]="gamzeisl/cvfpu 0d7072283b2102077ef6081ab4e6662f15d6c9d9"
  [src/fpnew_classifier.sv]="gamzeisl/cvfpu b04fe5608b3f7a98413dffda53768380b14b2a7f"
  [src/fpnew_rounding.sv]="pulp-platform/cvfpu 9ad473a88fa0cb2436bd06b5d9781d0a3817f1e3 (gamzeisl/cvfpu's fork parent)"
  [src/lzc.sv]="pulp-platform/common_cells v1.37.0 c27bce39ebb2e6bae52f60960814a2afca7bd4cb"
  [src/cf_math_pkg.sv]="pulp-platform/common_cells v1.37.0 c27bce39ebb2e6bae52f60960814a2afca7bd4cb"
  [include/common_cells/registers.svh]="pulp-platform/common_cells v1.37.0 c27bce39ebb2e6bae52f60960814a2afca7bd4cb"
)
rtl=$work/rtl
rm -rf "$rtl"
mkdir -p "$rtl/src/mxdotp" "$rtl/cc/src" "$rtl/cc/include" "$work/logs" "$work/in"
sources=()
for f in src/fpnew_mxdotp_multi.sv src/mxdotp/fpnew_mxdotp_multi_modules.sv src/mxdotp/fpnew_mxdotp_multi_pkg.sv \
         src/fpnew_pkg.sv src/fpnew_classifier.sv src/fpnew_rounding.sv; do
  [ -f "$cvfpu/$f" ] || die "$cvfpu has no $f"
  cp "$cvfpu/$f" "$rtl/$f"
  sources+=("$f $(sha256sum < "$cvfpu/$f" | cut -c1-64)")
done
for f in src/lzc.sv src/cf_math_pkg.sv; do
  [ -f "$cc/$f" ] || die "$cc has no $f"
  cp "$cc/$f" "$rtl/cc/$f"
  sources+=("common_cells/$f $(sha256sum < "$cc/$f" | cut -c1-64)")
done
[ -d "$cc/include/common_cells" ] || die "$cc has no include/common_cells"
cp -r "$cc/include/common_cells" "$rtl/cc/include/"
sources+=("common_cells/include/common_cells/registers.svh $(sha256sum < "$cc/include/common_cells/registers.svh" | cut -c1-64)")
differs=0
for s in "${sources[@]}"; do
  f=${s% *} sha=${s##* } key=${f#common_cells/}
  if [ "${known[$key]:-}" != "$sha" ]; then
    echo "certify.sh: $f differs from the version the committed results were made with" >&2
    differs=1
  fi
done
(cd "$rtl" && patch -p1 --forward --batch < "$here/patches/mxdotp-glue.patch" > "$work/logs/patch.log" 2>&1) ||
  die "patches/mxdotp-glue.patch does not apply to these sources ($work/logs/patch.log)"

# Verilate (about 15 s of CPU).
obj=$work/obj
rm -rf "$obj"
vflags=(-Wno-fatal -Wno-WIDTH -Wno-UNUSED -Wno-LITENDIAN -Wno-UNOPTFLAT)
if ! verilator --cc --exe --build -j 2 -O3 "${vflags[@]}" --top-module mxdotp_dut --Mdir "$obj" -o Vmxdotp_dut \
     +incdir+"$rtl/cc/include" "$rtl/cc/src/cf_math_pkg.sv" "$rtl/cc/src/lzc.sv" "$rtl/src/fpnew_pkg.sv" \
     "$rtl/src/mxdotp/fpnew_mxdotp_multi_pkg.sv" "$rtl/src/fpnew_classifier.sv" "$rtl/src/fpnew_rounding.sv" \
     "$rtl/src/mxdotp/fpnew_mxdotp_multi_modules.sv" "$rtl/src/fpnew_mxdotp_multi.sv" "$here/tb/mxdotp_dut.sv" \
     "$here/tb/sim_main.cpp" -CFLAGS "-O2 -std=c++17" > "$work/logs/verilator.log" 2>&1; then
  tail -20 "$work/logs/verilator.log" >&2
  die "the Verilator build failed ($work/logs/verilator.log)"
fi
sim=$obj/Vmxdotp_dut

width() { case $1 in e3m2|e2m3) echo 11 ;; e2m1) echo 16 ;; *) echo 8 ;; esac; }
stem() { local n=${1//:/-}; echo "${n//=/}"; }  # int8:bias=-5 -> int8-bias-5

mkdir -p "$out"
summary=$out/SUMMARY
: > "$summary"
files=() failed=0 total=0 t0=$(date -u +%Y-%m-%dT%H:%M:%SZ)
have_py=$(command -v python3 || true)
for e in ${elems//,/ }; do
  k=$(width "$e")
  for to in ${tos//,/ }; do
    for r in ${modes//,/ }; do
      for set in ${sets//,/ }; do
        name=mxdotp-$(stem "$e")-$to-$r-$set.vec
        in=$work/in/${name%.vec}.in
        case $set in
          L2) "$softmx" gen dot --a "$e" --b "$e" --block "$k" --blocks 1 --acc "$acc" --addend yes --to "$to" \
                --round "$r" --sat none --tininess after-bounded --level 2 --count "$count" --seed "$seed" \
                --inputs-only -o "$in" ;;
          ADV) python3 "$here/adversarial.py" --elem "$e" --to "$to" --round "$r" --random "$random" $full \
                 > "$in"
               [ "$acc" = mxdotp ] || sed -i "s/^accumulation = mxdotp$/accumulation = $acc/" "$in" ;;
          *) die "unknown set $set (L2, ADV)" ;;
        esac
        "$sim" < "$in" > "$out/$name" 2> "$work/logs/${name%.vec}.sim" || die "the simulator failed on $in"
        vopt=()
        [ "$set" = ADV ] && vopt=(--accept-unproven)
        if "$softmx" verify "${vopt[@]}" "$out/$name" > "$work/logs/${name%.vec}.verify" 2>&1; then
          verdict=PASS
        else
          verdict=FAIL
          failed=$((failed + 1))
          "$softmx" identify "${vopt[@]}" "$out/$name" > "$work/logs/${name%.vec}.identify" 2>&1 || true
        fi
        n=$(grep -c '^[0-9A-F]' "$out/$name" || true)
        total=$((total + n))
        line=$(grep -m1 ' cases, ' "$work/logs/${name%.vec}.verify" | sed 's/^verify: [^:]*: //' || true)
        if [ -n "$have_py" ] && [ "$acc" = mxdotp ]; then
          python3 "$here/rtl_reading.py" "$out/$name" > "$work/logs/${name%.vec}.reading" 2>&1 ||
            { verdict="$verdict, rtl_reading MISMATCH"; failed=$((failed + 1)); }
        fi
        echo "$verdict $name: $line" | tee -a "$summary"
        files+=("$name")
      done
    done
  done
done
t1=$(date -u +%Y-%m-%dT%H:%M:%SZ)
echo "TOTAL $total cases in ${#files[@]} files, $failed failing" | tee -a "$summary"

[ -n "$snapshot" ] || snapshot=$(git -C "$cvfpu" rev-parse HEAD 2>/dev/null || echo checkout)
{
  echo "# MXDOTP certified with softmx (examples/mxdotp/certify.sh; docs/research/mxdotp.md)"
  echo "unit = fpnew_mxdotp_multi (github gamzeisl/cvfpu), FpSrcFmtConfig FP8 FP8ALT FP6 FP6ALT FP4, IntSrcFmtConfig INT8, FpDstFmtConfig FP32 FP16ALT, VectorSize 8, LaneWidth 64, NumPipeRegs 0"
  echo "snapshot = $snapshot"
  for s in "${sources[@]}"; do
    f=${s% *} sha=${s##* } key=${f#common_cells/}
    if [ "${known[$key]:-}" = "$sha" ]; then
      echo "source = $f sha256 $sha (${origin[$key]})"
    else
      echo "source = $f sha256 $sha (another version than the committed results')"
    fi
  done
  [ $differs = 0 ] || echo "sources-differ = yes (not the versions the committed results were made with)"
  echo "patch = examples/mxdotp/patches/mxdotp-glue.patch sha256 $(sha256sum < "$here/patches/mxdotp-glue.patch" | cut -c1-64)"
  echo "simulator = $(verilator --version)"
  echo "softmx = $("$softmx" --version 2>/dev/null | head -1)"
  echo "accumulation = $acc"
  echo "tininess = after-bounded"
  echo "command = examples/mxdotp/certify.sh CVFPU_DIR --common-cells DIR --elems $elems --to $tos --modes $modes --count $count --seed $seed --random $random ${full:+--full }--sets $sets --acc $acc"
  echo "run = $t0 .. $t1"
  echo "cases = $total"
  echo "# sha256  file"
  for f in "${files[@]}"; do echo "$(sha256sum < "$out/$f" | cut -c1-64)  $f"; done
} > "$out/MANIFEST"
[ $failed = 0 ] || { echo "certify.sh: $failed failing ($summary; $work/logs)" >&2; exit 1; }
exit 0
