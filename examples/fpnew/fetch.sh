#!/usr/bin/env bash
# examples/fpnew/fetch.sh DIR [SNAPSHOT] [--cvfpu URL] [--common-cells URL]
#
# Makes a cvfpu (FPnew) work tree in DIR for certify.sh: clones cvfpu, checks out the snapshot's
# commit, applies its patches, and puts pulp-platform/common_cells at the tag the snapshot pins
# into DIR/src/common_cells. Nothing of cvfpu or common_cells is kept in softmx's repository.
#
# SNAPSHOT is COMMIT[+PATCH]...: the commit to check out, then each PATCH commit's own change
# (git diff PATCH^ PATCH) applied to the work tree, uncommitted. Default, the snapshot certified
# in vectors/rtl/fpnew/:
#
#   e34456c+0ad2cd7   feature/add_fp8alt_support, PR #131 ("Add FP8ALT (4,3) support", 2024-06-25) with
#                     the Inf fix of PR #140 (0ad2cd7 on develop, 2024-10-23). Has the underflow
#                     bug of issues #165/#166 (fixed by PR #168, 2026-05).
#
# A checkout that has PR #168 (cvfpu's master or develop after May 2026) is certified the same
# way: `git clone https://github.com/openhwgroup/cvfpu DIR && git -C DIR submodule update --init
# src/common_cells` (its own common_cells pin; FP8ALT only where its fpnew_pkg.sv has it).
#
# --cvfpu URL, --common-cells URL: other places to clone from (mirrors); defaults are GitHub's.
# The common_cells tag is v1.21.0 (6aeee85d0a34fedc06c14f04fd6363c9f7b4eeea, the commit cvfpu's
# src/common_cells submodule and Bender.yml pin at e34456c and 0ad2cd7).
set -euo pipefail
usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
dir= snapshot=e34456c+0ad2cd7
cvfpu_url=https://github.com/openhwgroup/cvfpu.git
cc_url=https://github.com/pulp-platform/common_cells.git
cc_tag=v1.21.0
while [ $# -gt 0 ]; do
  case $1 in
    --cvfpu) cvfpu_url=$2; shift 2 ;;
    --common-cells) cc_url=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "fetch.sh: unknown option $1" >&2; usage ;;
    *) if [ -z "$dir" ]; then dir=$1; else snapshot=$1; fi; shift ;;
  esac
done
[ -n "$dir" ] || usage
[ ! -e "$dir" ] || { echo "fetch.sh: $dir exists; give a new folder" >&2; exit 2; }

IFS=+ read -r -a parts <<< "$snapshot"
base=${parts[0]}
git clone -q "$cvfpu_url" "$dir"
# A commit no branch holds any more (a deleted feature branch) is still a pull request's head:
# fetch those refs when the clone does not have it (e34456c is PR #131's).
if ! git -C "$dir" cat-file -e "$base^{commit}" 2>/dev/null; then
  git -C "$dir" fetch -q origin '+refs/pull/*/head:refs/remotes/origin/pull/*'
fi
git -C "$dir" -c advice.detachedHead=false checkout -q "$base"
for p in "${parts[@]:1}"; do
  git -C "$dir" cat-file -e "$p^{commit}" 2>/dev/null || git -C "$dir" fetch -q origin '+refs/pull/*/head:refs/remotes/origin/pull/*'
  git -C "$dir" diff "$p^" "$p" | git -C "$dir" apply
  echo "fetch.sh: applied $(git -C "$dir" log -1 --format='%h %s' "$p")"
done
rm -rf "$dir/src/common_cells"
git clone -q "$cc_url" "$dir/src/common_cells"
git -C "$dir/src/common_cells" -c advice.detachedHead=false checkout -q "$cc_tag"
printf '%s\n' "$snapshot" > "$dir/.softmx-fpnew-snapshot"
echo "fetch.sh: $dir: cvfpu $(git -C "$dir" rev-parse --short HEAD) + $(( ${#parts[@]} - 1 )) patch(es) ($snapshot)," \
     "common_cells $cc_tag ($(git -C "$dir/src/common_cells" rev-parse HEAD))"
