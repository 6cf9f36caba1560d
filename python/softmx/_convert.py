"""Element conversions of whole arrays: convert (values), encode (codes) and decode."""

from __future__ import annotations

import warnings
from typing import Optional

import numpy as np

from . import _softmx
from ._info import RuntimeFormatWarning
from ._arrays import (_FLOAT_FORMAT, _dtype_like, as_codes, as_random, as_values, check_out, float_dtype, format_arg,
                      host_target, int_arg, name_arg, storage_dtype, threads_arg, value_dtype)


def convert(x, to, *, src=None, round: Optional[str] = None, sat: Optional[str] = None, dialect: str = "ocp",
            tininess: str = "after", rbits: Optional[int] = None, random=None, flags: bool = False,
            threads: Optional[int] = None, out=None):
    """The values of every element of `x` converted into the format `to`, bit-exact
    (docs/SEMANTICS.md): values in, values out, as numpy's astype (softmx.encode gives the codes).

    x: a float64, float32 or float16 array (anything numpy.asarray takes: lists, buffers,
        torch CPU tensors), or, with `src`, an array of codes of the format `src` (unsigned
        integers; bf16 data is its uint16 bits with src="bf16"; FP8 codes as uint8 with
        src="e4m3"; a signed view of the same size, such as torch's int16, is read as bits).
    to: the destination: a format name or spec ("f16", "bf16", "e4m3", "float8_e4m3fn", "fp4",
        "e8m0", "e4m3fnuz", ...; softmx.formats() lists them), or a numpy dtype: numpy.float16,
        float32, float64 ("f16", "f32", "f64"; ml_dtypes' types too when it is installed).
        src takes the same.
    round, sat, dialect, tininess, rbits, random, threads: as softmx.encode (the same options,
        the same defaults, the same conversion).
    flags: also return the exception flags of each element (uint8: 0x01 inexact, 0x02
        underflow, 0x04 overflow, 0x10 invalid).
    out: numpy's out=: a C-contiguous, writeable array of the result's dtype and x's shape,
        written in place and returned (TypeError for another dtype: out= does not cast;
        ValueError for another shape, a non-contiguous or read-only array).

    Returns the values, an array of x's shape (or (values, flags)), of the dtype that holds
    every value of `to` exactly:
      f16, f32, f64 (or numpy.float16/32/64)  float16, float32, float64;
      a numpy dtype (ml_dtypes' bfloat16, float8_e4m3fn, ...)  that dtype;
      bf16, the MX elements (e4m3, e5m2, e3m2, e2m3, e2m1, int8), e8m0 and every runtime
        spec within float32's range  float32 (numpy has no bfloat16: these are exactly the bf16
        values; softmx.encode(x, "bf16") gives its uint16 bits);
      a runtime spec beyond float32's range (a large bias)  float64.
    The values are the codes of `to` decoded (exactly) by the library: NaN where `to` gives
    NaN, +-Inf where it gives Inf.

    Raises as softmx.encode: ValueError for unknown names, codes out of range and options a
    dialect does not accept; TypeError for arrays of other dtypes and arguments of the wrong type.
    """
    codes, src_name = as_codes(x, src)
    to_name = format_arg(to, "to")
    named = _dtype_like(to)
    values = _value_dtype(to_name, src_name)
    host = _FLOAT_FORMAT.get(values)
    own = float_dtype(to_name) or (named if named is not None and named.itemsize == storage_dtype(to_name).itemsize
                                   else None)
    result = own if own is not None else values
    if out is not None:
        out = check_out(out, codes.shape, result)
    if own is not None:  # a numpy dtype of its own: its codes are its values
        res, fl = _encode(codes, src_name, to_name, round, sat, dialect, tininess, rbits, random, flags, threads,
                          out.view(storage_dtype(to_name)) if out is not None else None)
        res = res.view(own)
    else:  # the codes, decoded exactly into float32 or float64 by the library
        c, fl = _encode(codes, src_name, to_name, round, sat, dialect, tininess, rbits, random, flags, threads)
        with warnings.catch_warnings():  # said once, by the conversion above
            warnings.simplefilter("ignore", RuntimeFormatWarning)
            res, _ = _encode(c, to_name, host, None, None, dialect, "after", None, None, False, threads,
                             out.view(storage_dtype(host)) if out is not None else None)
        res = res.view(result)
    if out is not None:
        res = out
    return (res, fl) if flags else res


def _value_dtype(to: str, src: str) -> np.dtype:
    """value_dtype(to); a spec the library refuses raises the library's own message naming
    the argument `to` (as encode does), not format_info's."""
    try:
        with warnings.catch_warnings():  # the conversion itself says it once (RuntimeFormatWarning)
            warnings.simplefilter("ignore", RuntimeFormatWarning)
            return value_dtype(to)
    except ValueError:
        _softmx.convert(np.empty(0, storage_dtype(src)), src, to, None, None, "after", "ocp", None, None, False, 1)
        raise


def encode(x, to, *, src: Optional[str] = None, round: Optional[str] = None, sat: Optional[str] = None,
            dialect: str = "ocp", tininess: str = "after", rbits: Optional[int] = None, random=None,
            flags: bool = False, threads: Optional[int] = None, out=None):
    """The codes of every element of `x` converted into the format `to`, bit-exact
    (docs/SEMANTICS.md): what softmx.convert computes, as the destination's codes (its bits)
    instead of values. This was softmx.convert before issue 29 (convert now returns values).

    x: a float64, float32 or float16 array (anything numpy.asarray takes: lists, buffers,
        torch CPU tensors), or, with `src`, an array of codes of the format `src` (unsigned
        integers; bf16 data is its uint16 bits with src="bf16"; FP8 codes as uint8 with
        src="e4m3"; a signed view of the same size, such as torch's int16, is read as bits).
    to: the destination format's name ("e4m3", "float8_e4m3fn", "fp4", "bf16", "e8m0", ...;
        softmx.formats() lists them), or a numpy dtype that is one (numpy.float16 is "f16";
        ml_dtypes' types when it is installed). src takes the same.
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
    tininess: "after" (default) or "before" rounding, for the underflow flag, or
        "after-bounded" (the delivered result below the smallest normal: FPnew before
        openhwgroup/cvfpu PR 168; docs/SEMANTICS.md 5.3).
    rbits: round="rs" only: the number of random bits per element, an integer from 1 to 64
        (default 32), as the CLI's --rbits.
    random: round="rs" only: the random bits, unsigned integers below 2**rbits, one per element
        (any shape that broadcasts to x's).
    flags: also return the exception flags of each element (uint8: 0x01 inexact, 0x02
        underflow, 0x04 overflow, 0x10 invalid).
    threads: worker threads, an integer from 1 to 1024; None uses every core. The result does
        not depend on it.
    out: numpy's out=: a C-contiguous, writeable array of the codes' dtype and x's shape that
        the library writes the codes into (TypeError for another dtype, ValueError for another
        shape, a non-contiguous or read-only array); it is returned.

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
    to = format_arg(to, "to")
    if out is not None:
        out = check_out(out, codes.shape, storage_dtype(to))
    res, fl = _encode(codes, src_name, to, round, sat, dialect, tininess, rbits, random, flags, threads, out)
    return (res, fl) if flags else res


def _encode(codes, src_name, to, round, sat, dialect, tininess, rbits, random, flags, threads, out=None):
    """One library conversion of `codes` (src_name's storage) into `to`'s codes: (codes, flags).
    `out` (checked) receives them: written in place, or copied in when it shares memory with
    the input (the library's kernels read and write element by element)."""
    rbits = int_arg(rbits, "rbits", optional=True, lo=1, hi=64)
    rnd = None if random is None else as_random(random, codes.shape)
    direct = out is not None and not np.may_share_memory(out, codes)
    res, fl = _softmx.convert(codes, src_name, to, name_arg(round, "round", True), name_arg(sat, "sat", True),
                              name_arg(tininess, "tininess"), name_arg(dialect, "dialect"), rbits, rnd, bool(flags),
                              threads_arg(threads), **({"out": out.view(storage_dtype(to))} if direct else {}))
    if out is not None:
        if not direct:
            np.copyto(out, res.view(out.dtype))
        res = out
    return res, fl


def decode(codes, src, to="f32", *, round: Optional[str] = None, sat: Optional[str] = None,
           dialect: str = "ocp", tininess: str = "after", flags: bool = False, threads: Optional[int] = None,
           out=None):
    """The values of `codes` of the format `src`, as an array of `to`.

    codes: unsigned-integer codes of `src` (uint8 for the MX formats and e8m0; any integer dtype
        whose values are in range).
    to: "f32" (default), "f64", "f16", "bf16", or numpy.float32/float64/float16. Every MX code
        is exact in f32 and f64 (e8m0's 2^-127 too), so those never round; f16 and bf16 may
        (round, sat, tininess and threads as in convert; round=None is the dialect's default).
    out: numpy's out=: a C-contiguous, writeable array of the result's dtype (float32, float64,
        float16; uint16 for bf16) and codes' shape, written in place and returned.
    Returns a float32/float64/float16 array of codes' shape (bf16: its uint16 bits), or
    (values, flags) with flags=True.
    """
    dst = host_target(to)
    src = format_arg(src, "src")
    res = encode(codes, dst, src=src, round=round, sat=sat, dialect=dialect, tininess=tininess, flags=flags,
                 threads=threads, out=None if out is None else check_out(out, np.shape(codes), as_values(
                     np.empty(0, storage_dtype(dst)), dst).dtype).view(storage_dtype(dst)))
    if flags:
        return (out if out is not None else as_values(res[0], dst)), res[1]
    return out if out is not None else as_values(res, dst)
