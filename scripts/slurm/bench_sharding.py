#!/usr/bin/env python3
"""One run of a sharded sweep or of the single run it stands for, to be timed from outside
(docs/SHARDING.md, "Timings"): time the whole process, e.g.

    /usr/bin/time -v python3 scripts/slurm/bench_sharding.py single f16-e4m3
    /usr/bin/time -v python3 scripts/slurm/bench_sharding.py dask f16-e4m3 --workers 2 --shards 2

with PYTHONPATH naming build/python. Cases:
    f16-e4m3      every f16 input into e4m3 (2^16 inputs), softmx
    f32-2^24      f32 -> e4m3 over 2^24 inputs (0x3F000000..0x3FFFFFFF: shard 63 of 256), softmx
    device-2^24   the same 2^24 inputs through a stand-in device: a Python shard_fn that converts
                  with softmx (ml_dtypes) 2^16 inputs at a time and writes one line per input, as a
                  simulator's log would (single-threaded, CPU-bound: the kind of work sharding is for)
single: one process, no dask (softmx.sweep; for the device, the shard_fn called once over the
whole range). dask: softmx.distributed.sweep on a LocalCluster of --workers processes made and
closed by the call, --shards shards. Each run checks its table's SHA-256 against the single run's.
"""

import argparse
import dataclasses
import hashlib
import os
import sys
import tempfile

import softmx

WITHIN = (63, 256)


def log_device(shard):
    """A stand-in device: every input's result on its own line after the shard's header."""
    d_in = (softmx.format_info(shard.src).width + 3) // 4
    with open(shard.path, "w") as f:
        f.write(shard.header)
        for x in shard.inputs(chunk=1 << 16):
            out, fl = softmx.encode(x, shard.to, src=shard.src, round=shard.round, sat=shard.sat,
                                     dialect="ml_dtypes", flags=True, threads=1)
            f.writelines(f"{i:0{d_in}X} {o:02X} {g:02X}\n" for i, o, g in zip(x.tolist(), out.tolist(), fl.tolist()))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("mode", choices=["single", "dask"])
    p.add_argument("case", choices=["f16-e4m3", "f32-2^24", "device-2^24"])
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--shards", type=int, default=1)
    a = p.parse_args()
    src, to, within = ("f16", "e4m3", None) if a.case == "f16-e4m3" else ("f32", "e4m3", WITHIN)
    device = log_device if a.case == "device-2^24" else None
    with tempfile.TemporaryDirectory(prefix="softmx-bench-") as d:
        out = os.path.join(d, "table.runs")
        if a.mode == "single" and device is None:
            softmx.sweep(src, to, shard=within, out=out, progress=False)
        elif a.mode == "single":
            s = softmx.distributed.plan(src, to, shards=1, within=within, folder=d)[0]
            device(dataclasses.replace(s, path=os.path.join(d, "log.runs")))
            softmx.merge([os.path.join(d, "log.runs")], out=out)
        else:
            softmx.distributed.sweep(src, to, shards=a.shards, workers=a.workers, within=within, out=out,
                                     shard_fn=device)
        with open(out, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
    print(f"{a.mode} {a.case} workers={a.workers} shards={a.shards} sha256={digest}")


if __name__ == "__main__":
    sys.exit(main())
