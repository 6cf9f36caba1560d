// emulator/simd/plan.cpp: building a Plan (see plan.hpp) and choosing the instruction set.
#include "simd/plan.hpp"


#include <vector>

#include "core/kernels.hpp"
#include "core/round_pack.hpp"

namespace softmx::simd {
namespace {

ClassResult by_class(const Plan& p, std::uint64_t plus_code, std::uint64_t sign_bit) {
  ClassResult r;
  for (int s = 0; s < 2; ++s) {
    const Result x = p.call(plus_code | (s ? sign_bit : 0));
    r.code[s] = static_cast<std::uint32_t>(x.code);
    r.flags[s] = x.flags;
  }
  return r;
}

}  // namespace

std::optional<Plan> make_plan(const Format& s, const Format& f, const Context& ctx, const Dialect& d,
                              Converter::Kernel scalar) {
  if (ctx.rounding == Rounding::rs) return std::nullopt;
  // P3109's extended specials, SatPropagate and the policies only the p3109 dialect sets run the
  // scalar kernels (the reference); the lanes know fnuz, fn, ieee and none.
  if (f.specials == Specials::extended || s.specials == Specials::extended ||
      ctx.saturation == Saturation::propagate || d.overflow_no_inf != OverflowNoInf::nan ||
      d.ro_overflow != RoOverflow::max_finite || d.e8m0_negative == E8m0Negative::saturate_zero)
    return std::nullopt;
  const FormatId src = s.id, dst = f.id;
  // The lanes round ties by parity and keep the sign of a zero: dialects with other rules
  // (lut-argmin) run the scalar kernels, which are the reference.
  if (is_mx_element(dst) && (d.nearest_ties != NearestTies::even || d.zero_sign != ZeroSign::keep))
    return std::nullopt;
  if (src != FormatId::f32 && src != FormatId::f16 && src != FormatId::bf16) return std::nullopt;
  Plan p;
  p.src = src;
  p.dst = dst;
  switch (dst) {
    case FormatId::e4m3: case FormatId::e5m2: case FormatId::e3m2: case FormatId::e2m3: case FormatId::e2m1:
    case FormatId::int8: case FormatId::e8m0: break;
    case FormatId::f16: case FormatId::bf16:
      if (src == dst) return std::nullopt;
      break;
    case FormatId::runtime:
      if (f.width > 16) return std::nullopt;
      p.rt = {f.man_bits, f.emin(), f.bias, f.width, f.sign, f.subnormals, f.fixed_point, f.specials == Specials::fnuz};
      break;
    default: return std::nullopt;
  }
  p.src_width = s.width;
  p.src_m = s.man_bits;
  p.src_bias = s.bias;
  p.src_exp_max = static_cast<int>(detail::low_mask(s.exp_bits));
  for (int sg = 0; sg < 2; ++sg) p.max_mag[sg] = static_cast<std::uint32_t>(detail::max_magnitude(f, sg, d));
  p.tiny_after = ctx.tininess == Tininess::after_rounding;
  p.tiny_bounded = ctx.tininess == Tininess::after_bounded;
  p.ties_up = f.man_bits == 0 && !f.subnormals && d.e8m0_ties == E8m0Ties::up;
  // Without normalising, a source subnormal is read with its implicit bit set and the
  // exponent emin_src: a value below 2^(emin_src + 1). That rounds and flags as the true value
  // does only when 2^(emin_src + 1) is at most half the destination's smallest subnormal
  // 2^(emin - m) (lanes.hpp). E8M0 reads source normals as they are and hands source
  // subnormals to the scalar kernel.
  p.normalize = dst == FormatId::runtime || (f.subnormals && s.emin() > f.emin() - f.man_bits - 2);
  p.src_format = s;
  p.dst_format = f;
  p.scalar = scalar;
  p.ctx = ctx;
  p.dialect = &d;

  // SEMANTICS 4, as round_pack_inline decides it for a magnitude above the largest.
  for (int sg = 0; sg < 2; ++sg) {
    const Rounding r = ctx.rounding;
    const bool toward_inf = r == Rounding::rne || r == Rounding::rna || (r == Rounding::ru && !sg) ||
                            (r == Rounding::rd && sg);
    const bool sign = sg && f.is_signed();
    std::uint64_t code = detail::pack(f, sign, p.max_mag[sg]);
    if (ctx.saturation == Saturation::none && toward_inf) {
      if (f.has_inf()) code = detail::inf_code(f, sign);
      else if (f.has_nan()) code = detail::nan_code(f, sign, 0, d);
    }
    p.ovf_code[sg] = static_cast<std::uint32_t>(code);
  }
  p.ovf_is_max = p.ovf_code[0] == detail::pack(f, false, p.max_mag[0]) &&
                 p.ovf_code[1] == detail::pack(f, f.is_signed(), p.max_mag[1]);

  // Classes whose result does not depend on the digits: one scalar call per class and sign.
  const std::uint64_t sign_bit = std::uint64_t{1} << (s.width - 1);
  const std::uint64_t exp_ones = detail::low_mask(s.exp_bits) << s.man_bits;
  p.zero = by_class(p, 0, sign_bit);
  p.inf = by_class(p, exp_ones, sign_bit);
  p.qnan = by_class(p, exp_ones | (std::uint64_t{1} << (s.man_bits - 1)), sign_bit);
  p.snan = by_class(p, exp_ones | 1, sign_bit);
  // A NaN's digits reach the result only as an ieee destination's preserved payload (and not
  // when the dialect first replaces every NaN of this source by one canonical NaN).
  // The rule is the path's where the dialect lists (src, dst) in nan_payload_paths (named
  // formats only; a runtime destination takes the dialect's runtime rule).
  const NanPayload rule = f.is_named() ? nan_payload_for_path(d, src, dst) : nan_payload_for(d, f);
  p.nan_by_class = !(f.specials == Specials::ieee && (rule == NanPayload::preserve || rule == NanPayload::exact) &&
                     nan_canonical_ones_for(d, s) == 0);
  if (!f.is_signed()) {
    // nan and min_if_satfinite give every finite non-zero negative one result (NaN, or 0x00 under
    // saturation finite); magnitude rounds |x| and adds invalid.
    if (d.e8m0_negative != E8m0Negative::magnitude) {
      p.neg_const = true;
      p.neg = by_class(p, static_cast<std::uint64_t>(s.bias) << s.man_bits, sign_bit);  // -1.0
    } else {
      p.neg_extra = flag::invalid;
    }
  }
  return p;
}

namespace {
/// The kernel that instruction set `isa` gives: on_avx512() or on_avx2(), each of which calls
/// that instruction set's entry point (simd/isa_entries.hpp); a null kernel for Isa::scalar.
template <class OnAvx512, class OnAvx2>
auto by_isa(Isa isa, const OnAvx512& on_avx512, const OnAvx2& on_avx2) -> decltype(on_avx2()) {
  switch (isa) {
    case Isa::avx512: return on_avx512();
    case Isa::avx2: return on_avx2();
    case Isa::scalar: break;
  }
  return nullptr;
}
}  // namespace

BatchFn batch_kernel(const Plan& p, Isa isa, bool with_flags, bool scaled) {
  return by_isa(isa, [&] { return batch_kernel_avx512(p, with_flags, scaled); },
                [&] { return batch_kernel_avx2(p, with_flags, scaled); });
}

ConsecutiveFn consecutive_kernel(const Plan& p, Isa isa, bool with_flags) {
  return by_isa(isa, [&] { return consecutive_kernel_avx512(p, with_flags); },
                [&] { return consecutive_kernel_avx2(p, with_flags); });
}

SegmentsFn segments_kernel(const Plan& p, Isa isa) {
  return by_isa(isa, [&] { return segments_kernel_avx512(p); }, [&] { return segments_kernel_avx2(p); });
}

BlocksFn blocks_kernel(const Plan& p, Isa isa) {
  return by_isa(isa, [&] { return blocks_kernel_avx512(p); }, [&] { return blocks_kernel_avx2(p); });
}

std::uint32_t max_magnitude_bits(const void* in, std::size_t n, int width, Isa isa) {
  switch (isa) {
    case Isa::avx512: return max_magnitude_bits_avx512(in, n, width);
    case Isa::avx2: return max_magnitude_bits_avx2(in, n, width);
    case Isa::scalar: break;
  }
  std::uint32_t r = 0;
  const std::uint32_t mask = width == 32 ? 0x7FFFFFFFu : 0x7FFFu;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t x = (width == 32 ? static_cast<const std::uint32_t*>(in)[i]
                                         : static_cast<const std::uint16_t*>(in)[i]) & mask;
    r = x > r ? x : r;
  }
  return r;
}

Result scaled_scalar(const Plan& p, std::uint64_t bits, int shift) {
  Unpacked u = detail::unpack_inline(format(p.src), bits);
  if (u.cls == ValueClass::finite) u.exp -= shift;
  if (p.dst == FormatId::runtime) return round_pack(p.dst_format, u, p.ctx, *p.dialect);  // the generic core
  return detail::round_pack_kernel_for(p.dst, p.ctx.rounding)(u, p.ctx, *p.dialect);
}

DequantFn dequant_kernel(Isa isa) {
  switch (isa) {
    case Isa::avx512: return dequant_kernel_avx512();
    case Isa::avx2: return dequant_kernel_avx2();
    case Isa::scalar: break;
  }
  return nullptr;
}

}  // namespace softmx::simd

namespace softmx {

const char* name(Isa isa) {
  switch (isa) {
    case Isa::scalar: return "scalar";
    case Isa::avx2: return "avx2";
    case Isa::avx512: break;
  }
  return "avx512";
}

bool isa_supported(Isa isa) {
  switch (isa) {
    case Isa::scalar: return true;
#if defined(__x86_64__) && defined(__GNUC__)
    // A build without an instruction set's kernels (emulator/isa/absent.cpp) never offers it.
    case Isa::avx2:
#ifdef SOFTMX_NO_AVX2_KERNELS
      return false;
#else
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
#endif
    case Isa::avx512:
#ifdef SOFTMX_NO_AVX512_KERNELS
      return false;
#else
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
#endif
#else
    case Isa::avx2:
    case Isa::avx512: return false;
#endif
  }
  return false;
}

std::span<const Isa> supported_isas() {
  static const std::vector<Isa> list = [] {
    std::vector<Isa> v;
    for (Isa i : {Isa::scalar, Isa::avx2, Isa::avx512})
      if (isa_supported(i)) v.push_back(i);
    return v;
  }();
  return list;
}

Isa default_isa() { return supported_isas().back(); }

}  // namespace softmx
