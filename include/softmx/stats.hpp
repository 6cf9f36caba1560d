// softmx/stats.hpp: how far a quantized tensor is from the data it came from, computed exactly.
//
//   MxTensor q = quantize_tensor(FormatId::f32, x, shape, axis, 32, options);
//   ErrorStats s = error_stats(FormatId::f32, x, MxTensorRef{...q...}, ocp_dialect());
//   // s.mse, s.sqnr_db, s.saturated, s.scale_histogram[0x7F] ...
//
// Definitions (x_i the data, q_i its quantized-and-dequantized value, both as real numbers;
// RN is IEEE 754 double rounding to nearest, ties to even, with overflow to Inf):
//   count            the number of elements n.
//   compared         the elements with x_i and q_i both finite: the set C the error sums run over.
//   input_nan        x_i is NaN; input_inf: x_i is +-Inf.
//   nan              q_i is NaN; inf: q_i is +-Inf.
//   saturated        x_i is not NaN and |x_i| > L_i, where L_i is the largest finite magnitude
//                    element i's block can hold (the dequantized value of the element format's
//                    largest finite code under the block's scale, as the dialect dequantizes;
//                    for plain arrays the element format's largest finite value, or none) and
//                    L_i is not NaN (a block whose scale is NaN counts in `nan` instead). So
//                    with satfinite these are the elements clamped to +-L_i, with satnone the
//                    ones that became Inf or NaN; a value rounded down to L_i from just above
//                    it counts too.
//   flushed_to_zero  x_i finite and non-zero, q_i = +-0.
//   max_abs_error    max over C of RN(|x_i - q_i|) (the exact difference rounded once); 0 when C
//                    is empty.
//   max_rel_error    max over C of RN(RN(|x_i - q_i|) / |x_i|), two IEEE operations, with
//                    x_i = 0 giving 0 when q_i = 0 and +Inf otherwise; 0 when C is empty.
//   mean_error       RN(sum over C of (x_i - q_i) / |C|): the exact sum, divided exactly, rounded
//                    once; NaN when C is empty.
//   mse              RN(sum over C of (x_i - q_i)^2 / |C|), exact then rounded once; NaN when C is
//                    empty.
//   signal_power     RN(sum over C of x_i^2 / |C|), exact then rounded once; NaN when C is empty.
//   sqnr_db          10 * log10(signal_power / mse) in IEEE double (one division, then the C
//                    library's log10, so the last bit is the platform's log10); +Inf when mse is
//                    0; NaN when C is empty.
// The sums are exact (a fixed-point accumulator wide enough for any sum of squares of
// doubles), so every statistic is independent of the order of the elements and of the
// number of threads. When a difference x_i - q_i overflows a double (f64 data near its
// largest values), max_abs_error and mse are +Inf and mean_error +-Inf (NaN if both signs).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "softmx/block.hpp"
#include "softmx/dialect.hpp"
#include "softmx/format.hpp"
#include "softmx/nvfp4.hpp"

namespace softmx {

struct ErrorStats {
  std::uint64_t count = 0;
  std::uint64_t compared = 0;
  std::uint64_t input_nan = 0, input_inf = 0;
  std::uint64_t nan = 0, inf = 0;
  std::uint64_t saturated = 0;
  std::uint64_t flushed_to_zero = 0;
  double max_abs_error = 0, max_rel_error = 0;
  double mean_error = 0, mse = 0, signal_power = 0, sqnr_db = 0;
  /// For quantized tensors: how many blocks have each scale code (E8M0 for MX, E4M3 for
  /// NVFP4; any scale format of at most 8 bits); all zero for plain arrays and for scale
  /// formats wider than 8 bits (bf16, f16, f32).
  std::array<std::uint64_t, 256> scale_histogram{};
};

/// Statistics of n values q (codes of q_format: f64, f32, f16 or bf16, storage types as
/// Converter::run) against the n values x (codes of x_format, the same choices). `element`:
/// the format q was rounded to, whose largest finite value is every L_i (saturated); without
/// it nothing counts as saturated. Throws std::invalid_argument for other formats.
ErrorStats error_stats(FormatId x_format, const void* x, FormatId q_format, const void* q, std::size_t n,
                       std::optional<FormatId> element = std::nullopt, unsigned threads = 1);

/// Statistics of the MX tensor q, dequantized exactly into f64 under `dialect`, against x
/// (codes of x_format, f64, f32, f16 or bf16, row-major in q.shape). Throws what
/// dequantize_tensor throws.
ErrorStats error_stats(FormatId x_format, const void* x, const MxTensorRef& q, const Dialect& dialect = ocp_dialect(),
                       unsigned threads = 1);

/// Statistics of the NVFP4 tensor q (dequantized into f64 as dequantize_nvfp4 does) against x.
ErrorStats error_stats(FormatId x_format, const void* x, const Nvfp4Tensor& q, unsigned threads = 1);

}  // namespace softmx
