"""softmx: bit-exact OCP Microscaling (MX) formats for numpy.

Every function runs softmx's C++ library (the model the conformance suite proves against
MPFR): conversions between f64, f32, f16, bf16 and every MX element format and E8M0, under
seven rounding modes, both saturations and named dialects; MX and NVFP4 block quantization
along any axis; exact dot and matrix products under hardware accumulation models; exact error
statistics.

    import numpy as np, softmx
    x = np.random.default_rng(0).standard_normal((4, 64), dtype=np.float32)
    v = softmx.convert(x, "e4m3")                     # float32: the FP8 values (np.float16 -> float16)
    codes = softmx.encode(x, "e4m3")                  # uint8 FP8 codes
    q = softmx.quantize(x, "e4m3", block=32)          # MXArray: .scales, .codes
    y = q.dequantize()                                # float32
    s = softmx.error_stats(x, q)                      # .mse, .sqnr_db, .saturated, ...
    print(softmx.explain("0.1", "e4m3"))              # the CLI's `softmx explain` text
    r = softmx.verify("results.vec")                  # .mismatches (.truncated), .completeness, .passed
    softmx.report("results.vec", out="cert.html")     # the certificate: one HTML page with plots

Arrays are numpy arrays (or anything numpy.asarray takes); inputs are never modified, and
large arrays run on every core with the GIL released.
"""

from ._info import (INEXACT, INFINITE, INVALID, OVERFLOW, UNDERFLOW, DialectInfo, FormatInfo, Formats,
                    RuntimeFormatWarning, TensorCoreInstruction,
                    accumulation_models, dialect_info, dialects, flags_words, format_info, formats, scale_rules,
                    tensor_core_instructions)
from ._convert import convert, decode, encode
from ._mxarray import MXArray, dequantize, fake_quantize, pack, quantize, unpack
from ._dot import dot, matmul
from ._stats import ErrorStats, error_stats
from ._vectors import (Candidate, Completeness, Explanation, GenResult, IdentifyResult, Mismatch, RunTable,
                       TableDiff, VerifyResult, diff, explain, gen, identify, merge, sweep, verify)
from ._layout import (pad_scales, scale_layout_index, scale_layout_size, scale_layouts, swizzle_scales, unpad_scales,
                      unswizzle_scales)
from ._golden import LutGolden, gemm_golden_inputs, lut_argmin_golden, lut_argmin_quantize
from ._peers import (MXSpec, PychopResult, TorchmxTensor, pychop_mx_quantize, pychop_spec, pychop_specs,
                     torchmx_dequantize_mx, torchmx_linear, torchmx_matmul, torchmx_quantize_mx, torchmx_to_mx)

from ._recipe import RecipeInfo, RecipeOutput, RecipeResult, recipe, recipe_test_input, recipes
from ._report import Report, report

__version__ = "0.1.0"

__all__ = [
    "convert", "encode", "decode", "quantize", "dequantize", "fake_quantize", "MXArray", "pack", "unpack", "matmul", "dot",
    "error_stats", "ErrorStats", "formats", "format_info", "FormatInfo", "dialects", "dialect_info", "DialectInfo",
    "accumulation_models", "tensor_core_instructions", "TensorCoreInstruction", "scale_rules", "flags_words", "INEXACT", "UNDERFLOW", "OVERFLOW", "INFINITE", "INVALID",
    "gen", "verify", "identify", "sweep", "merge", "diff", "explain", "TableDiff", "GenResult", "VerifyResult", "Mismatch", "Completeness",
    "IdentifyResult", "Candidate", "RunTable", "Explanation",
    "swizzle_scales", "unswizzle_scales", "scale_layout_size", "scale_layout_index", "scale_layouts", "pad_scales",
    "unpad_scales",
    "lut_argmin_golden", "lut_argmin_quantize", "LutGolden", "gemm_golden_inputs",
    "torchmx_quantize_mx", "torchmx_to_mx", "torchmx_dequantize_mx", "torchmx_matmul", "torchmx_linear", "TorchmxTensor",
    "pychop_mx_quantize", "pychop_spec", "pychop_specs", "MXSpec", "PychopResult",
]
__all__ += ["recipe", "recipes", "recipe_test_input", "RecipeResult", "RecipeOutput", "RecipeInfo"]
__all__ += ["report", "Report"]
__all__ += ["Formats", "RuntimeFormatWarning"]
__all__ += ["distributed"]


def __getattr__(name):
    # softmx.distributed (sweeps sharded over a dask.distributed cluster, docs/SHARDING.md) is
    # loaded on first use: `import softmx` imports neither it nor dask, which it imports only
    # when a sweep starts.
    if name == "distributed":
        import importlib
        module = importlib.import_module("._distributed", __name__)
        globals()["distributed"] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
