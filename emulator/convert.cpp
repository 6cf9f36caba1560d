// emulator/convert.cpp: the public conversion entry points.
//
// Each call goes to a kernel specialised for its (source, destination, rounding mode): the
// same generic convert_inline() with the descriptors and the mode as constants (one source,
// no per-format copies). See core/kernels.hpp.
#include "core/kernels.hpp"
#include "softmx/convert.hpp"

namespace softmx {
namespace detail {

const KernelRow& kernels_from(FormatId src) {
  switch (src) {
    case FormatId::f64: return kernel_row_f64();
    case FormatId::f32: return kernel_row_f32();
    case FormatId::f16: return kernel_row_f16();
    case FormatId::bf16: return kernel_row_bf16();
    case FormatId::e4m3: return kernel_row_e4m3();
    case FormatId::e5m2: return kernel_row_e5m2();
    case FormatId::e3m2: return kernel_row_e3m2();
    case FormatId::e2m3: return kernel_row_e2m3();
    case FormatId::e2m1: return kernel_row_e2m1();
    case FormatId::int8: return kernel_row_int8();
    case FormatId::e8m0: break;
  }
  return kernel_row_e8m0();
}

}  // namespace detail

namespace {

const detail::KernelPair& kernels(FormatId src, FormatId dst, Rounding r) {
  return detail::kernels_from(src)[static_cast<int>(dst)][static_cast<int>(r)];
}

void require_supported(const Dialect& d, FormatId dst, const Context& c) {
  const DestinationSupport& s = d.support[static_cast<int>(dst)];
  if ((s.roundings & rounding_bit(c.rounding)) && (s.saturations & saturation_bit(c.saturation))) return;
  throw Unsupported(*unsupported_reason(d, dst, c));
}

}  // namespace

Unpacked unpack(const Format& f, std::uint64_t code) { return detail::unpack_inline(f, code); }

Result round_pack(const Format& dst, const Unpacked& value, const Context& ctx, const Dialect& dialect) {
  return detail::round_pack_inline(dst, value, ctx, dialect);
}

Result convert(FormatId src, FormatId dst, std::uint64_t bits, const Context& ctx, const Dialect& dialect) {
  require_supported(dialect, dst, ctx);
  return kernels(src, dst, ctx.rounding).one(bits, ctx, dialect);
}

Converter::Converter(FormatId src, FormatId dst, const Context& ctx, const Dialect& dialect)
    : src_(src), dst_(dst), ctx_(ctx), dialect_(&dialect), fn_(kernels(src, dst, ctx.rounding).one) {
  require_supported(dialect, dst, ctx);
}

void Converter::run(const void* in, void* out, Flags* flags, std::size_t n, const std::uint64_t* rbits) const {
  kernels(src_, dst_, ctx_.rounding).many(in, out, flags, n, rbits, ctx_, *dialect_);
}

}  // namespace softmx
