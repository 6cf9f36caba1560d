// emulator/block/dequantize.cpp: MX dequantization, one element (dequantize_element,
// docs/BLOCKS.md 2) and many (Dequantizer).
#include <stdexcept>
#include <string>

#include "block/f32_arith.hpp"
#include "core/storage.hpp"
#include "core/table_read.hpp"
#include "softmx/block.hpp"
#include "softmx/convert.hpp"

namespace softmx {

Result dequantize_element(FormatId element, std::uint8_t scale, std::uint8_t code, FormatId dst, const Context& given,
                          const Dialect& dialect) {
  const Context ctx = resolve(dialect, dst, given);  // by_destination: IEEE overflow into f32 (SEMANTICS 4.1)
  Unpacked u = unpack(format(element), code);
  // MXINT8 as integers (torchmx): value(code) * 2^6 is the integer the scale multiplies.
  if (element == FormatId::int8 && dialect.block.int8_integer_elements && u.cls == ValueClass::finite) u.exp += 6;
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
    : element_(element), dst_(dst), ctx_(resolve(dialect, dst, ctx)), dialect_(&dialect), rows_(256), uses_(256, 0) {
  if (format(element).width > 8)
    throw std::invalid_argument("dequantize: " + std::string(format(element).name) +
                                " is not an element format of at most 8 bits");
  if (format(dst).width > 64)
    throw std::invalid_argument("dequantize: " + std::string(format(dst).name) + " is wider than 64 bits");
  codes_ = std::size_t{1} << format(element).width;
}

const Dequantizer::Row* Dequantizer::row(std::uint8_t scale, std::size_t uses) {
  if (const Row* r = rows_[scale].get()) return r;
  // A row costs codes_ reference calls: worth it once a scale has served a quarter as many.
  uses_[scale] += uses;
  if (uses_[scale] < codes_ / 4) return nullptr;
  auto r = std::make_unique<Row>();
  r->codes.resize(codes_);
  r->flags.resize(codes_);
  for (std::size_t c = 0; c < codes_; ++c) {
    const Result x = dequantize_element(element_, scale, static_cast<std::uint8_t>(c), dst_, ctx_, *dialect_);
    r->codes[c] = x.code;
    r->flags[c] = x.flags;
    r->any |= x.flags;
  }
  rows_[scale] = std::move(r);
  return rows_[scale].get();
}

Result Dequantizer::operator()(std::uint8_t scale, std::uint8_t code) {
  if (const Row* r = row(scale, 1); r && code < codes_) return Result{r->codes[code], r->flags[code]};
  return dequantize_element(element_, scale, code, dst_, ctx_, *dialect_);
}

Flags Dequantizer::run(const std::uint8_t* scales, const std::uint8_t* codes, std::size_t n, std::size_t k, void* out,
                       Flags* flags) {
  if (k == 0) throw std::invalid_argument("dequantize: the block size must be at least 1");
  Flags all = 0;
  for (std::size_t b = 0, first = 0; first < n; ++b, first += k) {
    const std::size_t len = n - first < k ? n - first : k;
    const Row* r = row(scales[b], len);
    if (r && detail::all_below(codes + first, len, codes_)) {
      all |= detail::read_table(dst_, r->codes.data(), r->flags.data(), r->any, codes + first, len,
                                static_cast<unsigned char*>(out) + first * detail::storage_bytes(dst_),
                                flags ? flags + first : nullptr);
      continue;
    }
    for (std::size_t i = first; i < first + len; ++i) {
      const Result x = dequantize_element(element_, scales[b], codes[i], dst_, ctx_, *dialect_);
      detail::store_code(dst_, out, i, x.code);
      if (flags) flags[i] = x.flags;
      all |= x.flags;
    }
  }
  return all;
}

}  // namespace softmx
