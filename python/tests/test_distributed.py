"""softmx.distributed: sweeps sharded over a dask.distributed LocalCluster, merged (docs/SHARDING.md).

Every merged table is compared byte for byte with the single run it stands for: softmx.sweep
over the same inputs, or the stand-in device called once over every input. The cluster is real:
worker processes (processes=True, one thread each) that import the build tree's softmx through
the PYTHONPATH ctest sets (python/tests/CMakeLists.txt), checked by the `cluster` fixture.
"""

import os
import subprocess
import sys

import numpy as np
import pytest

import softmx

WORKERS = 3


@pytest.fixture(scope="module")
def dd():
    """dask.distributed, or a skip saying it is missing (the tests without a cluster still run)."""
    return pytest.importorskip(
        "distributed", reason="dask.distributed is not installed (Debian: apt-get install python3-distributed "
                              "python3-dask): softmx.distributed's sweeps are not tested")


@pytest.fixture(scope="module")
def client(dd):
    """A LocalCluster of WORKERS worker processes, one thread each, shared by the module's tests."""
    import logging
    with dd.LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True, dashboard_address=None,
                                  scheduler_kwargs={"dashboard": False, "dashboard_address": ":0"},
                                  silence_logs=logging.ERROR) as cluster, dd.Client(cluster) as c:
        # The workers are other processes, and import the same (build tree's) softmx as this one.
        here = os.path.realpath(softmx.__file__)
        where = c.run(lambda: (os.getpid(), os.path.realpath(__import__("softmx").__file__)))
        assert len(where) == WORKERS
        assert {w for _, w in where.values()} == {here}
        assert os.getpid() not in {p for p, _ in where.values()}
        yield c


def read(path):
    with open(path, "rb") as f:
        return f.read()


def test_import_softmx_does_not_import_dask():
    code = ("import sys, softmx\n"
            "assert 'dask' not in sys.modules and 'distributed' not in sys.modules, 'dask imported'\n"
            "d = softmx.distributed\n"
            "assert d is softmx.distributed and d.sweep and d.Shard\n"
            "assert 'dask' not in sys.modules and 'distributed' not in sys.modules, 'dask imported'\n"
            "from softmx import distributed\n"
            "assert distributed is d\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_plan_is_the_cli_shards():
    w = 32
    shards = softmx.distributed.plan("f32", "e4m3", shards=7)
    assert [(s.index, s.count) for s in shards] == [(i, 7) for i in range(7)]
    assert shards[0].first == 0 and shards[-1].last == (1 << w) - 1
    for a, b in zip(shards, shards[1:]):
        assert b.first == a.last + 1
    # The header is the one `softmx sweep --shard I/N` writes (sweep's own, with the defaults resolved).
    t = softmx.sweep("f16", "e2m1", shard=(3, 5))
    s = softmx.distributed.plan("f16", "e2m1", shards=5)[3]
    assert s.header == t.header and (s.first, s.last) == (t.first, t.last)
    assert (s.round, s.sat, s.dialect) == ("rne", "finite", "ocp")
    # within=(k, M): shards k*S..k*S+S-1 of M*S, covering softmx.sweep(shard=(k, M))'s inputs.
    sub = softmx.distributed.plan("f32", "e2m1", shards=4, within=(1016, 4096))
    assert [(s.index, s.count) for s in sub] == [(1016 * 4 + j, 4096 * 4) for j in range(4)]
    assert sub[0].first == 1016 << 20 and sub[-1].last == (1017 << 20) - 1
    with pytest.raises(ValueError, match=r"shards: 17 shards of a 4-bit source would leave some empty"):
        softmx.distributed.plan("e2m1", "e4m3", shards=17)
    with pytest.raises(ValueError, match=r"shards: 32 shards of a 4-bit source"):
        softmx.distributed.plan("e2m1", "e4m3", shards=8, within=(1, 4))
    assert [s.first for s in softmx.distributed.plan("e2m1", "e4m3", shards=4, within=(1, 4))] == [4, 5, 6, 7]
    assert len(softmx.distributed.plan("e2m1", "e4m3", shards=16)) == 16
    with pytest.raises(ValueError):
        softmx.distributed.plan("f16", "e4m3", shards=2, dialect="no-such-dialect")


def test_f16_e4m3_merged_is_the_single_sweep(client, tmp_path):
    single = softmx.sweep("f16", "e4m3", progress=False)
    out = tmp_path / "f16-e4m3.runs"
    t = softmx.distributed.sweep("f16", "e4m3", shards=8, client=client, out=out, threads=1)
    assert read(out) == single.text  # byte for byte (about 3 KB, 2^16 inputs)
    assert (t.first, t.last, t.lines) == (0, 0xFFFF, single.lines)
    assert not os.path.exists(str(out) + ".shards")  # the shard tables are removed after the merge
    # out=None: the text, through a temporary folder that is removed.
    t2 = softmx.distributed.sweep("f16", "e4m3", shards=3, client=client, threads=1, round="rz", sat="none")
    assert t2.text == softmx.sweep("f16", "e4m3", round="rz", sat="none", progress=False).text


def test_20_bit_source_and_f32_sub_range(client, tmp_path):
    # e8m11: a 20-bit source (2^20 inputs), every input.
    single = softmx.sweep("e8m11", "e2m1", progress=False)
    t = softmx.distributed.sweep("e8m11", "e2m1", shards=6, client=client, out=tmp_path / "a.runs", threads=1,
                                 keep=True)
    assert read(tmp_path / "a.runs") == single.text
    kept = sorted(os.listdir(tmp_path / "a.runs.shards"))
    assert kept == sorted(f"shard-{i}-of-6.runs" for i in range(6))
    # Each kept shard table is `softmx sweep --shard I/6`'s, byte for byte.
    assert read(tmp_path / "a.runs.shards" / "shard-4-of-6.runs") == softmx.sweep("e8m11", "e2m1", shard=(4, 6)).text
    assert t.lines == single.lines
    # f32 -> e2m1 over 2^20 inputs from 1.0 (0x3F800000 = shard 1016 of 4096), in 4 shards.
    single = softmx.sweep("f32", "e2m1", shard=(1016, 4096), dialect="cuda", progress=False)
    t = softmx.distributed.sweep("f32", "e2m1", shards=4, within=(1016, 4096), dialect="cuda", client=client,
                                 threads=1)
    assert t.text == single.text and (t.first, t.last) == (0x3F800000, 0x3F8FFFFF)


def test_local_cluster_made_and_closed(dd, tmp_path):
    # client=None: a LocalCluster of 2 worker processes made here and closed.
    out = tmp_path / "bf16.runs"
    softmx.distributed.sweep("bf16", "e5m2", shards=4, workers=2, out=out, dialect="torchao")
    assert read(out) == softmx.sweep("bf16", "e5m2", dialect="torchao", progress=False).text


def make_device(dialect, fail_on=None, fail_once_marker=None):
    """A stand-in device: converts its shard's inputs with softmx under `dialect` and writes its
    results through shard.writer(), 4096 inputs at a time (what a simulator's loop would do).
    The header is the function under test's (shard.header), the results the device's."""

    def device(shard):
        if fail_on is not None and shard.index == fail_on:
            raise RuntimeError(f"simulator crashed at input {shard.first:04X}")
        if fail_once_marker is not None and not os.path.exists(fail_once_marker):
            open(fail_once_marker, "w").close()
            raise RuntimeError("license server unreachable")
        with shard.writer() as w:
            for x in shard.inputs(chunk=4096):
                out, fl = softmx.encode(x, shard.to, src=shard.src, round=shard.round, sat=shard.sat,
                                         tininess=shard.tininess, dialect=dialect, flags=True)
                w.add(out, fl)

    return device


def whole_range_shard(src, to, path, **kw):
    import dataclasses
    return dataclasses.replace(softmx.distributed.plan(src, to, shards=1, **kw)[0], path=str(path))


def test_run_shard_without_dask(tmp_path):
    # plan() and run_shard() need no dask: what a Slurm array task in Python would run, shard by shard.
    device = make_device("ml_dtypes")
    device(whole_range_shard("f16", "e2m1", tmp_path / "single.runs"))
    shards = softmx.distributed.plan("f16", "e2m1", shards=3, folder=tmp_path)
    infos = [softmx.distributed.run_shard(s, device) for s in reversed(shards)]
    assert [i["index"] for i in infos] == [2, 1, 0] and not any(i["reused"] for i in infos)
    assert softmx.merge([s.table for s in shards]).text == read(tmp_path / "single.runs")
    assert sorted(os.listdir(tmp_path)) == ["shard-0-of-3.runs", "shard-1-of-3.runs", "shard-2-of-3.runs",
                                            "single.runs"]  # no temporary file left
    assert softmx.distributed.run_shard(shards[1], device, resume=True)["reused"]
    # softmx itself (shard_fn None): `softmx sweep --shard I/N`'s table.
    softmx.distributed.run_shard(shards[1], threads=1)
    assert read(shards[1].table) == softmx.sweep("f16", "e2m1", shard=(1, 3)).text
    # A RunWriter: results of the wrong count or shape are refused, naming the shard.
    import dataclasses
    s = dataclasses.replace(shards[0], path=str(tmp_path / "w.runs"))
    with pytest.raises(ValueError, match=r"shard 0 of 3 \(inputs 0000\.\.5554\): 30000 results given where 21845"):
        with s.writer() as w:
            w.add(np.zeros(30000, np.uint8), np.zeros(30000, np.uint8))
    assert not os.path.exists(s.path)  # removed on error
    with pytest.raises(ValueError, match="flags missing"):
        with s.writer() as w:
            w.add(np.zeros(3, np.uint8))
    with s.writer(flags=False) as w:  # a device without flags
        for x in s.inputs(chunk=1000):
            w.add(softmx.encode(x, "e2m1", src="f16"))
    assert softmx.distributed.run_shard(s, lambda sh: os.replace(s.path, sh.path))["lines"] > 0


def test_shard_fn_merges_to_the_single_device_run(client, tmp_path):
    device = make_device("ml_dtypes")
    # One run of the device over every f16 input: the reference.
    device(whole_range_shard("f16", "e4m3", tmp_path / "single.runs"))
    single = read(tmp_path / "single.runs")
    out = tmp_path / "device.runs"
    t = softmx.distributed.sweep("f16", "e4m3", shards=5, client=client, out=out, shard_fn=device)
    assert read(out) == single
    assert t.lines == single.count(b"\n") - single.count(b"# ") - 13  # header lines
    # The device is not softmx: its table differs from softmx's (ocp) where ml_dtypes does (NaN codes).
    ocp = softmx.sweep("f16", "e4m3", progress=False)
    d = softmx.diff(str(out), ocp)
    assert not d and d.differing_inputs > 0
    assert d.differences == softmx.diff(softmx.sweep("f16", "e4m3", dialect="ml_dtypes", sat="finite"), ocp).differences
    # A device that writes one line per input (a simulator log): not canonical, merged the same.
    def log_device(shard):
        with open(shard.path, "w") as f:
            f.write(shard.header)
            for x in shard.inputs():
                out_, fl = softmx.encode(x, shard.to, src=shard.src, round=shard.round, sat=shard.sat,
                                          dialect="ml_dtypes", flags=True)
                f.writelines(f"{i:04X} {o:02X} {g:02X}\n" for i, o, g in zip(x.tolist(), out_.tolist(), fl.tolist()))
    softmx.distributed.sweep("f16", "e4m3", shards=4, client=client, out=out, shard_fn=log_device)
    assert read(out) == single


def test_failed_shard_is_named_and_nothing_merged(client, tmp_path):
    out = tmp_path / "x.runs"
    with pytest.raises(softmx.distributed.ShardError,
                       match=r"1 of 4 shards failed, nothing was merged.*\n  shard 2 of 4 \(inputs 8000\.\.BFFF\): "
                             r"RuntimeError: simulator crashed at input 8000") as e:
        softmx.distributed.sweep("f16", "e4m3", shards=4, client=client, out=out, shard_fn=make_device("ocp", 2))
    assert not out.exists()
    assert [s.index for s in e.value.failed] == [2]
    assert isinstance(e.value.__cause__, RuntimeError)
    # The other shards' tables are complete and kept; resume=True computes only the failed one.
    assert sorted(os.listdir(tmp_path / "x.runs.shards")) == ["shard-0-of-4.runs", "shard-1-of-4.runs",
                                                              "shard-3-of-4.runs"]
    def only_shard_2(shard):
        assert shard.index == 2, f"shard {shard.index} computed again"
        make_device("ocp")(shard)
    softmx.distributed.sweep("f16", "e4m3", shards=4, client=client, out=out, shard_fn=only_shard_2, resume=True)
    assert read(out) == softmx.sweep("f16", "e4m3", progress=False).text


def test_wrong_tables_fail_their_shard(client, tmp_path):
    def whole_table(shard):  # the whole table's header, not the shard's range
        with open(shard.path, "wb") as f:
            f.write(softmx.sweep(shard.src, shard.to, progress=False).text)
    with pytest.raises(softmx.distributed.ShardError, match=r"shard 1 of 2 \(inputs 8000\.\.FFFF\): ValueError: "
                                                            r".*not this shard's: its header has 'first = 0000'"):
        softmx.distributed.sweep("f16", "e4m3", shards=2, client=client, shard_fn=whole_table)

    def other_function(shard):  # a table of another rounding
        with open(shard.path, "wb") as f:
            f.write(softmx.sweep(shard.src, shard.to, round="rz", shard=(shard.index, shard.count)).text)
    with pytest.raises(softmx.distributed.ShardError, match=r"(?s)2 of 2 shards failed.*'rounding = rz'"):
        softmx.distributed.sweep("f16", "e4m3", shards=2, client=client, shard_fn=other_function)

    def short(shard):  # the results of the last inputs missing
        with shard.writer() as w:
            w.add(np.zeros(10, np.uint8), np.zeros(10, np.uint8))
    with pytest.raises(softmx.distributed.ShardError, match=r"no results for inputs 000A\.\.7FFF"):
        softmx.distributed.sweep("f16", "e4m3", shards=2, client=client, shard_fn=short)

    def nothing(shard):
        pass
    with pytest.raises(softmx.distributed.ShardError, match="without writing its table"):
        softmx.distributed.sweep("f16", "e4m3", shards=2, client=client, shard_fn=nothing)


def test_retries_are_dasks(client, tmp_path):
    marker = str(tmp_path / "failed-once")
    out = tmp_path / "r.runs"
    softmx.distributed.sweep("f16", "e2m1", shards=1, client=client, out=out, retries=1,
                             shard_fn=make_device("ocp", fail_once_marker=marker))
    assert os.path.exists(marker)
    assert read(out) == softmx.sweep("f16", "e2m1", progress=False).text
    os.remove(marker)
    with pytest.raises(softmx.distributed.ShardError, match="license server unreachable"):
        softmx.distributed.sweep("f16", "e2m1", shards=1, client=client, out=out, retries=0,
                                 shard_fn=make_device("ocp", fail_once_marker=marker))


@pytest.mark.long
def test_f32_every_input(client, tmp_path):
    # Every one of the 2^32 f32 inputs into e2m1 in 16 shards: the single sweep's bytes.
    out = tmp_path / "f32-e2m1.runs"
    softmx.distributed.sweep("f32", "e2m1", shards=16, client=client, out=out, threads=1)
    assert read(out) == softmx.sweep("f32", "e2m1", progress=False).text
