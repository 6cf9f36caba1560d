// emulator/golden/lut_argmin.cpp: the seed-003 MX-FP4 GEMM golden generator
// (include/softmx/lut_argmin.hpp; docs/research/lut-argmin-golden.md). "L n" is line n of
// ../shared/seeds/003_1cfc0588c37cecb0.txt.
#include "softmx/lut_argmin.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "block/f32_arith.hpp"
#include "core/ascii.hpp"
#include "dot/wide_accumulator.hpp"
#include "softmx/convert.hpp"
#include "softmx/prng.hpp"
#include "softmx/scale_layout.hpp"

namespace softmx {
namespace {

constexpr std::uint32_t kNan = 0x7FC00000;
constexpr std::uint32_t kInf = 0x7F800000;
constexpr std::uint32_t kEpsilon = 0x2B8CBCCC;  // f32(1e-12), L7: the Python float as the tensor's dtype
constexpr std::size_t kBlock = 32;              // L6

// _build_fp4_lut (L28-48), written out: index i = sign bit 3, then the exponent and mantissa.
constexpr LutFormatInfo kE2m1{LutFormat::e2m1, "e2m1", 2, 0x40C00000,
                              {0x00000000, 0x3F000000, 0x3F800000, 0x3FC00000, 0x40000000, 0x40400000, 0x40800000,
                               0x40C00000, 0x80000000, 0xBF000000, 0xBF800000, 0xBFC00000, 0xC0000000, 0xC0400000,
                               0xC0800000, 0xC0C00000}};
constexpr LutFormatInfo kE1m2{LutFormat::e1m2, "e1m2", 0, 0x3FE00000,
                              {0x00000000, 0x3E800000, 0x3F000000, 0x3F400000, 0x3F800000, 0x3FA00000, 0x3FC00000,
                               0x3FE00000, 0x80000000, 0xBE800000, 0xBF000000, 0xBF400000, 0xBF800000, 0xBFA00000,
                               0xBFC00000, 0xBFE00000}};

bool is_nan(std::uint32_t x) { return (x & 0x7FFFFFFF) > kInf; }

const Dialect& lut_dialect() {
  const Dialect* d = find_dialect("lut-argmin");
  if (!d) throw std::logic_error("lut-argmin: the dialect is missing from the table");
  return *d;
}

Context element_context() {
  Context c;
  c.rounding = Rounding::rne;  // nearest; the dialect's nearest_ties = toward_zero
  c.saturation = Saturation::finite;  // L57 clamps first
  return c;
}

// x * 2^31 as an exact integer, for |x| in [2^-8, 6] (research section 3: smaller values are
// nearer to +-0 than to any other entry of either table).
std::int64_t fixed31(std::uint32_t x) {
  const std::uint32_t mag = x & 0x7FFFFFFF;
  if (mag < 0x3B800000) return 0;  // below 2^-8
  const int ef = static_cast<int>(mag >> 23);
  const std::int64_t m = static_cast<std::int64_t>((mag & 0x7FFFFF) | 0x800000);
  const std::int64_t v = m << (ef - 119);  // x = m * 2^(ef - 150); times 2^31; ef - 119 in 0..10
  return (x >> 31) ? -v : v;
}

// L57-59 literally, with exact distances: clamp, then the first index of the least distance.
std::uint8_t table_argmin(const LutFormatInfo& f, std::uint32_t x) {
  if (is_nan(x)) return 0;  // every distance NaN: LessOrNan keeps the first, index 0
  std::uint32_t mag = x & 0x7FFFFFFF;
  if (mag > f.max_bits) mag = f.max_bits;  // clamp(min_value, max_value); f32 order = bit order
  const std::int64_t c = fixed31((x & 0x80000000) | mag);
  std::uint8_t best = 0;
  std::int64_t best_d = -1;
  for (int i = 0; i < 16; ++i) {
    const std::int64_t d = std::abs(c - fixed31(f.table[i]));
    if (best_d < 0 || d < best_d) {  // strict: a tie keeps the lower index
      best_d = d;
      best = static_cast<std::uint8_t>(i);
    }
  }
  return best;
}

// Converts `n` scaled f32 values into table indices.
void element_indices(LutFormat f, const std::uint32_t* in, std::uint8_t* out, std::size_t n) {
  if (f == LutFormat::e2m1) {
    // The core under the lut-argmin dialect; the E2M1 code is the table index.
    const Converter conv(FormatId::f32, FormatId::e2m1, element_context(), lut_dialect());
    conv.run(in, out, nullptr, n);
    return;
  }
  for (std::size_t i = 0; i < n; ++i) out[i] = table_argmin(kE1m2, in[i]);
}

// Whether the correctly rounded f32 log2 of the normal f32 x (2^(k-1) <= x < 2^k) is k.
bool log2_rounds_up(std::uint32_t x) {
  const int ef = static_cast<int>(x >> 23);
  const int k = ef - 127 + 1;
  if (k == 0) return false;  // log2 x in [-1, 0): |log2 x| >= 8.6e-8, far above 0's neighbours
  // x / 2^k = M / 2^24, u = 1 - x / 2^k = j * 2^-24.
  const std::uint32_t M = (x & 0x7FFFFF) | 0x800000;
  const double u = std::ldexp(static_cast<double>((1u << 24) - M), -24);  // exact
  // h: half the gap between k and its f32 neighbour on the side of log2 x (below k).
  const unsigned ak = static_cast<unsigned>(k < 0 ? -k : k);
  const int lg = std::bit_width(ak) - 1;  // floor(log2 |k|)
  const bool pow2 = (ak & (ak - 1)) == 0;
  const int gap_exp = (k > 0 && pow2) ? lg - 24 : lg - 23;
  const double h_ln2 = std::ldexp(0.69314718055994530942, gap_exp - 1);  // h * ln 2
  // -ln(1 - u) lies in [u + u^2/2, u + u^2/2 + u^3 / (3 (1 - u))]; RN(log2 x) = k iff it is below
  // h ln 2 (equality is impossible: x is rational, 2^(k - h) is not).
  const double lo = u + u * u / 2, hi = lo + u * u * u / (3 * (1 - u));
  if (hi < h_ln2 * (1 - 1e-12)) return true;
  if (lo > h_ln2 * (1 + 1e-12)) return false;
  throw std::logic_error("lut-argmin: log2 rounding undecided for f32 0x" + std::to_string(x));
}

std::uint32_t pow2_f32(int e) {  // exact for e in [-149, 127]
  return e >= -126 ? static_cast<std::uint32_t>(e + 127) << 23 : std::uint32_t{1} << (e + 149);
}

std::uint32_t bits_of(const Unpacked& u) {
  const Format& f = format(FormatId::f32);
  return static_cast<std::uint32_t>(round_pack(f, u, detail::f32_rne(), ocp_dialect()).code);
}
Unpacked value_of(std::uint32_t x) { return unpack(format(FormatId::f32), x); }

// f32 value as m * 2^e with m an integer (0 for zero).
void split(std::uint32_t x, std::uint64_t& m, int& e) {
  const std::uint32_t ef = (x >> 23) & 0xFF, fr = x & 0x7FFFFF;
  m = ef ? (fr | 0x800000) : fr;
  e = ef ? static_cast<int>(ef) - 150 : -149;
}

// RN_f32(a + b) (IEEE 754, rne; +0 + -0 = +0).
std::uint32_t add_f32(std::uint32_t a, std::uint32_t b, detail::WideAccumulator& acc) {
  if (is_nan(a) || is_nan(b)) return kNan;
  const bool ai = (a & 0x7FFFFFFF) == kInf, bi = (b & 0x7FFFFFFF) == kInf;
  if (ai || bi) {
    if (ai && bi && a != b) return kNan;
    return ai ? a : b;
  }
  if ((a & 0x7FFFFFFF) == 0) return (b & 0x7FFFFFFF) == 0 ? (a & b) : b;
  if ((b & 0x7FFFFFFF) == 0) return a;
  acc.clear();
  std::uint64_t m;
  int e;
  split(a, m, e);
  acc.add(a >> 31, m, e);
  split(b, m, e);
  acc.add(b >> 31, m, e);
  if (acc.is_zero()) return 0;
  return bits_of(acc.to_unpacked());
}

std::vector<std::uint32_t> transpose(std::span<const std::uint32_t> m, std::size_t rows, std::size_t cols) {
  std::vector<std::uint32_t> t(m.size());
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) t[c * rows + r] = m[r * cols + c];
  return t;
}
template <class T>
std::vector<T> transpose_v(const std::vector<T>& m, std::size_t rows, std::size_t cols) {
  std::vector<T> t(m.size());
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) t[c * rows + r] = m[r * cols + c];
  return t;
}

// _quantize_axis_last (L73-101).
LutQuantized quantize_last(LutFormat f, std::span<const std::uint32_t> x, std::size_t rows, std::size_t cols,
                           Log2Model log2) {
  const LutFormatInfo& info = lut_format(f);
  LutQuantized q;
  q.rows = rows;
  q.cols = cols;
  q.nb = (cols + kBlock - 1) / kBlock;
  const std::size_t nb_even = q.nb + (q.nb & 1);
  q.index.resize(rows * cols);
  q.dequantized.resize(rows * cols);
  q.scales.assign(rows * nb_even, kPairedPad);  // L96-100: the padding scales are 1.0
  std::vector<std::uint32_t> scaled(rows * cols);
  std::vector<std::uint32_t> scale_of(rows * q.nb);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t b = 0; b < q.nb; ++b) {
      const std::size_t first = r * cols + b * kBlock, cnt = std::min(kBlock, cols - b * kBlock);
      // L83: amax of |x| (the zero padding of L75-81 changes nothing); NaN propagates.
      std::uint32_t amax = 0;
      for (std::size_t t = 0; t < cnt; ++t) {
        const std::uint32_t v = x[first + t];
        if (is_nan(v)) {
          amax = kNan;
          break;
        }
        amax = std::max(amax, v & 0x7FFFFFFF);
      }
      const LutScale s = lut_argmin_scale(f, amax, log2);
      q.scales[r * nb_even + b] = s.e8m0;
      scale_of[r * q.nb + b] = s.scale;
      const Unpacked sv = value_of(s.scale);
      for (std::size_t t = 0; t < cnt; ++t)  // L88: blocks / scale, in f32
        scaled[first + t] = bits_of(detail::div_f32(value_of(x[first + t]), sv));
    }
  element_indices(f, scaled.data(), q.index.data(), scaled.size());  // L89
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c) {  // L90: quantized * scale, in f32
      const std::size_t i = r * cols + c;
      q.dequantized[i] =
          bits_of(detail::mul_f32(value_of(info.table[q.index[i]]), value_of(scale_of[r * q.nb + c / kBlock])));
    }
  return q;
}

}  // namespace

const LutFormatInfo& lut_format(LutFormat f) { return f == LutFormat::e2m1 ? kE2m1 : kE1m2; }

std::optional<LutFormat> parse_lut_format(std::string_view name) {
  const std::string n = detail::ascii_lower(name);
  if (n == "e2m1" || n == "fp4" || n == "fp4e2m1") return LutFormat::e2m1;
  if (n == "e1m2" || n == "fp4e1m2") return LutFormat::e1m2;
  return std::nullopt;
}

std::uint8_t lut_argmin_index(LutFormat f, std::uint32_t x) {
  if (f == LutFormat::e2m1)
    return static_cast<std::uint8_t>(convert(FormatId::f32, FormatId::e2m1, x, element_context(), lut_dialect()).code);
  return table_argmin(kE1m2, x);
}

LutScale lut_argmin_scale(LutFormat f, std::uint32_t amax, Log2Model log2) {
  LutScale s;
  if (is_nan(amax)) {  // L84-87 keep NaN; L118: NaN -> 0xFF
    s.nan = true;
    s.scale = kNan;
    s.e8m0 = 0xFF;
    return s;
  }
  amax &= 0x7FFFFFFF;
  int exp = 0;
  if (amax < kEpsilon) {
    exp = 0;  // L85
  } else if (amax == kInf) {
    exp = 127;  // log2(Inf) = Inf, clamped (L86)
  } else {
    int e = static_cast<int>(amax >> 23) - 127;  // amax >= 2^-40: normal
    if (log2 == Log2Model::correctly_rounded_f32 && log2_rounds_up(amax)) e += 1;
    exp = std::clamp(e - lut_format(f).emax, -128, 127);  // L84, L86
  }
  s.exp = exp;
  s.scale = pow2_f32(exp);  // L87
  Context c;
  c.rounding = Rounding::rne;
  c.saturation = Saturation::none;
  s.e8m0 = static_cast<std::uint8_t>(convert(FormatId::f32, FormatId::e8m0, s.scale, c, lut_dialect()).code);  // L118
  return s;
}

LutQuantized lut_argmin_quantize(LutFormat f, std::span<const std::uint32_t> matrix, std::size_t rows,
                                 std::size_t cols, int axis, Log2Model log2) {
  if (rows != 0 && cols > static_cast<std::size_t>(-1) / rows)
    throw std::invalid_argument("lut_argmin_quantize: the matrix is too large");
  if (matrix.size() != rows * cols)
    throw std::invalid_argument("lut_argmin_quantize: expected " + std::to_string(rows) + " x " + std::to_string(cols) +
                                " values, got " + std::to_string(matrix.size()));
  if (axis == 1) return quantize_last(f, matrix, rows, cols, log2);
  if (axis != 0) throw std::invalid_argument("lut_argmin_quantize: axis must be 0 or 1, got " + std::to_string(axis));
  // _quantize_axis_first (L102-104): transpose, quantize along the last axis, transpose back.
  const std::vector<std::uint32_t> t = transpose(matrix, rows, cols);
  LutQuantized qt = quantize_last(f, t, cols, rows, log2);
  LutQuantized q;
  q.rows = rows;
  q.cols = cols;
  q.nb = qt.nb;
  q.index = transpose_v(qt.index, cols, rows);
  q.dequantized = transpose_v(qt.dequantized, cols, rows);
  q.scales = transpose_v(qt.scales, cols, qt.nb + (qt.nb & 1));
  return q;
}

std::vector<std::uint8_t> pack_fp4_nibbles(std::span<const std::uint8_t> index, std::size_t rows, std::size_t cols) {
  if (index.size() != rows * cols)
    throw std::invalid_argument("pack_fp4_nibbles: expected " + std::to_string(rows * cols) + " indices, got " +
                                std::to_string(index.size()));
  const std::size_t per = (cols + 1) / 2;
  std::vector<std::uint8_t> out(rows * per);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < per; ++j) {
      const std::uint8_t lo = index[r * cols + 2 * j] & 0xF;
      const std::uint8_t hi = 2 * j + 1 < cols ? index[r * cols + 2 * j + 1] & 0xF : 0;  // L64-68: pad with 0
      out[r * per + j] = static_cast<std::uint8_t>(lo | hi << 4);                        // L69-71
    }
  return out;
}

std::vector<std::uint32_t> lut_argmin_matmul(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                                             std::size_t m, std::size_t n, std::size_t k, LutGemmModel model,
                                             Flags* flags) {
  if (a.size() != m * k || b.size() != k * n)
    throw std::invalid_argument("lut_argmin_matmul: expected A " + std::to_string(m) + " x " + std::to_string(k) +
                                " and B " + std::to_string(k) + " x " + std::to_string(n));
  std::vector<std::uint32_t> c(m * n);
  detail::WideAccumulator acc, tmp;
  Flags all = 0;
  const Format& f32 = format(FormatId::f32);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      std::uint32_t out = 0;
      if (model == LutGemmModel::f32_sequential) {
        std::uint32_t s = 0;  // +0
        for (std::size_t t = 0; t < k; ++t) {
          const std::uint32_t p = bits_of(detail::mul_f32(value_of(a[i * k + t]), value_of(b[t * n + j])));
          s = add_f32(s, p, tmp);
        }
        out = is_nan(s) ? kNan : s;
      } else {
        // Exact: every product of two f32 values is an integer (< 2^48) times 2^(>= -298).
        acc.clear();
        bool nan = false, pos_inf = false, neg_inf = false, all_neg_zero = true;
        for (std::size_t t = 0; t < k; ++t) {
          const std::uint32_t x = a[i * k + t], y = b[t * n + j];
          const bool neg = ((x ^ y) >> 31) != 0;
          const bool xz = (x & 0x7FFFFFFF) == 0, yz = (y & 0x7FFFFFFF) == 0;
          const bool xi = (x & 0x7FFFFFFF) == kInf, yi = (y & 0x7FFFFFFF) == kInf;
          if (is_nan(x) || is_nan(y) || (xi && yz) || (yi && xz)) {
            nan = true;
            continue;
          }
          if (xi || yi) {
            (neg ? neg_inf : pos_inf) = true;
            all_neg_zero = false;
            continue;
          }
          if (xz || yz) {
            all_neg_zero = all_neg_zero && neg;
            continue;
          }
          all_neg_zero = false;
          std::uint64_t mx, my;
          int ex, ey;
          split(x, mx, ex);
          split(y, my, ey);
          acc.add(neg, mx * my, ex + ey);
        }
        if (nan || (pos_inf && neg_inf)) {
          out = kNan;
          all |= flag::invalid;
        } else if (pos_inf || neg_inf) {
          out = neg_inf ? 0xFF800000 : kInf;
        } else if (acc.is_zero()) {
          out = (all_neg_zero && k > 0) ? 0x80000000 : 0;
        } else {
          const Result r = round_pack(f32, acc.to_unpacked(), detail::f32_rne(), ocp_dialect());
          out = static_cast<std::uint32_t>(r.code);
          all |= r.flags;
        }
      }
      c[i * n + j] = out;
    }
  if (flags) *flags = all;
  return c;
}

LutGemmFiles lut_argmin_gemm_golden(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                                    const LutGemmOptions& o) {
  if (o.m == 0 || o.n == 0 || o.k == 0) throw std::invalid_argument("lut_argmin_gemm_golden: m, n and k must be positive");
  if (a.size() != o.m * o.k || b.size() != o.k * o.n)
    throw std::invalid_argument("lut_argmin_gemm_golden: expected A " + std::to_string(o.m) + " x " + std::to_string(o.k) +
                                " (" + std::to_string(o.m * o.k) + " values) and B " + std::to_string(o.k) + " x " +
                                std::to_string(o.n) + " (" + std::to_string(o.k * o.n) + " values), got " +
                                std::to_string(a.size()) + " and " + std::to_string(b.size()));
  // L140-141: A along its last axis (K), B along its first (K).
  const LutQuantized qa = lut_argmin_quantize(o.a, a, o.m, o.k, 1, o.log2);
  const LutQuantized qb = lut_argmin_quantize(o.b, b, o.k, o.n, 0, o.log2);
  LutGemmFiles f;
  // L114-117, L122-125: the stored matrix (transposed if the flag is 1), then packed. The script
  // re-quantizes the quantized values to get the indices (L116); every table value maps back to
  // its own index and zero to index 0, which is what the first pass gave.
  f.a_8 = o.trans_a ? pack_fp4_nibbles(transpose_v(qa.index, o.m, o.k), o.k, o.m) : pack_fp4_nibbles(qa.index, o.m, o.k);
  f.b_8 = o.trans_b ? pack_fp4_nibbles(transpose_v(qb.index, o.k, o.n), o.n, o.k) : pack_fp4_nibbles(qb.index, o.k, o.n);
  // L142-149 and L154-157: the paired layout of scale_layout.hpp (it pads nb to even with 0x7F,
  // as L96-100 did), from the unpadded scales.
  const std::size_t nba = qa.nb, nbb = qb.nb, nba_even = nba + (nba & 1);
  std::vector<std::uint8_t> sa(o.m * nba), sb(nbb * o.n);
  for (std::size_t r = 0; r < o.m; ++r)
    for (std::size_t j = 0; j < nba; ++j) sa[r * nba + j] = qa.scales[r * nba_even + j];
  std::copy(qb.scales.begin(), qb.scales.begin() + static_cast<std::ptrdiff_t>(nbb * o.n), sb.begin());
  f.a_scale = encode_paired(sa, o.m, nba, PairedOperand::a, o.trans_a);
  f.b_scale = encode_paired(sb, nbb, o.n, PairedOperand::b, o.trans_b);
  // L158: c_fp32 = a_fp32 @ b_fp32, the untransposed dequantized matrices.
  f.expected = lut_argmin_matmul(qa.dequantized, qb.dequantized, o.m, o.n, o.k, LutGemmModel::exact, &f.expected_flags);
  f.f32_sequential = lut_argmin_matmul(qa.dequantized, qb.dequantized, o.m, o.n, o.k, LutGemmModel::f32_sequential);
  f.a_dequantized = qa.dequantized;
  f.b_dequantized = qb.dequantized;
  return f;
}

std::vector<std::uint32_t> gemm_golden_inputs(std::uint64_t seed, std::size_t count) {
  SplitMix64 rng(seed);
  std::vector<std::uint32_t> v(count);
  Context c;
  c.rounding = Rounding::rne;
  c.saturation = Saturation::none;
  for (auto& x : v) {
    std::int64_t s = 0;
    for (int i = 0; i < 12; ++i) s += static_cast<std::int64_t>(rng.next() >> 40);
    const double d = std::ldexp(static_cast<double>(s - 6 * (std::int64_t{1} << 24)), -24);  // exact
    x = static_cast<std::uint32_t>(convert(FormatId::f64, FormatId::f32, std::bit_cast<std::uint64_t>(d), c).code);
  }
  return v;
}

}  // namespace softmx
