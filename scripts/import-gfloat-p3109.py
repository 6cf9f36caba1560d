#!/usr/bin/env python3
"""Imports gfloat's IEEE P3109 results into softmx run tables (vectors/peers/gfloat-p3109/).

Usage: scripts/import-gfloat-p3109.py RESULTS_DIR [OUT_DIR]

RESULTS_DIR holds gfloat's results as the driver in vectors/peers/gfloat-p3109/README.md writes
them: one text file per format, rounding and saturation, `binary8pPse-MODE-SAT.txt` (MODE rne rna
rz ru rd, SAT none or finite), 65536 lines `BBBB CC`: a bf16 input and the P3109 code gfloat gave
(round_float then encode_float). Each becomes OUT_DIR/binary8pPse/bf16-MODE-SAT.runs, a softmx run
table without flags (vectors/README.md 5: gfloat has no flags), under the p3109 dialect, and
OUT_DIR/MANIFEST lists, for each, the SHA-256 of the source text and of the table. Only data is
written: no gfloat code. The tables are canonical (adjacent runs differ), so the same results
give the same bytes.
"""
import hashlib
import os
import re
import sys

GFLOAT_REPO = "github.com/graphcore-research/gfloat"
GFLOAT_COMMIT = "b142762de8d091d658e59b1341d33003d2907d6e"
MODES = ["rne", "rna", "rz", "ru", "rd"]
SATS = ["none", "finite"]
GFLOAT_MODE = {"rne": "TiesToEven", "rna": "TiesToAway", "rz": "TowardZero", "ru": "TowardPositive",
               "rd": "TowardNegative"}
NAME = re.compile(r"^binary8p([345])se-(rne|rna|rz|ru|rd)-(none|finite)\.txt$")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def table(fmt: str, mode: str, sat: str, lines, source: str, source_sha: str) -> str:
    head = [
        "softmx-vectors = 1",
        "operation = convert",
        "layout = runs",
        "from = bf16",
        f"to = {fmt}",
        f"rounding = {mode}",
        f"saturation = {sat}",
        "tininess = after",
        "dialect = p3109",
        "first = 0000",
        "last = FFFF",
        "level = exhaustive",
        f"generator = gfloat {GFLOAT_COMMIT[:7]} (round_float, encode_float), imported by scripts/import-gfloat-p3109.py",
        f"x-peer = gfloat ({GFLOAT_REPO} {GFLOAT_COMMIT})",
        f"x-peer-call = encode_float(fi, round_float(fi, v, RoundMode.{GFLOAT_MODE[mode]}, sat={sat == 'finite'})), "
        f"fi = format_info_p3109(8, {fmt[8]}, Signedness.Signed, Domain.Extended)",
        f"x-source = {source} sha256 {source_sha}",
        "# FIRST OUT (gfloat has no flags)",
    ]
    out = []
    prev = None
    expect = 0
    for line in lines:
        b, c = line.split()
        x, code = int(b, 16), int(c, 16)
        if x != expect or not 0 <= code <= 0xFF:
            raise SystemExit(f"{source}: line {expect + 1}: expected input {expect:04X}, got {line!r}")
        expect += 1
        if code != prev:
            out.append(f"{x:04X} {code:02X}")
            prev = code
    if expect != 65536:
        raise SystemExit(f"{source}: {expect} lines where 65536 are expected")
    return "\n".join(head + out) + "\n"


def main() -> int:
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    src = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[2] if len(sys.argv) == 3 else os.path.normpath(os.path.join(here, "..", "vectors", "peers", "gfloat-p3109"))
    found = sorted(f for f in os.listdir(src) if NAME.match(f))
    if len(found) != 30:
        print(f"{src}: {len(found)} result files where 30 (binary8p{{3,4,5}}se x 5 roundings x 2) are expected",
              file=sys.stderr)
        return 1
    manifest = [
        "# gfloat's IEEE P3109 results as softmx run tables (vectors/peers/gfloat-p3109/README.md)",
        f"peer = gfloat, {GFLOAT_REPO} {GFLOAT_COMMIT} (2026-04-18)",
        "command = scripts/import-gfloat-p3109.py RESULTS_DIR (RESULTS_DIR: the driver of README.md run on gfloat's src/)",
        "# sha256  file  (source-sha256  source: gfloat's text, not committed)",
    ]
    for f in found:
        m = NAME.match(f)
        fmt, mode, sat = f"binary8p{m.group(1)}se", m.group(2), m.group(3)
        data = open(os.path.join(src, f), "rb").read()
        text = table(fmt, mode, sat, data.decode("ascii").splitlines(), f, sha256(data))
        rel = f"{fmt}/bf16-{mode}-{sat}.runs"
        os.makedirs(os.path.join(out, fmt), exist_ok=True)
        with open(os.path.join(out, rel), "w", newline="\n") as o:
            o.write(text)
        manifest.append(f"{sha256(text.encode())}  {rel}  {sha256(data)}  {f}")
    with open(os.path.join(out, "MANIFEST"), "w", newline="\n") as o:
        o.write("\n".join(manifest) + "\n")
    print(f"{len(found)} tables written under {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
