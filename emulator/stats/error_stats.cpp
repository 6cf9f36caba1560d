// emulator/stats/error_stats.cpp: see softmx/stats.hpp.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/storage.hpp"
#include "softmx/convert.hpp"
#include "softmx/parallel.hpp"
#include "softmx/stats.hpp"
#include "stats/exact_sum.hpp"

namespace softmx {
namespace {

using detail::ExactSum;

constexpr std::size_t kChunk = 4096;                       // values converted to f64 at a time
constexpr std::size_t kMinPerThread = std::size_t{1} << 16;  // elements per thread, at least

// The sums and counts of a range of elements; partials add exactly.
struct Partial {
  std::uint64_t compared = 0, input_nan = 0, input_inf = 0, nan = 0, inf = 0, saturated = 0, flushed = 0;
  double max_abs = 0, max_rel = 0;
  bool err_pos_inf = false, err_neg_inf = false;  // a difference overflowed
  // The signed sum of the errors as two sums of magnitudes: a two's complement accumulator
  // whose value crosses zero would carry or borrow through every limb each time.
  ExactSum err_pos, err_neg, err2, x2;

  void merge(const Partial& p) {
    compared += p.compared, input_nan += p.input_nan, input_inf += p.input_inf;
    nan += p.nan, inf += p.inf, saturated += p.saturated, flushed += p.flushed;
    max_abs = std::max(max_abs, p.max_abs);
    max_rel = std::max(max_rel, p.max_rel);
    err_pos_inf |= p.err_pos_inf, err_neg_inf |= p.err_neg_inf;
    err_pos.add(p.err_pos), err_neg.add(p.err_neg), err2.add(p.err2), x2.add(p.x2);
  }

  // One element. `limit`: L_i (NaN: the block's scale is NaN; +Inf: none).
  void add(double x, double q, double limit) {
    if (std::isnan(x)) ++input_nan;
    else if (std::isinf(x)) ++input_inf;
    if (std::isnan(q)) ++nan;
    else if (std::isinf(q)) ++inf;
    if (!std::isnan(x) && !std::isnan(limit) && std::fabs(x) > limit) ++saturated;
    if (!std::isfinite(x) || !std::isfinite(q)) return;
    ++compared;
    if (x != 0 && q == 0) ++flushed;
    // TwoSum: s + t = x - q exactly (unless s overflows).
    const double nq = -q;
    const double s = x + nq;
    const double bb = s - x;
    const double t = (x - (s - bb)) + (nq - bb);
    const double a = std::fabs(s);
    if (std::isinf(s)) {
      (s > 0 ? err_pos_inf : err_neg_inf) = true;
      max_abs = std::numeric_limits<double>::infinity();
      max_rel = std::max(max_rel, a / std::fabs(x));
      detail::add_product(x2, x, x);
      return;
    }
    max_abs = std::max(max_abs, a);
    const double rel = x == 0 ? (q == 0 ? 0.0 : std::numeric_limits<double>::infinity()) : a / std::fabs(x);
    max_rel = std::max(max_rel, rel);
    detail::add_value(s < 0 ? err_neg : err_pos, std::fabs(s));
    detail::add_product(err2, s, s);
    detail::add_product(x2, x, x);
    if (t != 0) {
      detail::add_value(t < 0 ? err_neg : err_pos, std::fabs(t));
      detail::add_product(err2, s, t);
      detail::add_product(err2, s, t);
      detail::add_product(err2, t, t);
    }
  }
};

double to_double(const Unpacked& u) {
  Context c;
  c.rounding = Rounding::rne;
  c.saturation = Saturation::none;
  return std::bit_cast<double>(round_pack(format(FormatId::f64), u, c, ocp_dialect()).code);
}

ErrorStats finish(const Partial& p, std::uint64_t count) {
  ErrorStats s;
  s.count = count;
  s.compared = p.compared;
  s.input_nan = p.input_nan, s.input_inf = p.input_inf;
  s.nan = p.nan, s.inf = p.inf;
  s.saturated = p.saturated;
  s.flushed_to_zero = p.flushed;
  s.max_abs_error = p.max_abs;
  s.max_rel_error = p.max_rel;
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  if (p.compared == 0) {
    s.mean_error = s.mse = s.signal_power = s.sqnr_db = nan;
    return s;
  }
  s.signal_power = to_double(p.x2.quotient(p.compared));
  if (p.err_pos_inf || p.err_neg_inf) {
    s.mse = inf;
    s.mean_error = p.err_pos_inf && p.err_neg_inf ? nan : p.err_pos_inf ? inf : -inf;
  } else {
    s.mse = to_double(p.err2.quotient(p.compared));
    ExactSum e = p.err_pos;
    e.sub(p.err_neg);
    s.mean_error = to_double(e.quotient(p.compared));
  }
  s.sqnr_db = s.mse == 0 ? inf : 10 * std::log10(s.signal_power / s.mse);
  return s;
}

void check_host(FormatId f, const char* what) {
  if (!is_ieee_host_format(f))
    throw std::invalid_argument(std::string("error_stats: ") + what + " must be f64, f32, f16 or bf16 values, not " +
                                std::string(format(f).name));
}

Context exact_context() {
  Context c;
  c.rounding = Rounding::rne;
  c.saturation = Saturation::none;
  return c;
}

// Values [first, last) of an f64/f32/f16/bf16 array as doubles (exact).
void to_f64(const Converter& conv, const void* data, std::size_t first, std::size_t last, double* out) {
  conv.run(static_cast<const unsigned char*>(data) + first * detail::storage_bytes(conv.source()), out, nullptr,
           last - first);
}

// Sums partials of ranges run on threads; the merge is exact, so the order does not matter.
template <class Body>
Partial run_ranges(std::size_t n, unsigned threads, Body body) {
  Partial total;
  std::mutex m;
  parallel_ranges(n, threads, kMinPerThread, 1, [&](std::size_t first, std::size_t last) {
    Partial p;
    body(first, last, p);
    std::lock_guard<std::mutex> lock(m);
    total.merge(p);
  });
  return total;
}

// Position of a flat index in an (outer, len, inner) tensor, stepped one element at a time.
struct Walker {
  std::size_t len, inner, k, nb;
  std::size_t o = 0, a = 0, n = 0;
  void seek(std::size_t i) {
    o = i / (len * inner);
    a = (i / inner) % len;
    n = i % inner;
  }
  std::size_t scale_index() const { return (o * nb + a / k) * inner + n; }
  void next() {
    if (++n == inner) {
      n = 0;
      if (++a == len) a = 0, ++o;
    }
  }
};

struct Geometry {
  std::size_t outer = 1, len = 0, inner = 1;
};
Geometry geometry(std::span<const std::size_t> shape, std::size_t axis) {
  Geometry g;
  for (std::size_t d = 0; d < axis; ++d) g.outer *= shape[d];
  g.len = shape[axis];
  for (std::size_t d = axis + 1; d < shape.size(); ++d) g.inner *= shape[d];
  return g;
}

}  // namespace

ErrorStats error_stats(FormatId x_format, const void* x, FormatId q_format, const void* q, std::size_t n,
                       std::optional<FormatId> element, unsigned threads) {
  check_host(x_format, "x");
  check_host(q_format, "q");
  double limit = std::numeric_limits<double>::infinity();
  if (element) {
    const Format& ef = format(*element);
    limit = std::bit_cast<double>(
        convert(*element, FormatId::f64, ef.max_finite_magnitude(), exact_context()).code);
  }
  const Converter cx(x_format, FormatId::f64, exact_context()), cq(q_format, FormatId::f64, exact_context());
  const Partial p = run_ranges(n, threads, [&](std::size_t first, std::size_t last, Partial& part) {
    std::vector<double> xv(kChunk), qv(kChunk);
    for (std::size_t c = first; c < last; c += kChunk) {
      const std::size_t e = std::min(last, c + kChunk);
      to_f64(cx, x, c, e, xv.data());
      to_f64(cq, q, c, e, qv.data());
      for (std::size_t i = 0; i < e - c; ++i) part.add(xv[i], qv[i], limit);
    }
  });
  return finish(p, n);
}

ErrorStats error_stats(FormatId x_format, const void* x, const MxTensorRef& q, const Dialect& dialect,
                       unsigned threads) {
  check_host(x_format, "x");
  const std::size_t n = q.codes.size();
  // The geometry first (the walker below relies on it); dequantize_tensor checks the rest.
  if (q.shape.empty() || q.axis >= q.shape.size() || q.block == 0)
    throw std::invalid_argument("error_stats: the quantized tensor's shape, axis or block size is invalid");
  const Geometry g = geometry(q.shape, q.axis);
  const std::size_t nb = (g.len + q.block - 1) / q.block;
  const std::size_t sb = q.scale_format.code_bytes();  // bytes per scale code
  if (n != g.outer * g.len * g.inner || q.scales.size() != g.outer * nb * g.inner * sb)
    throw std::invalid_argument("error_stats: the quantized tensor's scales or codes do not match its shape");
  const Context ctx = exact_context();
  // Dequantize once into f64 (exact for every MX element and scale; dialects that dequantize
  // through f32 round as they do).
  std::vector<double> qv(n);
  dequantize_tensor(q, FormatId::f64, qv.data(), ctx, dialect, threads);
  // L for every scale code: the element format's largest finite code, dequantized (under the
  // tensor's scale format; codes beyond its width do not occur: dequantize_tensor refused them).
  const Format& ef = format(q.element);
  const Format& sfmt = q.scale_format;
  auto limit_of = [&](std::uint32_t scale) {
    return std::fabs(std::bit_cast<double>(
        dequantize_element(q.element, q.scale_format, scale, static_cast<std::uint8_t>(ef.max_finite_magnitude()),
                           FormatId::f64, ctx, dialect)
            .code));
  };
  // One-byte scale codes: a table of all 256 limits. Wider codes (bf16, f16, f32 scales): the
  // limit of the block's code, made again whenever the code changes.
  std::array<double, 256> limit{};
  if (sb == 1)
    for (std::uint32_t c = 0; c <= sfmt.code_mask(); ++c) limit[c] = limit_of(c);
  const Converter cx(x_format, FormatId::f64, ctx);
  const Partial p = run_ranges(n, threads, [&](std::size_t first, std::size_t last, Partial& part) {
    std::vector<double> xv(kChunk);
    Walker w{g.len, g.inner, q.block, nb};
    w.seek(first);
    std::uint32_t last_code = 0;
    double last_limit = sb == 1 ? 0 : limit_of(0);
    for (std::size_t c = first; c < last; c += kChunk) {
      const std::size_t e = std::min(last, c + kChunk);
      to_f64(cx, x, c, e, xv.data());
      if (sb == 1) {
        for (std::size_t i = c; i < e; ++i, w.next()) part.add(xv[i - c], qv[i], limit[q.scales[w.scale_index()]]);
        continue;
      }
      for (std::size_t i = c; i < e; ++i, w.next()) {
        const std::uint32_t code = load_scale_code(q.scales.data(), w.scale_index(), sb);
        if (code != last_code) last_limit = limit_of(last_code = code);
        part.add(xv[i - c], qv[i], last_limit);
      }
    }
  });
  ErrorStats s = finish(p, n);
  if (sb == 1)
    for (std::uint8_t sc : q.scales) ++s.scale_histogram[sc];
  return s;
}

ErrorStats error_stats(FormatId x_format, const void* x, const Nvfp4Tensor& q, unsigned threads) {
  check_host(x_format, "x");
  const std::size_t n = q.codes.size();
  if (q.shape.empty() || q.axis >= q.shape.size())
    throw std::invalid_argument("error_stats: the NVFP4 tensor's shape or axis is invalid");
  const Geometry g = geometry(q.shape, q.axis);
  const std::size_t k = 16, nb = (g.len + k - 1) / k;
  if (n != g.outer * g.len * g.inner || q.scales.size() != g.outer * nb * g.inner)
    throw std::invalid_argument("error_stats: the NVFP4 tensor's scales or codes do not match its shape");
  const Context ctx = exact_context();
  std::vector<double> qv(n);
  dequantize_nvfp4(q, FormatId::f64, qv.data(), ctx);
  // L per block: E2M1's largest code (0x7, 6.0) under each block's scale, dequantized the same way.
  Nvfp4Tensor top;
  top.shape = {q.scales.size() * k};
  top.axis = 0;
  top.global_amax = q.global_amax;
  top.encode_scale = q.encode_scale;
  top.scale_shape = {q.scales.size()};
  top.scales = q.scales;
  top.codes.assign(q.scales.size() * k, 0x7);
  std::vector<double> lim(top.codes.size());
  dequantize_nvfp4(top, FormatId::f64, lim.data(), ctx);
  const Converter cx(x_format, FormatId::f64, ctx);
  const Partial p = run_ranges(n, threads, [&](std::size_t first, std::size_t last, Partial& part) {
    std::vector<double> xv(kChunk);
    Walker w{g.len, g.inner, k, nb};
    w.seek(first);
    for (std::size_t c = first; c < last; c += kChunk) {
      const std::size_t e = std::min(last, c + kChunk);
      to_f64(cx, x, c, e, xv.data());
      for (std::size_t i = c; i < e; ++i, w.next()) part.add(xv[i - c], qv[i], std::fabs(lim[w.scale_index() * k]));
    }
  });
  ErrorStats s = finish(p, n);
  for (std::uint8_t sc : q.scales) ++s.scale_histogram[sc];
  return s;
}

}  // namespace softmx
