// emulator/peers/pychop.cpp: pychop's mx_quantize and statistics() (softmx/pychop.hpp;
// docs/research/pychop.md cites each line followed here, "np:" being pychop/np/mx_formats.py at
// 242e079).
#include "softmx/pychop.hpp"

#include "core/enum_names.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>
#include <string>

#include "softmx/block.hpp"
#include "softmx/convert.hpp"
#include "softmx/dialect.hpp"

namespace softmx {
namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("pychop: " + what); }

std::string upper(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r;
}
std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

PychopSpec spec(std::string name, int e, int s) {
  PychopSpec p;
  p.name = std::move(name);
  p.exp_bits = e;
  p.sig_bits = s;
  return p;
}

// MX_FORMATS (pychop/mx_formats.py:125-139).
const std::array<PychopNamedSpec, 6>& named() {
  static const std::array<PychopNamedSpec, 6> k = {{
      {"mxfp8_e5m2", spec("MXFP8_E5M2", 5, 2)},
      {"mxfp8_e4m3", spec("MXFP8_E4M3", 4, 3)},
      {"mxfp6_e3m2", spec("MXFP6_E3M2", 3, 2)},
      {"mxfp6_e2m3", spec("MXFP6_E2M3", 2, 3)},
      {"mxfp4_e2m1", spec("MXFP4_E2M1", 2, 1)},
      {"mxint8", spec("MXINT8", 0, 7)},
  }};
  return k;
}

Context ieee_rne() {
  Context c;
  c.saturation = Saturation::none;
  return c;
}

std::size_t product(std::span<const std::size_t> shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

}  // namespace

std::size_t PychopSpec::total_bits_per_block() const {
  return static_cast<std::size_t>(element_bits()) * block_size + static_cast<std::size_t>(scale_exp_bits) +
         static_cast<std::size_t>(scale_sig_bits);
}
double PychopSpec::compression_vs_fp32() const {
  return static_cast<double>(32 * block_size) / static_cast<double>(total_bits_per_block());
}
double PychopSpec::compression_vs_fp16() const {
  return static_cast<double>(16 * block_size) / static_cast<double>(total_bits_per_block());
}

std::span<const PychopNamedSpec> pychop_named_specs() { return named(); }

std::optional<PychopSpec> find_pychop_spec(std::string_view key) {
  const std::string k = lower(key);
  for (const PychopNamedSpec& n : named())
    if (n.key == k) return n.spec;
  return std::nullopt;
}

PychopSpec pychop_custom_spec(int e, int s, std::size_t block_size, int scale_exp_bits, std::string name) {
  if (e < 0 || s < 0) fail("exp_bits and sig_bits must be >= 0, not (" + std::to_string(e) + ", " + std::to_string(s) + ")");
  PychopSpec p;
  p.exp_bits = e;
  p.sig_bits = s;
  p.block_size = block_size;
  p.scale_exp_bits = scale_exp_bits;
  // create_mx_spec's default name (pychop/mx_formats.py:142-179).
  p.name = name.empty() ? "CUSTOM_MX" + std::to_string(1 + e + s) + "_E" + std::to_string(e) + "M" + std::to_string(s)
                        : std::move(name);
  return p;
}

PychopFormat PychopFormat::named(std::string_view key) {
  PychopFormat f;
  f.kind = Kind::name;
  f.key = std::string(key);
  return f;
}
PychopFormat PychopFormat::of(const PychopSpec& spec) {
  PychopFormat f;
  f.kind = Kind::spec;
  f.spec = spec;
  return f;
}
PychopFormat PychopFormat::tuple(int e, int s) {
  PychopFormat f;
  f.kind = Kind::tuple;
  f.exp_bits = e;
  f.sig_bits = s;
  return f;
}

PychopSpec pychop_resolve_spec(const PychopFormat& format, const PychopOptions& o) {
  if (o.block_size == 0) fail("block_size must be at least 1");
  PychopSpec s;
  switch (format.kind) {
    case PychopFormat::Kind::name: {
      auto found = find_pychop_spec(format.key);
      if (!found) fail("unknown format '" + format.key + "' (np/mx_formats.py:110-111 raises ValueError)");
      s = *found;
      // numpy: replace(spec, block_size=block_size) (np:110-117); torch and jax resolve the string
      // to MX_FORMATS' spec themselves and pass the MXSpec, whose block size 32 wins
      // (tch/mx_formats.py:79-82, jx/mx_formats.py:60-63).
      if (o.backend == PychopBackend::numpy) s.block_size = o.block_size;
      break;
    }
    case PychopFormat::Kind::tuple:  // create_mx_spec(e, s, block_size) (np:118-125)
      s = pychop_custom_spec(format.exp_bits, format.sig_bits, o.block_size);
      break;
    case PychopFormat::Kind::spec:  // the MXSpec's own block size (np:126-131)
      s = format.spec;
      if (s.block_size == 0) fail("the MXSpec's block_size must be at least 1");
      break;
  }
  if (o.scale_exp_bits) s.scale_exp_bits = *o.scale_exp_bits;
  if (o.scale_sig_bits) s.scale_sig_bits = *o.scale_sig_bits;
  if (s.scale_exp_bits < 1 || s.scale_exp_bits > 8)
    fail("scale_exp_bits must be 1..8 (an E8M0 scale holds at most 8), not " + std::to_string(s.scale_exp_bits));
  if (s.scale_sig_bits < 0) fail("scale_sig_bits must be >= 0, not " + std::to_string(s.scale_sig_bits));
  return s;
}

ElementFormat pychop_element(const PychopSpec& s) {
  // _mx_float_params (np:29-59): the E4M3 and E5M2 reductions apply by name only; FP6, FP4 and
  // MXINT8 have no special values in OCP either, so their custom specs are the OCP formats.
  const std::string n = upper(s.name);
  if (s.exp_bits == 4 && s.sig_bits == 3 && n == "MXFP8_E4M3") return FormatId::e4m3;
  if (s.exp_bits == 5 && s.sig_bits == 2 && n == "MXFP8_E5M2") return FormatId::e5m2;
  if (s.exp_bits == 3 && s.sig_bits == 2) return FormatId::e3m2;
  if (s.exp_bits == 2 && s.sig_bits == 3) return FormatId::e2m3;
  if (s.exp_bits == 2 && s.sig_bits == 1) return FormatId::e2m1;
  if (s.exp_bits == 0 && s.sig_bits == 7) return FormatId::int8;
  const std::string what = "the spec " + s.name + " (exp_bits " + std::to_string(s.exp_bits) + ", sig_bits " +
                           std::to_string(s.sig_bits) + ")";
  // The other specs: np:31-37 (MXINT: int_scale 2^(bits-2), so s - 1 fraction bits, the
  // two's complement range) and np:39-58 (bias 2^(e-1)-1, max (2 - 2^-s) 2^(2^e-1-bias): no
  // code is reserved for Inf or NaN). Wider than 8 bits is refused below, so the spec text
  // stays short.
  if (s.exp_bits > 8 || s.sig_bits > 23 || (s.exp_bits == 0 && s.sig_bits == 0))
    fail(what + " cannot be an MX block element: at most 8 bits, with at least one significand bit for MXINT");
  // Built with append, not "literal" + std::string: GCC 12's false -Wrestrict (bug 105651).
  std::string spec = s.exp_bits == 0 ? "int" : "e";
  if (s.exp_bits == 0)
    spec.append(std::to_string(s.sig_bits + 1));
  else
    spec.append(std::to_string(s.exp_bits)).append("m").append(std::to_string(s.sig_bits))
        .append(":bias=").append(std::to_string((1 << (s.exp_bits - 1)) - 1)).append(":specials=none");
  Format f;
  try {
    f = parse_format_spec(spec);
  } catch (const FormatError& e) {
    fail(what + " is the format " + spec + ", which softmx cannot make: " + e.what());
  }
  if (const auto why = mx_element_reason(f)) fail(what + " is the format " + spec + ", not an MX block element: " + *why);
  return f;
}

PychopResult pychop_mx_quantize(FormatId source, const void* data, std::span<const std::size_t> shape,
                                const PychopFormat& format_arg, const PychopOptions& o) {
  if (source != FormatId::f32 && source != FormatId::f64)
    fail("the data must be float32 or float64, not " + std::string(format(source).name) +
         " (bfloat16 cannot reach NumPy; float16 computes 2^s in float16 and is not modelled)");
  if (!data) fail("data is null");
  const std::size_t n = product(shape);
  if (n == 0) fail("the array is empty (np.concatenate of no blocks raises)");
  PychopResult r;
  r.spec = pychop_resolve_spec(format_arg, o);
  r.element = pychop_element(r.spec);
  r.source = source;
  r.shape.assign(shape.begin(), shape.end());
  const std::size_t bs = r.spec.block_size;
  r.num_blocks = (n + bs - 1) / bs;
  const std::size_t padded = r.num_blocks * bs;
  const bool f64 = source == FormatId::f64;

  // data.flatten(), then np.pad(..., mode='constant'): +0.0 at the end (np:270-278).
  std::vector<std::uint64_t> flat(padded, 0);
  for (std::size_t i = 0; i < n; ++i)
    flat[i] = f64 ? static_cast<const std::uint64_t*>(data)[i] : static_cast<const std::uint32_t*>(data)[i];

  // The scale and element codes: the `pychop` dialect on blocks of the flat array. Its scale
  // range is _scale_exponent_bounds(scale_exp_bits) (np:23-26): [-bias, 2^b - 2 - bias].
  BlockOptions bo;
  bo.element = r.element;
  bo.dialect = find_dialect("pychop");
  const int bias = (1 << (r.spec.scale_exp_bits - 1)) - 1;
  bo.scale_min = -bias;
  bo.scale_max = (1 << r.spec.scale_exp_bits) - 2 - bias;
  const std::size_t flat_shape[1] = {padded};
  MxTensor q;
  if (f64) {
    q = quantize_tensor(source, flat.data(), flat_shape, 0, bs, bo);
  } else {
    std::vector<std::uint32_t> f(padded);
    std::transform(flat.begin(), flat.end(), f.begin(), [](std::uint64_t v) { return static_cast<std::uint32_t>(v); });
    q = quantize_tensor(source, f.data(), flat_shape, 0, bs, bo);
  }
  r.scales = std::move(q.scales);
  r.codes = std::move(q.codes);
  r.flags = q.flags;

  // The returned values (MXTensor_.dequantize, np:225-227, 302-307): the element value stored
  // in float32 times shared_scale. The product is float64 only for a float64 input's block whose
  // scale came from np.floor(np.log2(...)) (a NumPy float64 scalar) under NumPy >= 2; a zero,
  // NaN-among-zeros or Inf block's scale is a Python float and its product float32 (section 6).
  // np.concatenate then gives the widest block dtype.
  const Format& src = format(source);
  const Format& elem = r.element.format();
  std::vector<FormatId> block_dtype(r.num_blocks, FormatId::f32);
  std::vector<std::uint8_t> kind(r.num_blocks, 0);  // 0 computed scale, 1 zero-like block, 2 Inf block
  bool any_f64 = false;
  for (std::size_t b = 0; b < r.num_blocks; ++b) {
    bool all_zero = true, any_inf = false, any_finite_nonzero = false, all_nan = true;
    for (std::size_t i = b * bs; i < (b + 1) * bs; ++i) {
      const Unpacked u = unpack(src, flat[i]);
      all_zero &= u.cls == ValueClass::zero;
      all_nan &= u.cls == ValueClass::nan;
      any_inf |= u.cls == ValueClass::inf;
      any_finite_nonzero |= u.cls == ValueClass::finite;
    }
    if (all_zero || (!any_inf && !any_finite_nonzero && !all_nan)) kind[b] = 1;  // np:183-196
    else if (any_inf) kind[b] = 2;                                                // np:200-201
    if (kind[b] == 0 && f64 && o.numpy == PychopNumpy::v2) {
      block_dtype[b] = FormatId::f64;
      any_f64 = true;
    }
  }
  FormatId array_dtype = any_f64 ? FormatId::f64 : FormatId::f32;
  // torch: torch.from_numpy(out).to(input.dtype) (tch/mx_formats.py:53, 111); jax: jnp.array, float32
  // without jax_enable_x64 (jx/mx_formats.py:87-90).
  if (o.backend == PychopBackend::torch) r.value_format = source;
  else if (o.backend == PychopBackend::jax) r.value_format = FormatId::f32;
  else r.value_format = array_dtype;
  const Format& out = format(r.value_format);
  const Context ieee = ieee_rne();
  r.values.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t b = i / bs;
    const std::uint8_t S = r.scales[b];
    const std::uint8_t code = r.codes[i];
    const Unpacked x = unpack(src, flat[i]);
    Unpacked v;  // the element value pychop stores (float32, exact for these formats)
    bool uncoded = false;
    if (x.cls == ValueClass::nan && kind[b] != 1) {
      v.cls = ValueClass::nan;  // np.nan (np:72-73, 97-98): a positive quiet NaN
      v.nan_payload = std::uint64_t{1} << 63;
      uncoded = !elem.has_nan();
    } else if (S == 0xFF) {
      v.cls = ValueClass::nan;  // the NaN scale of an all-NaN block (not reached: every element is NaN)
      v.nan_payload = std::uint64_t{1} << 63;
    } else {
      v = unpack(elem, code);
      // MXINT: np.rint keeps the sign of a negative value that rounds to zero, and of -0.0, in a
      // block that is not zero-like (np:62-67); the code 0x00 cannot carry it.
      if (elem.fixed_point && v.cls == ValueClass::zero && x.sign && kind[b] != 1) {
        v.sign = true;
        uncoded = true;
      }
    }
    if (uncoded) r.uncoded.push_back(i);
    if (v.cls == ValueClass::finite) v.exp += static_cast<int>(S) - 127;  // * shared_scale, exactly
    if (v.cls == ValueClass::nan) v.sign = false;
    // Rounded once into the block's product dtype, widened by np.concatenate, then converted by
    // the backend: each step is RNE with overflow to Inf.
    Unpacked p = unpack(format(block_dtype[b]), round_pack(format(block_dtype[b]), v, ieee, ocp_dialect()).code);
    const Format& mid = format(array_dtype);
    p = unpack(mid, round_pack(mid, p, ieee, ocp_dialect()).code);
    r.values[i] = round_pack(out, p, ieee, ocp_dialect()).code;
  }
  return r;
}

PychopStatistics pychop_statistics(const PychopSpec& spec, std::span<const std::size_t> shape) {
  if (spec.block_size == 0) fail("block_size must be at least 1");
  const std::size_t n = product(shape);
  if (n == 0) fail("the array is empty");
  // `self.scale_exp_bits or self.spec.scale_exp_bits`: both are the resolved spec's.
  PychopStatistics s{.format = spec.name, .exp_bits = spec.exp_bits, .sig_bits = spec.sig_bits,
                     .block_size = spec.block_size, .scale_exp_bits = spec.scale_exp_bits,
                     .original_shape = {shape.begin(), shape.end()},
                     .num_blocks = (n + spec.block_size - 1) / spec.block_size, .total_elements = n};
  // fp32_bits / mx_bits etc. (np:309-332): integer operands, one correctly rounded division.
  const double mx_bits = static_cast<double>(s.num_blocks * spec.total_bits_per_block());
  s.compression_ratio_fp32 = static_cast<double>(32 * n) / mx_bits;
  s.compression_ratio_fp16 = static_cast<double>(16 * n) / mx_bits;
  s.bits_per_element = mx_bits / static_cast<double>(n);
  return s;
}

namespace {
constexpr detail::EnumName<PychopBackend> kPychopBackend[] = {
    {PychopBackend::numpy, "numpy"}, {PychopBackend::torch, "torch"}, {PychopBackend::jax, "jax"}};
constexpr detail::EnumName<PychopNumpy> kPychopNumpy[] = {{PychopNumpy::v2, "2"}, {PychopNumpy::v1, "1"}};
}  // namespace

std::string_view name(PychopBackend b) { return detail::enum_name(b, kPychopBackend); }
std::string_view name(PychopNumpy v) { return detail::enum_name(v, kPychopNumpy); }
// The backend ASCII case folded, as pychop's backend argument; the NumPy major exactly.
std::optional<PychopBackend> parse_pychop_backend(std::string_view s) { return detail::enum_parse(s, kPychopBackend); }
std::optional<PychopNumpy> parse_pychop_numpy(std::string_view s) { return detail::enum_parse(s, kPychopNumpy, true); }

}  // namespace softmx
