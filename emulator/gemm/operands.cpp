// emulator/gemm/operands.cpp: the GEMM's operands: their checks (check_shape,
// check_runtime_range), what the driver knows of each (make_side: tables, specials, scale
// ranges), and the public helpers that make them (gemm_rows, gemm_columns, with_scale_format).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "gemm/driver.hpp"
#include "softmx/batch.hpp"
#include "softmx/block.hpp"

namespace softmx::gemm_detail {

void check_shape(const GemmOperand& o, bool is_b) {
  const std::string w = "gemm: operand " + side_name(is_b) + ": ";
  if (o.format.is_named() && !is_mx_element(o.format.id()))
    throw std::invalid_argument(w + std::string(o.format.name()) +
                                " is not an MX element format (e4m3, e5m2, e3m2, e2m3, e2m1, int8, or a runtime "
                                "format of at most 8 bits such as e1m2)");
  if (auto why = mx_element_reason(o.format)) throw std::invalid_argument(w + *why);
  if (o.rows == 0) throw std::invalid_argument(w + "rows is 0 (at least one vector)");
  if (o.k == 0) throw std::invalid_argument(w + "k is 0 (at least one element per vector)");
  if (o.block == 0) throw std::invalid_argument(w + "block is 0 (at least one element per block)");
  std::size_t last = 0;
  if (!mul_add(o.rows - 1, o.row_stride, 0, last) || !mul_add(o.k - 1, o.k_stride, last, last) || last >= o.codes.size())
    throw std::invalid_argument(w + "codes holds " + std::to_string(o.codes.size()) + " bytes; " +
                                std::to_string(o.rows) + " vectors of " + std::to_string(o.k) + " codes with strides " +
                                std::to_string(o.row_stride) + " (vector) and " + std::to_string(o.k_stride) +
                                " (element) need at least " + std::to_string(last + 1));
  std::size_t sb = 1;  // bytes per scale code
  if (any_scale_format(o)) {
    if (auto why = mx_scale_reason(*o.block_scale_format)) throw std::invalid_argument(w + "block_scale_format: " + *why);
    sb = scale_code_bytes(*o.block_scale_format);
  } else if (o.scale_format != FormatId::e8m0 && o.scale_format != FormatId::e4m3) {
    throw std::invalid_argument(w + "scale_format " + std::string(format(o.scale_format).name) +
                                " is not a block scale format (e8m0, or e4m3 for UE4M3; block_scale_format takes the "
                                "others)");
  }
  const std::size_t nb = o.blocks();
  std::size_t bytes = 0;
  if (!mul_add(o.rows - 1, o.scale_row_stride, 0, last) || !mul_add(nb - 1, o.scale_block_stride, last, last) ||
      !mul_add(last + 1, sb, 0, bytes) || bytes > o.scales.size())
    throw std::invalid_argument(w + "scales holds " + std::to_string(o.scales.size()) + " bytes; " +
                                std::to_string(o.rows) + " vectors of " + std::to_string(nb) + " blocks with strides " +
                                std::to_string(o.scale_row_stride) + " (vector) and " +
                                std::to_string(o.scale_block_stride) + " (block) need at least " +
                                std::to_string(last + 1) + (sb > 1 ? " codes of " + std::to_string(sb) + " bytes" : ""));
}

/// What the driver knows about one operand: its tables and, per vector, whether it holds a NaN
/// or Inf code or a NaN scale (its outputs go to the reference) and its scale codes' range.

Side make_side(const GemmOperand& o, bool is_b, bool flush) {
  Side s;
  s.op = &o;
  s.is_b = is_b;
  s.nb = o.blocks();
  s.tab = make_element_tables(o.format, flush);
  s.special.assign(o.rows, 0);
  s.smin.assign(o.rows, 255);
  s.smax.assign(o.rows, 0);
  if (any_scale_format(o)) s.sbytes = scale_code_bytes(*o.block_scale_format);
  const std::uint8_t mask = s.tab.code_mask;
  for (std::size_t r = 0; r < o.rows; ++r) {
    std::uint8_t all = 0;
    bool sp = false;
    for (std::size_t t = 0; t < o.k; ++t) {
      const std::uint8_t c = s.code(r, t);
      all |= c;
      sp |= s.tab.special[c];
    }
    if (all > mask)
      for (std::size_t t = 0; t < o.k; ++t)
        if (s.code(r, t) > mask)
          throw std::invalid_argument("gemm: operand " + side_name(is_b) + ": code " + std::to_string(s.code(r, t)) +
                                      " (vector " + std::to_string(r) + ", element " + std::to_string(t) +
                                      ") is out of range for " + std::string(o.format.name()));
    if (any_scale_format(o)) {  // the reference reads them; their range is checked here
      for (std::size_t b = 0; b < s.nb; ++b)
        if (const std::uint32_t x = s.scale_code(r, b); x > o.block_scale_format->code_mask())
          throw std::invalid_argument("gemm: operand " + side_name(is_b) + ": scale code " + std::to_string(x) +
                                      " (vector " + std::to_string(r) + ", block " + std::to_string(b) +
                                      ") is out of range for " + std::string(o.block_scale_format->name) + " (0.." +
                                      std::to_string(o.block_scale_format->code_mask()) + ")");
      // The elements' specials; the scales' are decode_scales' (or every output is the
      // reference's, which reads them).
      s.special[r] = sp;
      s.smin[r] = s.smax[r] = 127;
      continue;
    }
    for (std::size_t b = 0; b < s.nb; ++b) {
      const std::uint8_t x = s.scale(r, b);
      if (o.scale_format == FormatId::e8m0 ? x == 0xFF : (x & 0x7F) == 0x7F) {
        sp = true;  // OCP MX 6.2: a NaN scale makes every element NaN (UE4M3: 0x7F, 0xFF)
        continue;
      }
      s.smin[r] = std::min<std::int32_t>(s.smin[r], x);
      s.smax[r] = std::max<std::int32_t>(s.smax[r], x);
    }
    s.special[r] = sp;
    if (s.smin[r] > s.smax[r]) s.smin[r] = s.smax[r] = 127;  // every scale NaN (special anyway)
  }
  int qmax = s.tab.parts[0].q;
  s.qmin = qmax;
  for (const Component& p : s.tab.parts) {
    s.qmin = std::min(s.qmin, p.q);
    qmax = std::max(qmax, p.q);
  }
  s.qspan = qmax - s.qmin;
  return s;
}

bool exact_scales_fit(const Side& a, const Side& b, const Format& sf, std::size_t K) {
  const int sbits = sf.man_bits + 1;
  int pbits = 0;
  for (const Component& x : a.tab.parts)
    for (const Component& y : b.tab.parts) pbits = std::max(pbits, x.bits + y.bits);
  if (pbits + 2 * sbits > 51) return false;
  const Format &fa = a.op->format, &fb = b.op->format;
  const int lo = a.qmin + b.qmin + 2 * (sf.emin() - sf.man_bits);
  const int hi = element_emax(fa) + element_emax(fb) + 2 + 2 * (element_emax(sf) + 1) + static_cast<int>(std::bit_width(K));
  return lo >= -320 && hi <= 430;
}

void decode_scales(Side& s, const Format& sf, std::uint32_t mask) {
  const std::size_t rows = s.op->rows, nb = s.nb;
  s.sbits = sf.man_bits + 1;
  s.bexp.assign(rows * nb, 0);
  s.ssig.assign(rows * nb, 0.0);
  for (std::size_t r = 0; r < rows; ++r) {
    std::int32_t lo = std::numeric_limits<std::int32_t>::max(), hi = std::numeric_limits<std::int32_t>::min();
    bool sp = false;
    for (std::size_t b = 0; b < nb; ++b) {
      const Unpacked u = unpack(sf, s.scale_code(r, b) & mask);
      if (u.cls == ValueClass::nan || u.cls == ValueClass::inf) {
        sp = true;  // the reference: NaN or Inf products, and the flags of a signalling NaN
        continue;
      }
      if (u.cls != ValueClass::finite) continue;  // a zero scale: zero products (ssig 0)
      const int tz = std::countr_zero(u.sig);
      const double mag = static_cast<double>(u.sig >> tz);  // odd, below 2^sbits: exact
      const std::int32_t e = u.exp - 63 + tz + 127;
      s.ssig[r * nb + b] = u.sign ? -mag : mag;
      s.bexp[r * nb + b] = e;
      lo = std::min(lo, e);
      hi = std::max(hi, e);
    }
    if (lo > hi) lo = hi = 127;  // no non-zero finite scale
    s.smin[r] = lo;
    s.smax[r] = hi;
    if (sp) s.special[r] = 1;
    for (std::size_t b = 0; b < nb; ++b)
      if (s.ssig[r * nb + b] == 0.0) s.bexp[r * nb + b] = lo;
  }
}

bool seq_scales_fit(const Format& sf) {
  return sf.man_bits <= 13 && sf.emin() - sf.man_bits >= -149 && element_emax(sf) <= 127;
}

void decode_scale_values(Side& s, const Format& sf, std::uint32_t mask) {
  const std::size_t rows = s.op->rows, nb = s.nb;
  s.sval.assign(rows * nb, 0.0f);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t b = 0; b < nb; ++b) {
      const Unpacked u = unpack(sf, s.scale_code(r, b) & mask);
      if (u.cls == ValueClass::nan || u.cls == ValueClass::inf) {
        s.special[r] = 1;  // the reference: NaN, Inf, Inf x 0 and a signalling NaN's invalid
        continue;
      }
      // sig * 2^(exp - 63), sig of at most 14 significant bits: exact in a double, and in f32
      // (seq_scales_fit); a zero keeps its sign.
      const double v = u.cls == ValueClass::finite ? std::ldexp(static_cast<double>(u.sig), u.exp - 63) : 0.0;
      s.sval[r * nb + b] = static_cast<float>(u.sign ? -v : v);
    }
}

/// As dot_general() (dot.cpp's validate): with a runtime element, every product (element values
/// times scales 2^-127..2^127) and the sum of a vector's products must lie in the exact
/// accumulator's range, 2^-320 .. 2^430; a bias far from the default may leave it. The widest
/// block pair count times block length is the first block's (nb blocks of min(block, k)).
void check_runtime_range(const std::string& what, const GemmOperand& a, const GemmOperand& b) {
  const Format &fa = a.format, &fb = b.format;
  const std::size_t terms = a.blocks() * std::min(a.block, a.k);
  const int lo = fa.emin() - fa.man_bits + fb.emin() - fb.man_bits - 254;
  const int hi = element_emax(fa) + element_emax(fb) + 2 + 254 + static_cast<int>(std::bit_width(terms));
  if (lo < -320 || hi > 430)
    throw std::invalid_argument(what + ": the products of " + std::string(fa.name) + " and " + std::string(fb.name) +
                                " span 2^" + std::to_string(lo) + " to 2^" + std::to_string(hi) +
                                ", beyond the exact accumulator's 2^-320 to 2^430 (bias: choose one nearer the "
                                "default)");
}
}  // namespace softmx::gemm_detail

namespace softmx {

std::optional<FormatId> gemm_scale_format(const ScaleFormat& sf) {
  if (sf.is_e8m0()) return FormatId::e8m0;
  if (sf == ScaleFormat(FormatId::e4m3) || sf == ScaleFormat(ue4m3_format())) return FormatId::e4m3;
  return std::nullopt;
}

GemmOperand with_scale_format(GemmOperand op, const ScaleFormat& sf) {
  if (const std::optional<FormatId> id = gemm_scale_format(sf)) {
    op.scale_format = *id;
    op.block_scale_format = nullptr;
  } else {
    op.block_scale_format = &sf.format();
  }
  return op;
}

namespace {

/// An operand of `vectors` vectors of k codes with the given strides (codes: vector, element;
/// scales: vector, block).
GemmOperand strided(const ElementFormat& format, std::size_t vectors, std::size_t k, std::size_t block,
                    std::span<const std::uint8_t> codes, std::span<const std::uint8_t> scales,
                    std::array<std::size_t, 2> code_strides, std::array<std::size_t, 2> scale_strides) {
  GemmOperand o;
  o.format = format;
  o.rows = vectors;
  o.k = k;
  o.block = block;
  o.codes = codes;
  o.row_stride = code_strides[0];
  o.k_stride = code_strides[1];
  o.scales = scales;
  o.scale_row_stride = scale_strides[0];
  o.scale_block_stride = scale_strides[1];
  return o;
}

}  // namespace

GemmOperand gemm_rows(const ElementFormat& format, std::size_t rows, std::size_t k, std::size_t block,
                      std::span<const std::uint8_t> codes, std::span<const std::uint8_t> scales) {
  const std::size_t nb = block ? (k + block - 1) / block : 0;  // GemmOperand::blocks()
  return strided(format, rows, k, block, codes, scales, {k, 1}, {nb, 1});
}

GemmOperand gemm_columns(const ElementFormat& format, std::size_t k, std::size_t columns, std::size_t block,
                         std::span<const std::uint8_t> codes, std::span<const std::uint8_t> scales) {
  return strided(format, columns, k, block, codes, scales, {1, columns}, {1, columns});
}

}  // namespace softmx
