"""Error statistics of quantized data, computed exactly by the library (softmx/stats.hpp)."""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, Optional

import numpy as np

from . import _softmx
from ._arrays import as_codes, name_arg, threads_arg
from ._info import format_info
from ._mxarray import MXArray


@dataclasses.dataclass(frozen=True)
class ErrorStats:
    """How far q is from x. With C the elements where x_i and q_i are both finite and RN IEEE
    double rounding (to nearest, ties to even, overflow to Inf):

      count            the number of elements.
      compared         |C|.
      input_nan, input_inf   elements where x_i is NaN, +-Inf.
      nan, inf         elements where q_i is NaN, +-Inf.
      saturated        x_i not NaN and |x_i| > L_i, L_i the largest finite magnitude element i's
                       block can hold (the element format's largest code dequantized with the
                       block's scale; for plain arrays the largest finite value of `format`),
                       blocks with a NaN scale excluded: the elements clamped to +-L_i under
                       satfinite, or made Inf/NaN under satnone.
      flushed_to_zero  x_i finite and non-zero, q_i = +-0.
      max_abs_error    max over C of RN(|x_i - q_i|); 0 when C is empty.
      max_rel_error    max over C of RN(RN(|x_i - q_i|) / |x_i|) (numpy's
                       abs(x - q) / abs(x) in float64), 0/0 counted as 0 and q/0 as Inf.
      mean_error       RN(sum_C (x_i - q_i) / |C|), the sum exact, rounded once.
      mse              RN(sum_C (x_i - q_i)^2 / |C|), exact, rounded once.
      signal_power     RN(sum_C x_i^2 / |C|), exact, rounded once.
      sqnr_db          10 * log10(signal_power / mse) in double (the C library's log10); +Inf
                       when mse is 0.
      scale_histogram  for an MXArray q: a uint64 array of 256 counts, how many blocks have
                       each scale code (E8M0, or q.scale_format's codes; E4M3 for nvfp4); None
                       for plain arrays and for scale formats wider than 8 bits (bf16, f16, f32).

    mean_error, mse, signal_power and sqnr_db are NaN when C is empty. The sums are exact, so
    nothing depends on the order of the elements or the thread count.
    """

    count: int
    compared: int
    input_nan: int
    input_inf: int
    nan: int
    inf: int
    saturated: int
    flushed_to_zero: int
    max_abs_error: float
    max_rel_error: float
    mean_error: float
    mse: float
    signal_power: float
    sqnr_db: float
    scale_histogram: Optional[np.ndarray] = dataclasses.field(repr=False, compare=False)

    def as_dict(self) -> Dict[str, Any]:
        return dataclasses.asdict(self)

    def scale_counts(self) -> Dict[int, int]:
        """The non-zero entries of scale_histogram as {scale code: blocks} ({} for plain arrays)."""
        if self.scale_histogram is None:
            return {}
        return {int(c): int(n) for c, n in enumerate(self.scale_histogram) if n}

    def __repr__(self) -> str:
        fields = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self) if f.repr)
        if self.scale_histogram is not None:
            fields += f", scale_counts={self.scale_counts()!r}"
        return f"ErrorStats({fields})"


def error_stats(x, q, *, src: Optional[str] = None, q_src: Optional[str] = None, format: Optional[str] = None,
                threads: Optional[int] = None) -> ErrorStats:
    """Statistics of q against the data x it was made from (see ErrorStats for the exact
    definitions).

    x: float64/float32/float16 data (or bf16 uint16 bits with src="bf16").
    q: an MXArray of x's shape (from softmx.quantize(x, ...)), dequantized exactly under its
       dialect; or an array of x's shape of values (float64/32/16, or codes with q_src), such as
       softmx.convert(x, "e4m3") (float32 values); then `format` names the format the
       values were rounded to, for `saturated` (without it nothing counts as saturated).
    threads: worker threads, an integer from 1 to 1024; None (default) uses every core. The
       statistics do not depend on it.
    """
    xc, xs = as_codes(x, src)
    if not format_info(xs).is_host:
        raise ValueError(f"x must hold f64, f32, f16 or bf16 values, not {xs} codes")
    t = threads_arg(threads)
    if isinstance(q, MXArray):
        if format is not None:
            raise ValueError("format= applies to plain arrays; an MXArray knows its element format")
        if q.shape != xc.shape:
            raise ValueError(f"error_stats: x has shape {xc.shape} and q has shape {q.shape}")
        if q.format == "nvfp4":
            d = _softmx.error_stats_nvfp4(xc, xs, q.scales, q.codes, q.axis, q._encode_scale, q._global_amax, t)
        else:
            d = _softmx.error_stats_mx(xc, xs, q.scales, q.codes, q.element, q.axis, q.block, q.dialect, t,
                                       q.scale_format)
            if q.scales.dtype.itemsize > 1:
                d["scale_histogram"] = None  # 2- and 4-byte codes are not counted
    else:
        qc, qs = as_codes(q, q_src, "q")
        if not format_info(qs).is_host:
            raise ValueError(f"q must hold f64, f32, f16 or bf16 values (decode codes first), not {qs} codes")
        if qc.shape != xc.shape:
            raise ValueError(f"error_stats: x has shape {xc.shape} and q has shape {qc.shape}")
        d = _softmx.error_stats_arrays(xc, xs, qc, qs, name_arg(format, "format", True), t)
    return ErrorStats(**d)
