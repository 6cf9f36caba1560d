"""numpy arrays in, the library's storage arrays out (internal).

The extension reads C-contiguous arrays of unsigned integers of a format's storage size
(uint8 for formats of at most 8 bits, uint16, uint32, uint64). These helpers give it a view of
the caller's array when the array already is one (a C-contiguous float32 array is read as
uint32 in place: no copy), and otherwise one copy. They never write to the caller's array.
"""

from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from ._info import format_info

_STORAGE = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
_FLOAT_FORMAT = {np.dtype(np.float64): "f64", np.dtype(np.float32): "f32", np.dtype(np.float16): "f16"}
_FORMAT_FLOAT = {v: k for k, v in _FLOAT_FORMAT.items()}


def storage_dtype(fmt: str) -> np.dtype:
    """The numpy dtype of the codes of `fmt` in arrays."""
    return _STORAGE[format_info(fmt).storage_bytes]


def float_dtype(fmt: str) -> Optional[np.dtype]:
    """numpy's float dtype for f64, f32, f16; None for the others (bf16 has none)."""
    return _FORMAT_FLOAT.get(format_info(fmt).name)


def _c_order(a: np.ndarray) -> np.ndarray:
    # np.asarray keeps 0-d arrays 0-d (np.ascontiguousarray would make them 1-d) and copies
    # only when the array is not C-contiguous.
    return np.asarray(a, order="C")


def as_codes(x, src: Optional[str], what: str = "x") -> Tuple[np.ndarray, str]:
    """`x` as a C-contiguous array of `src`'s storage type, and src's canonical name.

    Without src, x must hold floats: float64, float32 or float16 arrays are f64, f32 and f16
    (and a dtype whose name the library knows, such as ml_dtypes' bfloat16, is that format).
    With src, x holds codes: unsigned integers in 0 .. 2**width - 1, any integer dtype (signed
    dtypes of the storage size are read as the codes' bits: an int16 view of bf16 data works);
    or floats of the matching dtype (src="f32" with a float32 array).
    """
    a = np.asarray(x)
    if src is None:
        if a.dtype in _FLOAT_FORMAT:
            name = _FLOAT_FORMAT[a.dtype]
        elif a.dtype.kind in "ui":
            raise TypeError(f"{what} holds integers ({a.dtype}); give src=... to say which format's codes they are "
                            f"(for example src='bf16' for bfloat16 bits as uint16, src='e4m3' for FP8 codes)")
        else:
            name = _named_dtype(a.dtype)
            if name is None:
                raise TypeError(f"{what}: expected a float64, float32 or float16 array, or unsigned-integer codes "
                                f"with src=..., got dtype {a.dtype}")
        st = storage_dtype(name)
        return _c_order(a).view(st), name
    src = format_arg(src, "src")
    info = format_info(src)
    st = _STORAGE[info.storage_bytes]
    if a.dtype.kind == "f" or _named_dtype(a.dtype) is not None:
        own = _FLOAT_FORMAT.get(a.dtype) or _named_dtype(a.dtype)
        if own is None:
            raise TypeError(f"{what}: expected codes of {info.name} as {st} (or a float64, float32 or float16 "
                            f"array of that format), got dtype {a.dtype}")
        if own != info.name:
            raise TypeError(f"{what} is a {a.dtype} array, which holds {own} values, but src={src!r} says "
                            f"{info.name}; give {info.name} codes as {st} (or drop src for float arrays)")
        return _c_order(a).view(st), info.name
    if a.dtype.kind == "u" or a.dtype.kind == "i":
        if a.dtype == st:
            return _c_order(a), info.name  # the extension checks the range
        if a.dtype.kind == "i" and a.dtype.itemsize == st.itemsize:
            return _c_order(a).view(st), info.name  # the codes' bits, as a signed view of them
        if a.size:
            lo, hi = int(a.min()), int(a.max())
            if lo < 0:
                raise ValueError(f"{what}: code {lo} is negative ({info.name} codes are 0 to {info.code_mask})")
            if hi > info.code_mask:
                raise ValueError(f"{what}: code {hi} is out of range for {info.name} (expected 0 to {info.code_mask})")
        return a.astype(st, order="C"), info.name
    raise TypeError(f"{what}: expected an array of unsigned-integer codes of {info.name} ({st}), got dtype {a.dtype}")


def _named_dtype(dt: np.dtype) -> Optional[str]:
    """The format of a non-standard dtype whose name the library knows (ml_dtypes' bfloat16,
    float8_e4m3fn, ...), or None."""
    if dt.kind in "fuicb" or dt.kind == "O" or dt.kind == "U" or dt.kind == "S" or dt.kind == "M" or dt.kind == "m":
        return None
    try:
        info = format_info(dt.name)
    except ValueError:
        return None
    return info.name if info.storage_bytes == dt.itemsize else None


def _dtype_like(value) -> Optional[np.dtype]:
    """The numpy dtype `value` names when it is a dtype object or a scalar type (numpy.float16,
    numpy.dtype("float32"), float, ml_dtypes.bfloat16); None for anything else (a str is a
    format name, never a numpy dtype name)."""
    if isinstance(value, np.dtype):
        return value
    if isinstance(value, type):
        try:
            return np.dtype(value)
        except TypeError:
            return None
    return None


_FORMAT_EXPECTED = ("a format name (a str such as 'e4m3' or 'f16') or a numpy float dtype (numpy.float16, "
                    "numpy.float32, numpy.float64; ml_dtypes' float types when ml_dtypes is installed)")


def format_arg(value, what: str, optional: bool = False) -> Optional[str]:
    """A format argument: a name or spec (a str, passed on for the library to resolve), or a
    numpy dtype that is a format: numpy.float64/float32/float16 (or their dtypes, or Python's
    float) are "f64"/"f32"/"f16"; a dtype whose name the library knows (ml_dtypes' bfloat16,
    float8_e4m3fn, ... when ml_dtypes is installed) is that format. TypeError naming `what`
    for anything else."""
    if value is None and optional:
        return None
    if isinstance(value, str):
        return value
    dt = _dtype_like(value)
    if dt is not None:
        name = _FLOAT_FORMAT.get(dt) or _named_dtype(dt)
        if name is None:
            raise TypeError(f"{what}: numpy dtype {dt} is not a number format softmx knows (expected "
                            f"{_FORMAT_EXPECTED})")
        return name
    raise TypeError(f"{what} must be {_FORMAT_EXPECTED}{' or None' if optional else ''}, got {type(value).__name__}")


#: float32's largest finite value and the exponent of its smallest subnormal.
_F32_MAX = float(np.finfo(np.float32).max)
_F32_MIN_EXP = -149


def value_dtype(fmt: str) -> np.dtype:
    """The numpy dtype that holds every value of `fmt` exactly: its own for f64, f32 and f16;
    float32 for bf16, every MX element format, e8m0 and the runtime specs inside float32's
    range and precision; float64 for the rest (runtime specs with a larger bias: every runtime
    format has at most 8 exponent and 23 fraction bits, so float64 holds each value)."""
    info = format_info(fmt)
    own = _FORMAT_FLOAT.get(info.name)
    if own is not None:
        return own
    fits = info.man_bits <= 23 and info.emin - info.man_bits >= _F32_MIN_EXP and info.max_finite <= _F32_MAX
    return np.dtype(np.float32) if fits else np.dtype(np.float64)


def check_out(out, shape, dtype: np.dtype, what: str = "out") -> np.ndarray:
    """numpy's out=: the caller's array, checked: a numpy.ndarray (TypeError), of exactly the
    result's dtype (TypeError: no casting, the library writes the result's bits), of the
    result's shape, C-contiguous (the library writes it in place) and writeable (ValueError)."""
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{what} must be a numpy.ndarray (the array to write the result into), got "
                        f"{type(out).__name__}")
    if out.dtype != dtype:
        raise TypeError(f"{what} has dtype {out.dtype}, but the result is {np.dtype(dtype)} (give an array of "
                        f"that dtype: out= does not cast)")
    if out.shape != tuple(shape):
        raise ValueError(f"{what} has shape {out.shape}, but the result has shape {tuple(shape)}")
    if not out.flags.c_contiguous:
        raise ValueError(f"{what} must be C-contiguous (the library writes the result into it in place); give a "
                         f"contiguous array, or drop {what}= and copy the result")
    if not out.flags.writeable:
        raise ValueError(f"{what} is read-only: give a writeable array")
    return out


def as_random(random, shape, what: str = "random") -> np.ndarray:
    """Random bits for round='rs': unsigned integers broadcast to `shape`, as uint64."""
    r = np.asarray(random)
    if r.dtype.kind not in "ui":
        raise TypeError(f"{what}: expected unsigned integers (the random bits of round='rs'), got dtype {r.dtype}")
    if r.dtype.kind == "i" and r.size and int(r.min()) < 0:
        raise ValueError(f"{what}: random bits must be non-negative, got {int(r.min())}")
    try:
        r = np.broadcast_to(r, shape)
    except ValueError:
        raise ValueError(f"{what}: shape {r.shape} does not broadcast to the data's shape {tuple(shape)}") from None
    return np.asarray(r, dtype=np.uint64, order="C")


#: The most worker threads a call takes (the CLI's --threads limit, 1..1024).
MAX_THREADS = 1024


def threads_arg(threads) -> int:
    """None: every core (0 for the library); otherwise an integer from 1 to MAX_THREADS."""
    if threads is None:
        return 0
    return int_arg(threads, "threads", lo=1, hi=MAX_THREADS,
                   expected=f"None (every core) or an integer from 1 to {MAX_THREADS}")


def name_arg(value, what: str, optional: bool = False) -> Optional[str]:
    """A name option: a str (or None where that means the default)."""
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str{' or None' if optional else ''}, got {type(value).__name__}")
    return value


def _range_text(lo: Optional[int], hi: Optional[int]) -> str:
    if lo is not None and hi is not None:
        return f"an integer from {lo} to {hi}"
    if lo is not None:
        return f"an integer of at least {lo}"
    if hi is not None:
        return f"an integer of at most {hi}"
    return "an int"


def int_arg(value, what: str, optional: bool = False, *, lo: Optional[int] = None, hi: Optional[int] = None,
            expected: Optional[str] = None) -> Optional[int]:
    """An integer argument checked once, in Python, before it reaches the extension (whose C++
    parameters are unsigned, size_t, uint64, int or long: a value outside their range would
    otherwise be pybind11's "incompatible function arguments" TypeError, or wrap around).

    value: a Python int or a numpy integer scalar (np.int64(5) is 5); None too where `optional`.
    Not a bool, float or str: TypeError naming `what`. Outside lo..hi (either bound may be
    None: unbounded on that side): ValueError "WHAT must be EXPECTED, got VALUE", EXPECTED
    "an integer from LO to HI" unless given.
    """
    if value is None and optional:
        return None
    text = expected or _range_text(lo, hi)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        or_none = " or None" if optional and not text.startswith("None") else ""
        raise TypeError(f"{what} must be {text}{or_none}, got {type(value).__name__}")
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ValueError(f"{what} must be {text}, got {v}")
    return v


def float_arg(value, what: str, optional: bool = False) -> Optional[float]:
    """A real-number argument: a Python or numpy int or float (not a bool or str: TypeError
    naming `what`) as a float; an int too large for a float is a ValueError."""
    if value is None and optional:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what} must be a float{' or None' if optional else ''}, got {type(value).__name__}")
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{what} {value!r} is too large for a float") from None


def normalize_axis(axis, ndim: int, what: str = "axis") -> int:
    axis = int_arg(axis, what)
    if ndim == 0:
        raise ValueError("expected an array of at least one dimension, got a 0-d array")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{what} {axis} is out of range for a {ndim}-d array (expected {-ndim} to {ndim - 1})")
    return axis % ndim


def host_target(dtype) -> str:
    """A destination of dequantization: numpy float64/float32/float16 (or their names), or a
    format name of f64, f32, f16, bf16."""
    if isinstance(dtype, str):
        try:
            info = format_info(dtype)
        except ValueError:
            info = None
        if info is not None:
            if not info.is_host:
                raise ValueError(f"dtype must be f64, f32, f16 or bf16 (or numpy's float64, float32, float16), "
                                 f"not {dtype!r}")
            return info.name
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype must be numpy.float64, float32, float16 or a format name ('bf16'), got {dtype!r}") from None
    if dt in _FLOAT_FORMAT:
        return _FLOAT_FORMAT[dt]
    name = _named_dtype(dt)
    if name is not None and format_info(name).is_host:
        return name
    raise ValueError(f"dtype must be numpy.float64, float32, float16 or 'bf16' (uint16 codes), got {dt}")


def as_values(codes: np.ndarray, fmt: str) -> np.ndarray:
    """Codes of f64/f32/f16 viewed as numpy floats (zero-copy); bf16 codes stay uint16."""
    fd = float_dtype(fmt)
    return codes.view(fd) if fd is not None else codes
