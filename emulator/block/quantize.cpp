// emulator/block/quantize.cpp: block quantization and dequantization (docs/BLOCKS.md 1-2).
#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

#include "block/block_quantizer.hpp"
#include "block/f32_arith.hpp"
#include "core/ascii.hpp"
#include "softmx/block.hpp"
#include "softmx/convert.hpp"

namespace softmx {
namespace {


std::uint64_t load(FormatId src, const void* values, std::size_t i) {
  switch (format(src).width) {
    case 16: return static_cast<const std::uint16_t*>(values)[i];
    case 32: return static_cast<const std::uint32_t*>(values)[i];
    default: return static_cast<const std::uint64_t*>(values)[i];
  }
}

// True when the normalized significand of a is greater than b's (compares 1.f fractions).
bool fraction_greater(const Unpacked& a, const Unpacked& b) {
  return a.sig > b.sig || (a.sig == b.sig && a.sticky && !b.sticky);
}

__extension__ using u128 = unsigned __int128;

const Format& f32() { return format(FormatId::f32); }

Context rne_none() {
  Context c;
  c.saturation = Saturation::none;
  return c;
}

// x rounded to f32 (rne, Inf on overflow) and read back exactly.
Unpacked to_f32(const Unpacked& x) { return unpack(f32(), round_pack(f32(), x, rne_none(), ocp_dialect()).code); }

// RN_f32(1 / max_E): the reciprocal an implementation stores as a float constant.
Unpacked f32_reciprocal_of_max(const Format& element) {
  const Unpacked max = unpack(element, element.max_finite_magnitude());
  const std::uint64_t m = max.sig >> std::countr_zero(max.sig);  // odd integer significand
  const int e = max.exp - (63 - std::countr_zero(max.sig));       // max = m * 2^e
  // 1/max = 2^127 / m * 2^(-127 - e): a 128-by-64-bit division keeps 64+ bits and a sticky.
  const u128 num = static_cast<u128>(1) << 127;
  const u128 q = num / m;
  Unpacked r;
  r.cls = ValueClass::finite;
  const int lz = std::countl_zero(static_cast<std::uint64_t>(q >> 64));
  const int top = 127 - (q >> 64 ? lz : 64 + std::countl_zero(static_cast<std::uint64_t>(q)));
  r.sig = static_cast<std::uint64_t>(q >> (top - 63));
  r.sticky = (q & ((static_cast<u128>(1) << (top - 63)) - 1)) != 0 || num % m != 0;
  r.exp = top - 127 - e;
  return to_f32(r);
}

// round_f32(a * b) for finite non-zero a, b.
Unpacked f32_product(const Unpacked& a, const Unpacked& b) { return to_f32(detail::exact_product(a, b)); }

// The scale of a block with finite amax > 0 under the dialect's rule and policies: the
// exponent s, or nan.
struct Scale {
  int s = 0;
  bool nan = false;
};

Scale block_scale(const Unpacked& amax, ScaleRule rule, const Format& element, const BlockPolicies& p, int precision) {
  if (rule == ScaleRule::rceil && p.rceil_f32_reciprocal) {
    // descale = RN_f32(amax_f32 * RN_f32(1 / max_E)), then rounded up to a power of two.
    const Unpacked a = to_f32(amax);
    if (a.cls == ValueClass::inf) return {127, p.scale_overflow == ScaleOverflow::nan};
    const Unpacked d = f32_product(a, f32_reciprocal_of_max(element));
    if (d.cls == ValueClass::zero) return {-127, false};
    const bool power_of_two = d.sig == (std::uint64_t{1} << 63);
    return {d.exp + (power_of_two ? 0 : 1), false};
  }
  if (rule == ScaleRule::even && p.even_f32_overflow_nan && scale_exponent(rule, amax, element) + element_emax(element) > 127)
    return {0, true};  // the rounded f32 amax became Inf
  return {scale_exponent(rule, amax, element, precision), false};
}

// The -0 code of a sign-magnitude element format with a zero, or 0 when it has none (MXINT8;
// an fnuz format, whose sign bit alone is its NaN).
std::uint8_t negative_zero_code(const Format& f) {
  return f.has_negative_zero() ? static_cast<std::uint8_t>(1u << (f.width - 1)) : 0;
}

// ZeroSign::positive: every -0 code becomes +0 (flags unchanged: a negative value that rounds
// to zero underflows either way).
void positive_zeros(std::uint8_t* codes, std::size_t n, std::uint8_t negative_zero) {
  if (!negative_zero) return;
  for (std::size_t i = 0; i < n; ++i)
    if (codes[i] == negative_zero) codes[i] = 0;
}

}  // namespace

int element_emax(FormatId element) { return element_emax(format(element)); }

// floor(log2 max_E). For a largest magnitude that is normal: its exponent field minus the bias;
// for a subnormal one (a format without normals, or ieee specials with one exponent bit): the
// position of its leading fraction bit, emin - m + floor(log2 fraction).
int element_emax(const Format& f) {
  const std::uint64_t max = f.max_finite_magnitude();
  if (max == 0) return 0;  // no finite non-zero value (mx_element_reason refuses it)
  const int field = static_cast<int>(max >> f.man_bits);
  if (field > 0) return field - f.bias;
  return static_cast<int>(std::bit_width(max)) - 1 + f.emin() - f.man_bits;
}

std::optional<std::string> mx_element_reason(const Format& f) {
  const std::string n(f.name);
  if (f.is_named()) {
    if (is_mx_element(f.id)) return std::nullopt;
    return n + " is not an MX element format (e4m3, e5m2, e3m2, e2m3, e2m1, int8, or a runtime spec of at most 8 bits)";
  }
  const std::string head = "the runtime format " + n + " cannot be an MX element: ";
  if (f.width > 8)
    return head + "width: " + std::to_string(f.width) + " bits, an MX element has at most 8 (codes are bytes)";
  if (!f.is_signed()) return head + "sign: it is unsigned, and a block's values may be negative";
  if (!f.subnormals) return head + "subnormals: exponent field 0 must hold zero (a block's zeros need a code)";
  if (f.max_finite_magnitude() == 0 || unpack(f, f.max_finite_magnitude()).cls != ValueClass::finite)
    return head + "specials: it has no finite non-zero value to scale to";
  return std::nullopt;
}

int scale_exponent(ScaleRule rule, const Unpacked& amax, FormatId element, int precision) {
  return scale_exponent(rule, amax, format(element), precision);
}

int scale_exponent(ScaleRule rule, const Unpacked& amax, const Format& element, int precision) {
  const int emax = element_emax(element);
  switch (rule) {
    case ScaleRule::floor_log2_rn: return floor_log2_rounded(amax, precision) - emax;
    case ScaleRule::floor: return amax.exp - emax;
    case ScaleRule::ceil: {
      const bool power_of_two = amax.sig == (std::uint64_t{1} << 63) && !amax.sticky;
      return amax.exp + (power_of_two ? 0 : 1) - emax;
    }
    case ScaleRule::even: {
      // Round amax to m_E + 1 significant bits, ties away: a carry into the next binade
      // happens iff those bits are all ones and the next bit is one.
      const int m = element.man_bits;
      const std::uint64_t kept_and_half = amax.sig >> (62 - m);  // m + 2 bits
      const bool carry = kept_and_half == (std::uint64_t{1} << (m + 2)) - 1;
      return amax.exp + (carry ? 1 : 0) - emax;
    }
    case ScaleRule::rceil: {
      // Smallest s with max_E * 2^s >= amax.
      const Unpacked max = unpack(element, element.max_finite_magnitude());
      return amax.exp - max.exp + (fraction_greater(amax, max) ? 1 : 0);
    }
  }
  return 0;
}

namespace detail {

namespace {

// A scale rule or scale exponent range set with a scale format other than E8M0 (they shape
// E8M0 scales only), and a scale exponent range outside E8M0's: bad input, not a dialect's refusal.
bool e8m0_shaping_without_e8m0(const BlockOptions& o) {
  return !o.scale_format.is_e8m0() && (o.rule || o.custom_rule || o.scale_min != -127 || o.scale_max != 127);
}
bool bad_scale_range(const BlockOptions& o) { return o.scale_min < -127 || o.scale_max > 127 || o.scale_min > o.scale_max; }

// The checks of BlockQuantizer's constructor, as a message (quantize_unsupported_reason).
std::optional<std::string> unsupported(FormatId src, const BlockOptions& o, const Dialect& d, const Context& ctx) {
  if (!is_ieee_host_format(src))
    return "quantize: the source must be f64, f32, f16 or bf16, not " + std::string(format(src).name);
  if (auto why = mx_element_reason(o.element)) return "quantize: " + *why;
  if (!d.block.unsupported.empty()) return "quantize: dialect " + std::string(d.name) + ": " + std::string(d.block.unsupported);
  if (!(d.block.sources & format_bit(src)))
    return "quantize: dialect " + std::string(d.name) + " does not quantize " + std::string(format(src).name) + " data (" +
           std::string(d.block.sources_why) + ")";
  if (auto why = unsupported_reason(d, o.element, ctx)) return "quantize: " + *why;
  if (auto why = scale_format_unsupported_reason(o.scale_format, d)) return "quantize: " + *why;
  if (e8m0_shaping_without_e8m0(o))
    return "quantize: scale_format " + std::string(o.scale_format.name()) +
           ": the scale rule and the scale exponent range shape E8M0 scales only; leave them unset";
  if (bad_scale_range(o))
    return "quantize: the scale exponent range [" + std::to_string(o.scale_min) + ", " + std::to_string(o.scale_max) +
           "] must lie within E8M0's [-127, 127] with min <= max";
  return std::nullopt;
}

Context element_context(const BlockOptions& o, const Dialect& d) {
  Context c;
  c.rounding = o.rounding.value_or(d.block.element_rounding);
  // Unset or by_destination: the dialect's block element saturation (BlockOptions).
  c.saturation = o.saturation && *o.saturation != Saturation::by_destination ? *o.saturation : d.block.element_saturation;
  c.tininess = o.tininess;
  c.rbits_width = o.rbits_width;
  return c;
}

}  // namespace

BlockQuantizer::BlockQuantizer(FormatId src, const BlockOptions& o)
    : src_(src), o_(o), d_(o.dialect ? *o.dialect : ocp_dialect()), ef_(o.element.format()) {
  ctx_ = element_context(o, d_);
  if (auto why = unsupported(src, o, d_, ctx_)) {
    // A source or element that is no MX operation at all, or a bad scale range: invalid_argument;
    // what this dialect refuses (its blocks, sources or element modes): Unsupported.
    const bool bad_input = !is_ieee_host_format(src) || mx_element_reason(o.element) || mx_scale_reason(o.scale_format) ||
                           e8m0_shaping_without_e8m0(o) || bad_scale_range(o);
    if (bad_input) throw std::invalid_argument(*why);
    throw Unsupported(*why);
  }
  rule_ = o.rule.value_or(d_.block.scale_rule);
  // A named element rounds through its specialised kernel, a runtime one through round_pack
  // reading the descriptor: the same round_pack_inline (round_element()).
  if (ef_.is_named()) round_pack_ = round_pack_kernel_for(ef_.id, ctx_.rounding);
  // MXINT8 as integers (torchmx): the scale is 2^6 finer than OCP's for the same elements.
  shift_ = o.element == FormatId::int8 && d_.block.int8_integer_elements ? 6 : 0;
  // The precision of the values the scale rule sees (floor_log2_rn): dialects that compute in
  // f32 round f64 data to f32 first.
  const bool f32_data = d_.block.element_scaling != ElementScaling::exact && format(src).width > 32;
  precision_ = f32_data ? 24 : format(src).man_bits + 1;
  negative_zero_ = d_.block.zero_sign == ZeroSign::positive ? negative_zero_code(ef_) : 0;
  isa_ = o.isa.value_or(default_isa());
  if (!isa_supported(isa_)) throw Unsupported(std::string("quantize: this CPU cannot run ") + name(isa_));
  // A scale format other than E8M0 takes run_scale_format() (scale_format.cpp); the vector
  // kernels serve E8M0 scales only.
  generic_scale_ = !o.scale_format.is_e8m0();
  scale_bytes_ = o.scale_format.code_bytes();
  if (generic_scale_) init_scale_format();
  // The vector kernels: per block (scaled_) and many blocks at once (blocks_), for the named
  // elements and for runtime ones (the same lanes reading the descriptor from the plan).
  if (!generic_scale_ && d_.block.element_scaling == ElementScaling::exact && isa_ != Isa::scalar &&
      (src == FormatId::f32 || src == FormatId::f16 || src == FormatId::bf16)) {
    plan_ = simd::make_plan(format(src), ef_, ctx_, d_, kernels_for(format(src), ef_, ctx_.rounding).one);
    if (plan_) {
      scaled_ = simd::batch_kernel(*plan_, isa_, true, true);
      // The block kernel writes scale code s + 127 for elements scaled by 2^-s: not for the
      // integer MXINT8 of int8_integer_elements, whose elements are scaled by 2^-(s + 6).
      if (shift_ == 0) blocks_ = simd::blocks_kernel(*plan_, isa_);
    }
    const Format& f = format(src);
    inf_bits_ = static_cast<std::uint32_t>(low_mask(f.exp_bits) << f.man_bits);
  }
}

void BlockQuantizer::run_blocks(const void* values, std::size_t blocks, std::size_t k, std::uint8_t* scales,
                                std::uint8_t* codes, Flags& flags) {
  if (scale_quotient_) return run_blocks_scale(values, blocks, k, scales, codes, flags);  // block/scale_lanes.cpp
  const std::size_t bytes = format(src_).width / 8;
  if (!blocks_ || k % 16 != 0) {
    for (std::size_t b = 0; b < blocks; ++b)
      store_scale_code(scales, b, scale_bytes_,
                       run(static_cast<const unsigned char*>(values) + b * k * bytes, k, nullptr, codes + b * k, flags));
    return;
  }
  simd::BlockHooks hooks;
  hooks.ctx = this;
  kernel_scale(hooks);
  hooks.scale = [](void* self, std::uint32_t amax_bits, int& s) {
    auto& q = *static_cast<BlockQuantizer*>(self);
    if (amax_bits >= q.inf_bits_) return false;
    const ScaleChoice sc = q.finite_scale(amax_bits ? unpack_inline(format(q.src_), amax_bits) : Unpacked{});
    s = sc.s;
    return !sc.nan;
  };
  hooks.slow = [](void* self, const void* block, std::size_t n, std::uint8_t* out, Flags& f) {
    return static_cast<std::uint8_t>(static_cast<BlockQuantizer*>(self)->run(block, n, nullptr, out, f));  // E8M0
  };
  blocks_(*plan_, values, blocks, k, hooks, scales, codes, flags);
  positive_zeros(codes, blocks * k, negative_zero_);
}

// The kernel computes s = ((amax_bits + round) >> m_src) - bias_src - emax itself (BlockHooks)
// where that is finite_scale's exponent for every normal finite amax: no custom rule, E8M0's whole
// exponent range (the kernel clamps at -127 and hands s > 127 back to finite_scale), and a rule
// decided by a carry out of amax's fraction, with amax = 2^e (1 + f / 2^m_src), emax = emax_E:
//  - floor: e - emax (round 0);
//  - ceil: e + (f != 0) - emax (round 2^m_src - 1: a carry iff f != 0);
//  - rceil, max_E = 2^emax (1 + g / 2^m_src) with g an integer (max_E's fraction fits m_src
//    bits): the smallest s with max_E 2^s >= amax is e - emax + (f > g) (round 2^m_src - 1 - g:
//    a carry iff f > g); not under rceil_f32_reciprocal (block_scale's f32 arithmetic);
//  - even: amax rounded to m_E + 1 significant bits, ties away, carries iff the top m_E + 1
//    bits of f are ones (round 2^(m_src - m_E - 1), m_E + 1 <= m_src); not under
//    even_f32_overflow_nan.
// The other rules, or emax_E < 0 (a runtime element whose s may pass 127), leave it to the hooks.
void BlockQuantizer::kernel_scale(simd::BlockHooks& h) const {
  if (o_.custom_rule || o_.scale_min != -127 || o_.scale_max != 127 || shift_ != 0) return;
  const int emax = element_emax(ef_);
  const int m_src = format(src_).man_bits;
  if (emax < 0) return;
  switch (rule_) {
    case ScaleRule::floor: h.scale_round = 0; break;
    case ScaleRule::ceil: h.scale_round = (std::uint32_t{1} << m_src) - 1; break;
    case ScaleRule::rceil: {
      if (d_.block.rceil_f32_reciprocal) return;
      const Unpacked max = unpack(ef_, ef_.max_finite_magnitude());
      if (max.cls != ValueClass::finite || max.exp != emax || !(max.sig >> 63) || (max.sig << 1 << m_src) != 0) return;
      const std::uint32_t g = static_cast<std::uint32_t>(max.sig << 1 >> (64 - m_src));
      h.scale_round = (std::uint32_t{1} << m_src) - 1 - g;
      break;
    }
    case ScaleRule::even:
      if (d_.block.even_f32_overflow_nan || ef_.man_bits + 1 > m_src) return;
      h.scale_round = std::uint32_t{1} << (m_src - ef_.man_bits - 1);
      break;
    default: return;
  }
  h.floor_emax = emax;
}

BlockQuantizer::ScaleChoice BlockQuantizer::finite_scale(const Unpacked& amax) const {
  const BlockPolicies& bp = d_.block;
  ScaleChoice r;
  if (amax.cls == ValueClass::zero) {
    r.s = bp.zero_block_scale == ZeroBlockScale::min_scale ? o_.scale_min : std::clamp(0, o_.scale_min, o_.scale_max);
    return r;
  }
  if (o_.custom_rule) {
    r.s = o_.custom_rule(amax, ef_);
  } else {
    const Scale sc = block_scale(amax, rule_, ef_, bp, precision_);
    r.s = sc.s;
    r.nan = sc.nan;
  }
  r.s -= shift_;  // int8_integer_elements: the rule saw OCP's emax 0; the integers' is 6
  if (r.s > o_.scale_max) {
    if (bp.scale_overflow == ScaleOverflow::nan) r.nan = true;
    r.s = o_.scale_max;
  }
  r.s = std::max(r.s, o_.scale_min);
  return r;
}

std::uint32_t BlockQuantizer::run(const void* values, std::size_t count, const std::uint64_t* rbits,
                                 std::uint8_t* codes, Flags& flags) {
  const Dialect& d = d_;
  const BlockPolicies& bp = d.block;
  if (count == 0) throw std::invalid_argument("quantize: a block needs at least one value");
  if (stochastic() && !rbits) throw std::invalid_argument("quantize: stochastic rounding needs one random value per element");
  if (generic_scale_) return run_scale_format(values, count, rbits, codes, flags);

  // The vector path: a block without NaN or Inf, under exact element scaling (the constructor
  // decided the rest). The same steps as below: amax, the scale, then every V * 2^-s rounded
  // once, by the vector kernel (equal to round_pack bit for bit; test_blocks checks it).
  if (scaled_) {
    const int width = format(src_).width;
    const std::uint32_t mx = simd::max_magnitude_bits(values, count, width, isa_);
    if (mx < inf_bits_) {
      const ScaleChoice sc = finite_scale(mx ? unpack_inline(format(src_), mx) : Unpacked{});
      if (!sc.nan) {
        fl_.resize(count);
        scaled_(*plan_, values, codes, fl_.data(), count, sc.s + shift_);
        Flags f = 0;
        for (std::size_t i = 0; i < count; ++i) f |= fl_[i];
        flags |= f;
        positive_zeros(codes, count, negative_zero_);
        return static_cast<std::uint8_t>(sc.s + 127);
      }
    }
  }

  // Step 1: classify the block; amax over the finite values, exactly.
  v_.resize(count);
  std::vector<Unpacked>& v = v_;
  bool has_nan = false, has_inf = false;
  Unpacked amax;  // zero
  // Dialects that compute in f32 (torchao, TransformerEngine) take f32 data: wider sources
  // are first rounded to f32, as a cast would.
  const Format& sf = format(src_);
  const bool f32_data = bp.element_scaling != ElementScaling::exact && sf.width > 32;
  for (std::size_t i = 0; i < count; ++i) {
    v[i] = unpack_inline(sf, load(src_, values, i));
    if (f32_data && v[i].cls != ValueClass::nan) v[i] = to_f32(v[i]);
    switch (v[i].cls) {
      case ValueClass::nan: has_nan = true; break;
      case ValueClass::inf: has_inf = true; break;
      case ValueClass::zero: break;
      case ValueClass::finite:
        if (amax.cls == ValueClass::zero || v[i].exp > amax.exp || (v[i].exp == amax.exp && v[i].sig > amax.sig)) {
          amax = v[i];
          amax.sign = false;
        }
        break;
    }
  }

  // Steps 2-4: the scale.
  bool nan_scale = false;
  bool scale_invalid = false;  // a NaN scale not inherited from a quiet NaN raises invalid
  int s = 0;
  // NumPy's nanmax (pychop) on a block without Inf or a non-zero finite value: all NaN gives
  // the NaN scale, NaN among zeros the zero block with every NaN turned into +0.
  const bool nanmax_only_zeros = has_nan && bp.nan_block == NanBlock::nanmax && !has_inf && amax.cls == ValueClass::zero;
  bool all_nan = true;
  for (std::size_t i = 0; i < count && all_nan; ++i) all_nan = v[i].cls == ValueClass::nan;
  if ((has_nan && bp.nan_block == NanBlock::nan_scale) || (nanmax_only_zeros && all_nan)) {
    nan_scale = true;
    for (std::size_t i = 0; i < count; ++i) scale_invalid |= v[i].cls == ValueClass::nan && !v[i].nan_quiet;
  } else if (has_inf && bp.inf_block == InfBlock::nan_scale) {
    nan_scale = scale_invalid = true;
  } else if (has_inf && bp.inf_block == InfBlock::max_scale) {
    s = o_.scale_max;
  } else if (nanmax_only_zeros) {
    for (std::size_t i = 0; i < count; ++i)
      if (v[i].cls == ValueClass::nan) {
        v[i] = Unpacked{};  // +0: the NaN is lost (pychop), which softmx flags
        flags |= flag::invalid;
      }
    s = finite_scale(amax).s;
  } else {
    const ScaleChoice sc = finite_scale(amax);
    s = sc.s;
    nan_scale = scale_invalid = sc.nan;
  }
  const std::uint8_t S = nan_scale ? 0xFF : static_cast<std::uint8_t>(s + 127);
  if (scale_invalid) flags |= flag::invalid;
  if (nan_scale) {
    switch (bp.nan_scale_elements) {
      case NanScaleElements::zero:
        std::fill(codes, codes + count, std::uint8_t{0});
        return S;
      case NanScaleElements::nan:
        for (std::size_t i = 0; i < count; ++i)
          if (v[i].cls != ValueClass::nan) {  // V * NaN: the NaN operand's NaN, here +qNaN
            v[i] = Unpacked{};
            v[i].cls = ValueClass::nan;
            v[i].nan_payload = std::uint64_t{1} << 63;
          }
        break;
      case NanScaleElements::hw_exact_subnormals: {
        // torchmx's hardware-exact path: new_exp = E_x - 255 + bias, i.e. V as if scaled by
        // 2^128, sign forced to 0; only its subnormal codes survive the underflow mask.
        const Format& ef = ef_;
        Context c = ctx_;
        c.saturation = Saturation::finite;
        for (std::size_t i = 0; i < count; ++i) {
          codes[i] = 0;
          if (v[i].cls != ValueClass::finite || ef.fixed_point) continue;
          Unpacked u = v[i];
          u.sign = false;
          u.exp -= 128;
          const std::uint64_t code = round_element(u, c).code;
          if (code != 0 && (code >> ef.man_bits) == 0) codes[i] = static_cast<std::uint8_t>(code);
        }
        return S;
      }
      case NanScaleElements::convert: break;
    }
    s = 0;
  }

  // An implementation that cannot encode a NaN element raises (gfloat: "No NaN in format").
  if (d.nan_to_finite == NanToFinite::error && !ef_.has_nan())
    for (std::size_t i = 0; i < count; ++i)
      if (v[i].cls == ValueClass::nan)
        throw Unsupported("quantize: dialect " + std::string(d.name) + " cannot encode NaN in " +
                                    std::string(ef_.name) + " (it raises \"No NaN in format\")");

  // Step 5: the elements: V / X (exactly, or as the dialect's arithmetic forms it), rounded
  // once into the element format.
  Context c = ctx_;
  for (std::size_t i = 0; i < count; ++i) {
    Unpacked& u = v[i];
    switch (bp.element_scaling) {
      case ElementScaling::exact:
        if (u.cls == ValueClass::finite) u.exp -= s + shift_;
        break;
      case ElementScaling::f32_reciprocal:  // V * 2^-s in f32 (the reciprocal itself is exact)
        if (u.cls == ValueClass::finite) {
          u.exp -= s + shift_;
          u = to_f32(u);
        }
        break;
      case ElementScaling::te_int_reciprocal:  // V * m in f32, m = 1.0 (0x00), +0.0 (0xFE), 2^(127-S)
        if (nan_scale) break;
        if (S == 0xFE) {
          if (u.cls == ValueClass::inf) {  // Inf * 0 = NaN
            u = Unpacked{};
            u.cls = ValueClass::nan;
            u.nan_payload = std::uint64_t{1} << 63;
          } else if (u.cls == ValueClass::finite) {
            u.cls = ValueClass::zero;  // keeps the sign
          }
        } else if (u.cls == ValueClass::finite) {
          if (S != 0) u.exp += 127 - S;
          u = to_f32(u);
        }
        break;
    }
    if (stochastic()) c.rbits = rbits[i];
    const Result r = round_element(u, c);
    codes[i] = static_cast<std::uint8_t>(r.code);
    flags |= r.flags;
  }
  positive_zeros(codes, count, negative_zero_);
  return S;
}

}  // namespace detail

std::optional<std::string> quantize_unsupported_reason(FormatId src, const BlockOptions& o) {
  const Dialect& d = o.dialect ? *o.dialect : ocp_dialect();
  return detail::unsupported(src, o, d, detail::element_context(o, d));
}

QuantizedBlock quantize_block(FormatId src, const void* values, std::size_t count, const BlockOptions& o) {
  if (count == 0) throw std::invalid_argument("quantize: a block needs at least one value");
  detail::BlockQuantizer bq(src, o);
  if (bq.stochastic() && o.rbits.size() < count)
    throw std::invalid_argument("quantize: stochastic rounding needs one random value per element (" +
                                std::to_string(count) + "), got " + std::to_string(o.rbits.size()));
  QuantizedBlock q;
  q.codes.resize(count);
  q.scale = bq.run(values, count, bq.stochastic() ? o.rbits.data() : nullptr, q.codes.data(), q.flags);
  return q;
}

std::string_view name(ScaleRule r) {
  switch (r) {
    case ScaleRule::floor: return "floor";
    case ScaleRule::ceil: return "ceil";
    case ScaleRule::even: return "even";
    case ScaleRule::rceil: return "rceil";
    case ScaleRule::floor_log2_rn: return "floor-log2-rn";
  }
  return "?";
}

std::optional<ScaleRule> parse_scale_rule(std::string_view s) {
  const std::string k = detail::ascii_lower(s);
  for (ScaleRule r : kScaleRules)
    if (k == name(r)) return r;
  return std::nullopt;
}

}  // namespace softmx
