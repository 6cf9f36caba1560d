// emulator/convert.cpp: the public conversion entry points.
//
// Each call goes to a kernel specialised for its (source, destination, rounding mode): the
// same generic convert_inline() with the descriptors and the mode as constants (one source,
// no per-format copies), or, for a pair with a runtime format, the same convert_inline() with
// the descriptors read at run time. See core/kernels.hpp.
#include <algorithm>
#include <mutex>
#include <string>

#include "code_table.hpp"
#include "core/kernels.hpp"
#include "core/storage.hpp"
#include "core/table_read.hpp"
#include "simd/plan.hpp"
#include "simd/sweep.hpp"
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
    case FormatId::e8m0:
    case FormatId::runtime: break;  // kernels_for never asks for a runtime row
  }
  return kernel_row_e8m0();
}

}  // namespace detail

namespace {

using detail::storage_bytes;

void require_supported(const Dialect& d, const Format& src, const Format& dst, const Context& c) {
  if (auto why = unsupported_source_reason(d, src)) throw Unsupported(*why);
  if (auto why = unsupported_reason(d, dst, c)) throw Unsupported(*why);
}

}  // namespace

Unpacked unpack(const Format& f, std::uint64_t code) { return detail::unpack_inline(f, code); }

// Each entry point resolves Saturation::by_destination (SEMANTICS 4.1) before anything else
// reads the context: the support check, the kernels and the vector plans see finite or none.

Result round_pack(const Format& dst, const Unpacked& value, const Context& ctx, const Dialect& dialect) {
  return detail::round_pack_inline(dst, value, resolve(dialect, dst, ctx), dialect);
}

Result convert(const Format& src, const Format& dst, std::uint64_t bits, const Context& given, const Dialect& dialect) {
  const Format s = canonical_format(src), d = canonical_format(dst);
  const Context ctx = resolve(dialect, d, given);
  require_supported(dialect, s, d, ctx);
  return detail::kernels_for(s, d, ctx.rounding).one(s, d, bits, ctx, dialect);
}

Result convert(FormatId src, FormatId dst, std::uint64_t bits, const Context& given, const Dialect& dialect) {
  const Format& s = format(src);
  const Format& d = format(dst);
  const Context ctx = resolve(dialect, dst, given);
  require_supported(dialect, s, d, ctx);
  return detail::kernels_for(s, d, ctx.rounding).one(s, d, bits, ctx, dialect);
}

Converter::Converter(const Format& src, const Format& dst, const Context& ctx, const Dialect& dialect)
    : src_(canonical_format(src)), dst_(canonical_format(dst)), ctx_(resolve(dialect, dst_, ctx)), dialect_(&dialect) {
  require_supported(dialect, src_, dst_, ctx_);
  const detail::KernelPair k = detail::kernels_for(src_, dst_, ctx_.rounding);
  fn_ = k.one;
  many_ = k.many;
  if (auto plan = simd::make_plan(src_, dst_, ctx_, dialect, fn_)) {
    auto b = std::make_shared<detail::BatchPlan>();
    b->plan = *plan;
    for (Isa isa : supported_isas()) {
      if (isa == Isa::scalar) continue;
      for (int f = 0; f < 2; ++f) {
        b->kernels[static_cast<int>(isa)][f] = simd::batch_kernel(b->plan, isa, f != 0);
        b->consecutive[static_cast<int>(isa)][f] = simd::consecutive_kernel(b->plan, isa, f != 0);
      }
      // A sweep's kernel: the fused one where it serves the plan (simd/sweep.hpp).
      b->segments[static_cast<int>(isa)] = simd::sweep_segments_kernel(b->plan, isa);
    }
    batch_ = std::move(b);
  }
  if (ctx.rounding != Rounding::rs &&
      (src_.width <= 8 || (src_.width <= 16 && !batch_ && !(src_.is_named() && dst_.is_named()))))
    table_ = std::make_shared<detail::CodeTable>(src_.width);
}

void Converter::run(const void* in, void* out, Flags* flags, std::size_t n, const std::uint64_t* rbits) const {
  run_on(*this, default_isa(), in, out, flags, n, rbits);
}

void Converter::check_span_types(std::size_t in_bytes, std::size_t out_bytes, std::size_t n, std::size_t out_n,
                                 std::size_t flags_n) const {
  const std::size_t s_bytes = storage_bytes(src_), d_bytes = storage_bytes(dst_);
  if (in_bytes != s_bytes || out_bytes != d_bytes)
    throw std::invalid_argument("Converter::run: " + std::string(src_.name) + " codes are held in " +
                                std::to_string(s_bytes) + "-byte and " + std::string(dst_.name) + " codes in " +
                                std::to_string(d_bytes) + "-byte elements; the spans have " +
                                std::to_string(in_bytes) + " and " + std::to_string(out_bytes));
  if (out_n < n || (flags_n != 0 && flags_n < n))
    throw std::invalid_argument("Converter::run: " + std::to_string(n) + " inputs but room for " +
                                std::to_string(out_n) + " codes and " + std::to_string(flags_n) + " flags");
}

bool vectorized(const Converter& conv) { return conv.batch_ != nullptr; }

std::size_t consecutive_segments(const Converter& conv, Isa isa, std::uint64_t first, std::size_t n, Segment* out) {
  if (conv.batch_ && isa != Isa::scalar) {
    if (const simd::SegmentsFn fn = conv.batch_->segments[static_cast<int>(isa)]) return fn(conv.batch_->plan, first, n, out);
  }
  // Otherwise: the results, slice by slice, then their segments.
  constexpr std::size_t kSlice = 4096;
  std::uint64_t codes[kSlice];  // room for any destination's storage type
  Flags flags[kSlice];
  const std::size_t out_bytes = storage_bytes(conv.dst_);
  std::size_t count = 0;
  std::uint64_t prev_code = 0;
  Flags prev_flags = 0;
  for (std::size_t done = 0; done < n;) {
    const std::size_t k = std::min(kSlice, n - done);
    run_consecutive(conv, isa, first + done, codes, flags, k);
    for (std::size_t j = 0; j < k; ++j) {
      std::uint64_t c;
      switch (out_bytes) {
        case 1: c = reinterpret_cast<const std::uint8_t*>(codes)[j]; break;
        case 2: c = reinterpret_cast<const std::uint16_t*>(codes)[j]; break;
        case 4: c = reinterpret_cast<const std::uint32_t*>(codes)[j]; break;
        default: c = codes[j]; break;
      }
      if (done + j == 0 || c != prev_code || flags[j] != prev_flags) out[count++] = Segment{first + done + j, c, flags[j]};
      prev_code = c;
      prev_flags = flags[j];
    }
    done += k;
  }
  return count;
}

void run_consecutive(const Converter& conv, Isa isa, std::uint64_t first, void* out, Flags* flags, std::size_t n) {
  if (conv.batch_ && isa != Isa::scalar) {
    if (const simd::ConsecutiveFn fn = conv.batch_->consecutive[static_cast<int>(isa)][flags != nullptr]) {
      fn(conv.batch_->plan, first, out, flags, n);
      return;
    }
  }
  // The scalar loop, in slices through an input array of the source's storage type.
  const std::size_t in_bytes = storage_bytes(conv.src_), out_bytes = storage_bytes(conv.dst_);
  constexpr std::size_t kSlice = 4096;
  std::uint64_t buf[kSlice];
  for (std::size_t done = 0; done < n;) {
    const std::size_t k = std::min(kSlice, n - done);
    for (std::size_t j = 0; j < k; ++j) {
      const std::uint64_t x = first + done + j;
      switch (in_bytes) {
        case 1: reinterpret_cast<std::uint8_t*>(buf)[j] = static_cast<std::uint8_t>(x); break;
        case 2: reinterpret_cast<std::uint16_t*>(buf)[j] = static_cast<std::uint16_t>(x); break;
        case 4: reinterpret_cast<std::uint32_t*>(buf)[j] = static_cast<std::uint32_t>(x); break;
        default: buf[j] = x; break;
      }
    }
    run_on(conv, isa, buf, static_cast<unsigned char*>(out) + done * out_bytes, flags ? flags + done : nullptr, k);
    done += k;
  }
}

namespace {

/// A batch from a source of at most 16 bits through the converter's table (made here on first
/// use). In: the source's storage type (std::uint8_t or std::uint16_t).
template <class In>
void run_from_table(const Converter& conv, detail::CodeTable& t, const In* in, void* out, Flags* flags, std::size_t n) {
  std::call_once(t.made, [&] {
    t.codes.resize(t.size);
    t.flags.resize(t.size);
    for (std::size_t c = 0; c < t.size; ++c) {
      const Result r = conv(c);
      t.codes[c] = r.code;
      t.flags[c] = r.flags;
      t.any |= r.flags;
    }
  });
  const std::size_t out_bytes = storage_bytes(conv.destination_format());
  if (detail::all_below(in, n, t.size)) {
    detail::read_table(out_bytes, t.codes.data(), t.flags.data(), t.any, in, n, out, flags);
    return;
  }
  for (std::size_t i = 0; i < n; ++i) {  // codes outside the format: as operator()
    const Result r = conv(in[i]);
    detail::store_code(out_bytes, out, i, r.code);
    if (flags) flags[i] = r.flags;
  }
}

}  // namespace

void run_on(const Converter& conv, Isa isa, const void* in, void* out, Flags* flags, std::size_t n,
            const std::uint64_t* rbits) {
  if (conv.table_ && !rbits && isa != Isa::scalar && n >= 64) {
    detail::CodeTable& t = *conv.table_;
    if (t.size <= 256) return run_from_table(conv, t, static_cast<const std::uint8_t*>(in), out, flags, n);
    // A 16-bit table costs 65536 scalar conversions: made once the batches have spent as much.
    if (t.before.load(std::memory_order_relaxed) >= t.size)
      return run_from_table(conv, t, static_cast<const std::uint16_t*>(in), out, flags, n);
    t.before.fetch_add(n, std::memory_order_relaxed);
  }
  if (conv.batch_ && !rbits && isa != Isa::scalar) {
    if (const simd::BatchFn fn = conv.batch_->kernels[static_cast<int>(isa)][flags != nullptr]) {
      fn(conv.batch_->plan, in, out, flags, n, 0);
      return;
    }
  }
  conv.many_(conv.src_, conv.dst_, in, out, flags, n, rbits, conv.ctx_, *conv.dialect_);
}

}  // namespace softmx
