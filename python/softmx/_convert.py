"""Element conversions of whole arrays: convert and decode."""

from __future__ import annotations

from typing import Optional

import numpy as np

from . import _softmx
from ._arrays import as_codes, as_random, as_values, host_target, int_arg, name_arg, threads_arg


def convert(x, to: str, *, src: Optional[str] = None, round: Optional[str] = None, sat: Optional[str] = None,
            dialect: str = "ocp", tininess: str = "after", rbits: Optional[int] = None, random=None,
            flags: bool = False, threads: Optional[int] = None):
    """Converts every element of `x` into the format `to`, bit-exact (docs/SEMANTICS.md).

    x: a float64, float32 or float16 array (anything numpy.asarray takes: lists, buffers,
        torch CPU tensors), or, with `src`, an array of codes of the format `src` (unsigned
        integers; bf16 data is its uint16 bits with src="bf16"; FP8 codes as uint8 with
        src="e4m3"; a signed view of the same size, such as torch's int16, is read as bits).
    to: the destination format's name ("e4m3", "float8_e4m3fn", "fp4", "bf16", "e8m0", ...;
        softmx.formats() lists them).
    round: "rne", "rna", "rz", "ru", "rd", "ro" or "rs" (stochastic: give `random`); None
        (default): the dialect's default for the destination, as `softmx convert` without
        --round (softmx.dialect_info(d).destinations[to]["default_rounding"]: rne under ocp;
        ru into e8m0 under cuda and transformer-engine; rna into the MX elements under
        microxcaling).
    sat: "finite" (overflow and Inf give the largest finite value), "none" (overflow gives Inf,
        or NaN where the format has no Inf), or None (default): the CLI's default for the
        destination under the dialect (softmx.dialect_info(d).destinations[to]
        ["default_saturation"]; `softmx convert` without --sat does the same).
    dialect: "ocp" (default), "cuda", "torchao", ...: softmx.dialects() lists them.
    tininess: "after" (default) or "before" rounding, for the underflow flag.
    rbits: round="rs" only: the number of random bits per element, an integer from 1 to 64
        (default 32), as the CLI's --rbits.
    random: round="rs" only: the random bits, unsigned integers below 2**rbits, one per element
        (any shape that broadcasts to x's).
    flags: also return the exception flags of each element (uint8: 0x01 inexact, 0x02
        underflow, 0x04 overflow, 0x10 invalid).
    threads: worker threads, an integer from 1 to 1024; None uses every core. The result does
        not depend on it.

    Returns the codes, an array of x's shape: uint8 for formats of at most 8 bits (MX
    elements, e8m0), uint16 for f16 and bf16, uint32 for f32, uint64 for f64; or (codes, flags).
    `x` is never modified; a C-contiguous x of a float dtype (or of the codes' storage dtype)
    is read in place.

    Raises ValueError for unknown names, codes out of range, options a dialect does not accept
    for the destination (cuda with rz into e4m3), rbits or random without round="rs", rbits or
    threads out of range; TypeError for arrays of other dtypes and for an rbits or threads that
    is not an integer (a Python int or a numpy integer scalar).
    """
    codes, src_name = as_codes(x, src)
    to = name_arg(to, "to")
    rbits = int_arg(rbits, "rbits", optional=True, lo=1, hi=64)
    rnd = None if random is None else as_random(random, codes.shape)
    out, fl = _softmx.convert(codes, src_name, to, name_arg(round, "round", True), name_arg(sat, "sat", True),
                              name_arg(tininess, "tininess"), name_arg(dialect, "dialect"), rbits, rnd, bool(flags),
                              threads_arg(threads))
    return (out, fl) if flags else out


def decode(codes, src: str, to="f32", *, round: Optional[str] = None, sat: Optional[str] = None,
           dialect: str = "ocp", tininess: str = "after", flags: bool = False, threads: Optional[int] = None):
    """The values of `codes` of the format `src`, as an array of `to`.

    codes: unsigned-integer codes of `src` (uint8 for the MX formats and e8m0; any integer dtype
        whose values are in range).
    to: "f32" (default), "f64", "f16", "bf16", or numpy.float32/float64/float16. Every MX code
        is exact in f32 and f64 (e8m0's 2^-127 too), so those never round; f16 and bf16 may
        (round, sat, tininess and threads as in convert; round=None is the dialect's default).
    Returns a float32/float64/float16 array of codes' shape (bf16: its uint16 bits), or
    (values, flags) with flags=True.
    """
    dst = host_target(to)
    src = name_arg(src, "src")
    out = convert(codes, dst, src=src, round=round, sat=sat, dialect=dialect, tininess=tininess, flags=flags,
                  threads=threads)
    if flags:
        return as_values(out[0], dst), out[1]
    return as_values(out, dst)
