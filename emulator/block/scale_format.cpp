// emulator/block/scale_format.cpp: MX blocks whose shared scale is not E8M0 (docs/BLOCKS.md
// 1.2 and 2): the scale S = RN(amax / max_E) in a floating-point scale format of at most 32
// bits (ue4m3, ue5m3, e4m3, bf16, f16, f32, ...), every element x / S rounded once, and value(code) * S rounded once
// on the way back. The quotients and products are exact (integer arithmetic with a sticky bit),
// so every result is rounded exactly once; no reciprocal is formed.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "block/block_quantizer.hpp"
#include "block/f32_arith.hpp"
#include "block/scaled_product.hpp"
#include "softmx/block.hpp"
#include "softmx/convert.hpp"

namespace softmx {
namespace {

using detail::exact_product;
using detail::exact_quotient;
using detail::nan_value;

}  // namespace

std::optional<std::string> mx_scale_reason(const Format& f) {
  if (f.id == FormatId::e8m0) return std::nullopt;
  const std::string head = "scale_format " + std::string(f.name) + ": ";
  if (f.width > 32)
    return head + "width: " + std::to_string(f.width) + " bits; a scale format has at most 32 (f32)";
  if (f.fixed_point) return head + "fixed: an integer format cannot be a block scale (use e8m0, ue4m3, ue5m3, ...)";
  if (f.sign == SignEncoding::twos_complement)
    return head + "sign: two's complement; a scale format is unsigned (ue4m3) or sign-magnitude (e4m3)";
  const std::uint64_t max = f.max_finite_magnitude();
  if (max == 0 || unpack(f, max).cls != ValueClass::finite)
    return head + "specials: it has no finite positive value to scale by";
  return std::nullopt;
}

const Format& ue4m3_format() {
  static const Format f = parse_format_spec("ue4m3");  // immutable once made (thread-safe init)
  return f;
}

std::size_t scale_code_bytes(const Format& f) { return f.width <= 8 ? 1 : f.width <= 16 ? 2 : 4; }

std::size_t ScaleFormat::code_bytes() const { return scale_code_bytes(f_); }

std::uint32_t load_scale_code(const std::uint8_t* scales, std::size_t i, std::size_t bytes) {
  switch (bytes) {
    case 1: return scales[i];
    case 2: {
      std::uint16_t c;
      std::memcpy(&c, scales + 2 * i, 2);  // memcpy: the array need not be aligned
      return c;
    }
    default: {
      std::uint32_t c;
      std::memcpy(&c, scales + 4 * i, 4);
      return c;
    }
  }
}

void store_scale_code(std::uint8_t* scales, std::size_t i, std::size_t bytes, std::uint32_t code) {
  switch (bytes) {
    case 1: scales[i] = static_cast<std::uint8_t>(code); break;
    case 2: {
      const auto c = static_cast<std::uint16_t>(code);
      std::memcpy(scales + 2 * i, &c, 2);
      break;
    }
    default: std::memcpy(scales + 4 * i, &code, 4); break;
  }
}

std::optional<std::string> scale_format_unsupported_reason(const ScaleFormat& sf, const Dialect& d) {
  if (sf.is_e8m0()) return std::nullopt;
  if (auto why = mx_scale_reason(sf)) return why;
  const std::string head = "scale_format " + std::string(sf.name()) + ": dialect " + std::string(d.name) + " ";
  const BlockPolicies& b = d.block;
  if (b.element_scaling != ElementScaling::exact || b.dequant_scaling != DequantScaling::exact)
    return head + "scales elements in f32 with E8M0 scales only (a scale format other than e8m0 needs exact scaling)";
  if (b.int8_integer_elements) return head + "models MXINT8 integers with E8M0 scales only";
  if (b.nan_block == NanBlock::nanmax || b.nan_scale_elements == NanScaleElements::hw_exact_subnormals)
    return head + "handles NaN blocks in a way defined for E8M0 scales only";
  return std::nullopt;
}

Result dequantize_element(const Format& element, const ScaleFormat& scale_format, std::uint32_t scale,
                          std::uint8_t code, FormatId dst, const Context& given, const Dialect& dialect) {
  if (scale_format.is_e8m0()) {
    if (scale > 0xFF)
      throw std::invalid_argument("dequantize: scale code " + std::to_string(scale) + " is out of range for e8m0 (0..255)");
    return dequantize_element(element, static_cast<std::uint8_t>(scale), code, dst, given, dialect);
  }
  if (auto why = mx_scale_reason(scale_format)) throw std::invalid_argument("dequantize: " + *why);
  if (auto why = scale_format_unsupported_reason(scale_format, dialect)) throw Unsupported("dequantize: " + *why);
  const Format& sf = scale_format;
  if (scale > sf.code_mask())
    throw std::invalid_argument("dequantize: scale code " + std::to_string(scale) + " is out of range for " +
                                std::string(sf.name) + " (0.." + std::to_string(sf.code_mask()) + ")");
  return detail::scaled_product(unpack(element, code), unpack(sf, scale), format(dst), resolve(dialect, dst, given),
                                dialect);
}

namespace detail {

Result scaled_product(const Unpacked& x, const Unpacked& s, const Format& dst, const Context& ctx,
                      const Dialect& dialect) {
  Unpacked u;
  Flags extra = 0;
  const bool sign = x.sign != s.sign;
  if (x.cls == ValueClass::nan || s.cls == ValueClass::nan) {
    // The element's NaN (round_pack raises invalid for a signalling one), else a quiet NaN;
    // a signalling NaN scale raises invalid as an IEEE multiplication does.
    u = x.cls == ValueClass::nan ? x : nan_value();
    if (s.cls == ValueClass::nan && !s.nan_quiet) extra = flag::invalid;
  } else if ((x.cls == ValueClass::inf && s.cls == ValueClass::zero) ||
             (x.cls == ValueClass::zero && s.cls == ValueClass::inf)) {
    u = nan_value();  // 0 * Inf
    extra = flag::invalid;
  } else if (x.cls == ValueClass::inf || s.cls == ValueClass::inf) {
    u.cls = ValueClass::inf;
    u.sign = sign;
  } else if (x.cls == ValueClass::zero || s.cls == ValueClass::zero) {
    u.cls = ValueClass::zero;
    u.sign = sign;
  } else {
    u = exact_product(x, s);
  }
  Result r = round_pack(dst, u, ctx, dialect);
  r.flags |= extra;
  return r;
}

void BlockQuantizer::init_scale_format() {
  const Format& sf = o_.scale_format;
  // Positive codes rise with the code (unsigned and sign-magnitude formats alike): the
  // smallest positive one is code 1 (a subnormal), or the first normal without subnormals
  // (found within 2^man_bits steps, and only formats without subnormals take more than one).
  for (std::uint64_t c = 1; c <= sf.code_mask(); ++c) {
    const Unpacked u = unpack(sf, c);
    if (u.cls == ValueClass::finite && !u.sign) {
      scale_min_code_ = static_cast<std::uint32_t>(c);
      break;
    }
  }
  // The NaN a NaN scale takes: the scale format's own quiet NaN (round_pack of a positive
  // quiet NaN: 0x7F for e4m3, 0x7FC00000 for f32, 0x80 for a fnuz format), if it has one.
  Unpacked qnan;
  qnan.cls = ValueClass::nan;
  qnan.nan_quiet = true;
  qnan.nan_payload = std::uint64_t{1} << 63;
  Context c;
  c.saturation = Saturation::none;
  const std::uint64_t nan = round_pack(sf, qnan, c, ocp_dialect()).code;
  const Unpacked back = unpack(sf, nan);
  scale_nan_code_ = back.cls == ValueClass::nan && back.nan_quiet ? static_cast<std::int64_t>(nan) : -1;
  max_element_ = unpack(ef_, ef_.max_finite_magnitude());
  init_scale_lanes();
}

std::uint32_t BlockQuantizer::run_scale_format(const void* values, std::size_t count, const std::uint64_t* rbits,
                                              std::uint8_t* codes, Flags& flags) {
  if (std::uint32_t S = 0; scale_quotient_ && run_scale_lanes(values, count, codes, flags, S)) return S;
  const Format& sf = o_.scale_format;
  const BlockPolicies& bp = d_.block;
  const Format& src = format(src_);
  v_.resize(count);
  bool has_nan = false, has_inf = false, snan = false;
  Unpacked amax;  // zero
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t bits;
    switch (src.width) {
      case 16: bits = static_cast<const std::uint16_t*>(values)[i]; break;
      case 32: bits = static_cast<const std::uint32_t*>(values)[i]; break;
      default: bits = static_cast<const std::uint64_t*>(values)[i]; break;
    }
    v_[i] = unpack(src, bits);
    const Unpacked& u = v_[i];
    if (u.cls == ValueClass::nan) {
      has_nan = true;
      snan |= !u.nan_quiet;
    } else if (u.cls == ValueClass::inf) {
      has_inf = true;
    } else if (u.cls == ValueClass::finite &&
               (amax.cls == ValueClass::zero || u.exp > amax.exp || (u.exp == amax.exp && u.sig > amax.sig))) {
      amax = u;
      amax.sign = false;
    }
  }

  // The scale (BLOCKS.md 1.2).
  const bool nan_policy = (has_nan && bp.nan_block == NanBlock::nan_scale) || (has_inf && bp.inf_block == InfBlock::nan_scale);
  std::uint32_t S = 0;
  Unpacked scale;  // its value; NaN for a NaN scale
  if (nan_policy && scale_nan_code_ >= 0) {
    S = static_cast<std::uint32_t>(scale_nan_code_);
    scale = nan_value();
    if ((has_inf && bp.inf_block == InfBlock::nan_scale) || snan) flags |= flag::invalid;
  } else {
    if (has_inf && bp.inf_block == InfBlock::max_scale) {
      S = static_cast<std::uint32_t>(sf.max_finite_magnitude());
    } else if (amax.cls == ValueClass::zero) {
      S = 0;  // a zero block: code 0 (+0, or the smallest value of a format without zero)
    } else {
      Context c;  // RNE, saturating to the scale format's largest finite value
      c.rounding = Rounding::rne;
      c.saturation = Saturation::finite;
      S = static_cast<std::uint32_t>(round_pack(sf, exact_quotient(amax, max_element_), c, ocp_dialect()).code);
      if (unpack(sf, S).cls != ValueClass::finite) S = scale_min_code_;  // rounded to 0: the smallest positive scale
    }
    scale = unpack(sf, S);
  }

  if (d_.nan_to_finite == NanToFinite::error && !ef_.has_nan() && has_nan)
    throw Unsupported("quantize: dialect " + std::string(d_.name) + " cannot encode NaN in " + std::string(ef_.name) +
                      " (it raises \"No NaN in format\")");
  const bool nan_scale = scale.cls == ValueClass::nan;
  if (nan_scale && bp.nan_scale_elements == NanScaleElements::zero) {
    std::fill(codes, codes + count, std::uint8_t{0});
    return S;
  }
  Context c = ctx_;
  for (std::size_t i = 0; i < count; ++i) {
    Unpacked u = v_[i];
    if (nan_scale) {
      if (bp.nan_scale_elements == NanScaleElements::nan && u.cls != ValueClass::nan) u = nan_value();
      // NanScaleElements::convert: the value itself, unscaled (as E8M0's NaN scale does).
    } else if (u.cls == ValueClass::finite) {
      if (scale.cls == ValueClass::zero) {  // a zero scale (code 0 of a zero block: no finite non-zero value here)
        u.cls = ValueClass::zero;
      } else {
        u = exact_quotient(u, scale);  // x / S exactly, with a sticky bit: rounded once below
      }
    }
    if (stochastic()) c.rbits = rbits[i];
    const Result r = round_element(u, c);
    codes[i] = static_cast<std::uint8_t>(r.code);
    flags |= r.flags;
  }
  if (negative_zero_)
    for (std::size_t i = 0; i < count; ++i)
      if (codes[i] == negative_zero_) codes[i] = 0;
  return S;
}

}  // namespace detail
}  // namespace softmx
