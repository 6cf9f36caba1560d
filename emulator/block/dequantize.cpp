// emulator/block/dequantize.cpp: MX dequantization, one element (dequantize_element,
// docs/BLOCKS.md 2) and many (Dequantizer).
#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>
#include <string>

#include "block/f32_arith.hpp"
#include "block/scale_lanes.hpp"
#include "block/scaled_product.hpp"
#include "core/storage.hpp"
#include "core/table_read.hpp"
#include "simd/plan.hpp"
#include "softmx/block.hpp"
#include "softmx/convert.hpp"

namespace softmx {

Result dequantize_element(FormatId element, std::uint8_t scale, std::uint8_t code, FormatId dst, const Context& given,
                          const Dialect& dialect) {
  return dequantize_element(format(element), scale, code, dst, given, dialect);
}

// Named and runtime elements alike: the element's value read from its descriptor, then one
// round_pack into dst.
Result dequantize_element(const Format& element, std::uint8_t scale, std::uint8_t code, FormatId dst,
                          const Context& given, const Dialect& dialect) {
  const Context ctx = resolve(dialect, dst, given);  // by_destination: IEEE overflow into f32 (SEMANTICS 4.1)
  Unpacked u = unpack(element, code);
  // MXINT8 as integers (torchmx): value(code) * 2^6 is the integer the scale multiplies.
  if (element.id == FormatId::int8 && dialect.block.int8_integer_elements && u.cls == ValueClass::finite) u.exp += 6;
  const DequantScaling ds = dialect.block.dequant_scaling;
  if (ds == DequantScaling::te_bits || ds == DequantScaling::te_exp2f) {
    // TransformerEngine: float(scale) * float(element) in f32, then cast to the destination.
    // The f32 scale of a code S: ptx::exp2f (te_exp2f, TE since PR 3262) gives 2^(S - 127),
    // 2^-127 for 0x00 and NaN for 0xFF; before PR 3262 (te_bits) it was the f32 with bits
    // S << 23: 0.0 for 0x00 and +Inf for 0xFF.
    auto nan = [] {
      Unpacked n;
      n.cls = ValueClass::nan;
      n.nan_payload = std::uint64_t{1} << 63;
      return n;
    };
    const bool old = ds == DequantScaling::te_bits;
    if (u.cls == ValueClass::nan) {
    } else if (scale == 0xFF && !old) {  // the scale is NaN
      u = nan();
    } else if (scale == 0x00 && old) {  // the scale is 0.0
      if (u.cls == ValueClass::inf) u = nan();
      else u.cls = ValueClass::zero;
    } else if (scale == 0xFF) {  // the scale is +Inf
      if (u.cls == ValueClass::zero) u = nan();
      else u.cls = ValueClass::inf;
    } else if (u.cls == ValueClass::finite) {
      u.exp += scale - 127;
      u = detail::round_f32(u);
    }
    const Result r32 = round_pack(format(FormatId::f32), u, detail::f32_rne(), dialect);
    return convert(FormatId::f32, dst, r32.code, ctx, dialect);
  }
  if (scale == 0xFF) {  // OCP MX 6.2: a NaN scale makes every element NaN
    u = Unpacked{};
    u.cls = ValueClass::nan;
    u.nan_payload = std::uint64_t{1} << 63;
  } else if (u.cls == ValueClass::finite) {
    u.exp += scale - 127;
  }
  return round_pack(format(dst), u, ctx, dialect);
}

Dequantizer::Dequantizer(FormatId element, FormatId dst, const Context& ctx, const Dialect& dialect)
    : Dequantizer(format(element), dst, ctx, dialect) {}

Dequantizer::Dequantizer(const Format& element, FormatId dst, const Context& ctx, const Dialect& dialect)
    : Dequantizer(element, ScaleFormat(FormatId::e8m0), dst, ctx, dialect) {}

Dequantizer::Dequantizer(const Format& element, const ScaleFormat& scale_format, FormatId dst, const Context& ctx,
                         const Dialect& dialect)
    : ef_(canonical_format(element)), sf_(scale_format), dst_(dst), ctx_(resolve(dialect, dst, ctx)), dialect_(&dialect), rows_(256),
      uses_(256, 0), isa_(default_isa()) {
  if (ef_.width > 8)
    throw std::invalid_argument("dequantize: " + std::string(ef_.name) + " is not an element format of at most 8 bits");
  if (format(dst).width > 64)
    throw std::invalid_argument("dequantize: " + std::string(format(dst).name) + " is wider than 64 bits");
  if (auto why = mx_scale_reason(sf_)) throw std::invalid_argument("dequantize: " + *why);
  if (auto why = scale_format_unsupported_reason(sf_, dialect)) throw Unsupported("dequantize: " + *why);
  codes_ = std::size_t{1} << ef_.width;
  sbytes_ = sf_.code_bytes();
  // TransformerEngine's scalings (te_bits, te_exp2f) round through f32 first: their rows are made by reference calls.
  // A scale format other than E8M0 has no power-of-two rows to shift: its rows are reference calls too.
  shiftable_ = is_ieee_host_format(dst) && dialect.block.dequant_scaling == DequantScaling::exact && sf_.is_e8m0();
}

// The reference call: BLOCKS.md 2's 2^(S - 127) for E8M0, value(S) for another scale format
// (the scale-format overload takes the E8M0 one itself).
Result Dequantizer::one(std::uint32_t scale, std::uint8_t code) const {
  return dequantize_element(ef_, sf_, scale, code, dst_, ctx_, *dialect_);
}

// dequantize_element(scale, c) for a finite non-zero c is value(c) * 2^(scale - 127) rounded
// once into dst: the row of scale 127 with the exponent field moved, exact and flag-free, as
// long as every moved result stays normal. Zeros, NaN and Inf do not depend on the scale (a NaN
// scale, 0xFF, is not shifted). The first shifted row makes the row of scale 127 by reference
// calls (and finds that some finite result is not a normal number of dst: then no row is
// shifted); later ones cost an addition per code.
const Dequantizer::Row* Dequantizer::shifted_row(std::uint8_t scale) {
  if (!shiftable_ || scale == 0xFF) return nullptr;
  const Format& d = format(dst_);
  const std::uint64_t field_mask = (std::uint64_t{1} << d.exp_bits) - 1;
  if (!unit_) {
    unit_ = std::make_unique<Row>();
    unit_->codes.resize(codes_);
    unit_->flags.resize(codes_);
    moves_.assign(codes_, 0);
    unit_lo_ = static_cast<int>(field_mask);
    unit_hi_ = 0;
    for (std::size_t c = 0; c < codes_; ++c) {
      const Result x = dequantize_element(ef_, 127, static_cast<std::uint8_t>(c), dst_, ctx_, *dialect_);
      unit_->codes[c] = x.code;
      unit_->flags[c] = x.flags;
      unit_->any |= x.flags;
      if (unpack(ef_, c).cls != ValueClass::finite) continue;
      const int field = static_cast<int>((x.code >> d.man_bits) & field_mask);
      if (x.flags || field == 0 || field == static_cast<int>(field_mask)) {
        shiftable_ = false;  // a finite result that is not an exact normal number (f16 from e5m2's subnormals)
        return nullptr;
      }
      moves_[c] = 1;
      unit_lo_ = std::min(unit_lo_, field);
      unit_hi_ = std::max(unit_hi_, field);
    }
    rows_[127] = std::make_unique<Row>(*unit_);
  }
  const int x = scale - 127;
  if (unit_lo_ + x < 1 || unit_hi_ + x > static_cast<int>(field_mask) - 1) return nullptr;  // leaves the normal range
  auto r = std::make_unique<Row>(*unit_);
  const std::uint64_t add = static_cast<std::uint64_t>(static_cast<std::int64_t>(x)) << d.man_bits;  // modulo 2^64
  for (std::size_t c = 0; c < codes_; ++c)
    if (moves_[c]) r->codes[c] += add;
  rows_[scale] = std::move(r);
  return rows_[scale].get();
}

// The lanes' formula (simd/dequant_lanes.hpp) at X = 0 against the row of scale 127, code by
// code: only a format and dialect whose every non-special result it reproduces use the lanes.
bool Dequantizer::lanes_ok() {
  if (lanes_ >= 0) return lanes_ == 1;
  if (!unit_) return false;  // asked again once the row of scale 127 exists
  lanes_ = 0;
  const Format& e = ef_;
  const bool twos = e.sign == SignEncoding::twos_complement && e.fixed_point && e.specials == Specials::none;
  if (dst_ != FormatId::f32 || !simd::dequant_kernel(isa_) || !unit_ || !shiftable_ ||
      !(twos || (e.sign == SignEncoding::magnitude && e.subnormals)))
    return false;
  const std::uint32_t mag_mask = (1u << (e.width - 1)) - 1, fmask = (1u << e.man_bits) - 1;
  const std::uint32_t emask = (1u << (e.width - 1 - e.man_bits)) - 1;
  for (std::uint32_t c = 0; c < codes_; ++c) {
    const std::uint32_t mag = c & mag_mask, ef = mag >> e.man_bits, f = mag & fmask;
    const bool special = e.specials == Specials::ieee ? ef == emask
                         : e.specials == Specials::fn ? mag == mag_mask
                         : e.specials == Specials::fnuz ? c == mag_mask + 1
                                                        : false;
    const ValueClass cls = unpack(e, c).cls;
    if (special != (cls == ValueClass::nan || cls == ValueClass::inf)) return false;
    if (special) continue;
    std::uint32_t v = (c >> (e.width - 1)) << 31;
    if (twos) {  // the sign-extended integer times 2^(1 - bias - m)
      const auto i = static_cast<std::int32_t>(c << (32 - e.width)) >> (32 - e.width);
      const float x = static_cast<float>(i);
      std::uint32_t bits;
      std::memcpy(&bits, &x, sizeof bits);
      v = i == 0 ? 0 : bits + (static_cast<std::uint32_t>(1 - e.bias - e.man_bits) << 23);
    } else if (ef > 0) {
      v |= (ef + static_cast<std::uint32_t>(127 - e.bias)) << 23 | f << (23 - e.man_bits);
    } else if (f > 0) {
      const float x = static_cast<float>(f);
      std::uint32_t bits;
      std::memcpy(&bits, &x, sizeof bits);
      v |= bits + (static_cast<std::uint32_t>(1 - e.bias - e.man_bits) << 23);
    }
    if (v != unit_->codes[c] || unit_->flags[c] != 0) return false;
  }
  lanes_ = 1;
  return true;
}

void Dequantizer::set_isa(Isa isa) {
  if (!isa_supported(isa))
    throw std::invalid_argument(std::string("dequantize: this CPU cannot run instruction set ") + name(isa));
  if (isa != isa_) lanes_ = -1;  // checked again for the new kernel
  isa_ = isa;
}

const Dequantizer::Row* Dequantizer::row(std::uint8_t scale, std::size_t uses) {
  if (const Row* r = rows_[scale].get()) return r;
  if (unit_ && shiftable_)
    if (const Row* r = shifted_row(scale)) return r;
  // A row costs codes_ reference calls: worth it once a scale has served a quarter as many.
  uses_[scale] += uses;
  if (uses_[scale] < codes_ / 4) return nullptr;
  if (const Row* r = shifted_row(scale)) return r;
  auto r = std::make_unique<Row>();
  r->codes.resize(codes_);
  r->flags.resize(codes_);
  for (std::size_t c = 0; c < codes_; ++c) {
    const Result x = one(scale, static_cast<std::uint8_t>(c));
    r->codes[c] = x.code;
    r->flags[c] = x.flags;
    r->any |= x.flags;
  }
  rows_[scale] = std::move(r);
  return rows_[scale].get();
}

Result Dequantizer::operator()(std::uint32_t scale, std::uint8_t code) {
  // A wide scale code (no rows): the reference's product, checked as run_wide checks it; a code
  // out of range goes to one(), which throws.
  if (sbytes_ > 1 && scale <= sf_.format().code_mask() && code < codes_)
    return detail::scaled_product(unpack(ef_, code), unpack(sf_, scale), format(dst_), ctx_, *dialect_);
  if (scale > 0xFF) return one(scale, code);
  if (const Row* r = row(static_cast<std::uint8_t>(scale), 1); r && code < codes_)
    return Result{r->codes[code], r->flags[code]};
  return one(scale, code);
}

// Scale codes of 2 or 4 bytes (bf16, f16, f32, ...) are rarely shared by enough elements to
// pay for a row of 2^width reference calls (an f32 scale is amax / max_E itself), so every
// element is the reference's product on its own: the element codes unpacked once per call,
// the scale once per block, the checks of dequantize_element made by the constructor (and a
// scale code beyond the format, or an element code beyond the element's, by the reference
// call itself, which throws).
Flags Dequantizer::run_wide(const std::uint8_t* scales, const std::uint8_t* codes, std::size_t n, std::size_t k,
                            void* out, Flags* flags) const {
  std::array<Unpacked, 256> ev;
  for (std::size_t c = 0; c < codes_; ++c) ev[c] = unpack(ef_, c);
  const Format& sf = sf_;
  const Format& df = format(dst_);
  Flags all = 0;
  for (std::size_t b = 0, first = 0; first < n; ++b, first += k) {
    const std::uint32_t scale = load_scale_code(scales, b, sbytes_);
    const bool scale_ok = scale <= sf.code_mask();
    const Unpacked s = scale_ok ? unpack(sf, scale) : Unpacked{};
    const std::size_t end = n - first < k ? n : first + k;
    for (std::size_t i = first; i < end; ++i) {
      const Result x = scale_ok && codes[i] < codes_ ? detail::scaled_product(ev[codes[i]], s, df, ctx_, *dialect_)
                                                     : one(scale, codes[i]);
      detail::store_code(dst_, out, i, x.code);
      if (flags) flags[i] = x.flags;
      all |= x.flags;
    }
  }
  return all;
}

namespace {

/// Blocks from `b` on, for as long as every block's scale has a flag-free table of 32-bit
/// results (tabs[scale], null otherwise): out[i] = tabs[scale][codes[i]]. Returns the first
/// block it did not do. Every code indexes a table (256 entries). Scalar loads: a vectorised
/// loop gathers indices out of vector registers one by one (measured 2x slower on Zen 3).
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
std::size_t read_tables_u32(const std::uint64_t* const* tabs, const std::uint8_t* scales, const std::uint8_t* codes,
                            std::size_t n, std::size_t k, std::size_t b, std::uint32_t* out) {
  for (std::size_t first = b * k; first < n; ++b, first += k) {
    const std::uint64_t* t = tabs[scales[b]];
    if (!t) return b;
    const std::size_t end = n - first < k ? n : first + k;
#if defined(__clang__)
#pragma clang loop vectorize(disable) interleave(disable)
#endif
    for (std::size_t i = first; i < end; ++i) out[i] = static_cast<std::uint32_t>(t[codes[i]]);
  }
  return b;
}

}  // namespace

Flags Dequantizer::run(const std::uint8_t* scales, const std::uint8_t* codes, std::size_t n, std::size_t k, void* out,
                       Flags* flags) {
  if (k == 0) throw std::invalid_argument("dequantize: the block size must be at least 1");
  // A scale format other than E8M0 into f32: vector lanes (block/scale_lanes.cpp), when they serve.
  if (!sf_.is_e8m0() && dst_ == FormatId::f32)
    if (auto all = detail::dequantize_scale_lanes(ef_, sf_, ctx_, *dialect_, isa_, scales, codes, n, k,
                                                  static_cast<std::uint32_t*>(out), flags))
      return *all;
  if (sbytes_ > 1) return run_wide(scales, codes, n, k, out, flags);
  Flags all = 0;
  // 32-bit results of a 256-code format without flags wanted: the blocks whose row exists and
  // raises no flag in one loop; the others one at a time below, then back to the loop.
  // With f32 results computed in lanes (lanes_ok()), blocks whose scale keeps every result
  // normal go through the vector kernel first.
  const bool fast = !flags && detail::storage_bytes(dst_) == 4;
  std::array<const std::uint64_t*, 256> tabs{};
  auto tab_of = [&](std::uint8_t scale) {
    const Row* r = rows_[scale].get();
    tabs[scale] = r && r->any == 0 ? r->codes.data() : nullptr;
  };
  if (fast)
    for (int sc = 0; sc < 256; ++sc) tab_of(static_cast<std::uint8_t>(sc));
  simd::DequantLanes lanes{};
  simd::DequantFn kernel = nullptr;
  // The kernel computes every finite code's result and reads only NaN and Inf codes from a
  // row, whose results are the same under every scale but 0xFF (shifted_row moves finite
  // results only): the row of scale 127 serves every scale, so that no scale needs its own row
  // (2^width additions, or reference calls) before the kernel takes its blocks.
  std::array<const std::uint64_t*, 256> unit_tabs{};
  Flags special_or = 0;
  auto arm = [&] {
    if (kernel || !fast) return;
    if (!unit_ && shiftable_ && lanes_ < 0 && dst_ == FormatId::f32) shifted_row(127);  // makes unit_
    if (!lanes_ok()) return;
    const Format& e = ef_;
    kernel = simd::dequant_kernel(isa_);
    unit_tabs.fill(unit_->codes.data());
    lanes = simd::DequantLanes{e.width, e.man_bits, e.bias, e.specials, 1 - unit_lo_, 254 - unit_hi_, unit_tabs.data(),
                               unit_->any ? unit_->flags.data() : nullptr, &special_or,
                               e.sign == SignEncoding::twos_complement};
  };
  arm();
  for (std::size_t b = 0, first = 0; first < n; ++b, first += k) {
    if (fast) {
      auto* o32 = static_cast<std::uint32_t*>(out);
      for (std::size_t before = b + 1; before != b && b * k < n;) {
        before = b;
        if (kernel) b = kernel(lanes, scales, codes, n, k, b, o32);
        if (codes_ == 256) b = read_tables_u32(tabs.data(), scales, codes, n, k, b, o32);
      }
      first = b * k;
      if (first >= n) break;
    }
    const std::size_t len = n - first < k ? n - first : k;
    const Row* r = row(scales[b], len);
    if (fast) {
      tab_of(scales[b]);
      arm();
    }
    if (r && detail::all_below(codes + first, len, codes_)) {
      all |= detail::read_table(dst_, r->codes.data(), r->flags.data(), r->any, codes + first, len,
                                static_cast<unsigned char*>(out) + first * detail::storage_bytes(dst_),
                                flags ? flags + first : nullptr);
      continue;
    }
    for (std::size_t i = first; i < first + len; ++i) {
      const Result x = one(scales[b], codes[i]);
      detail::store_code(dst_, out, i, x.code);
      if (flags) flags[i] = x.flags;
      all |= x.flags;
    }
  }
  return all | special_or;
}

}  // namespace softmx
