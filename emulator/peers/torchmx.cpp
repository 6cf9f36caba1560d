// emulator/peers/torchmx.cpp: torchmx's quantize_mx, to_mx, dequantize_mx, to_dtype and the
// MXTensor matmul (softmx/torchmx.hpp; docs/research/torchmx.md cites each line followed here).
#include "softmx/torchmx.hpp"

#include "core/enum_names.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "dot/wide_accumulator.hpp"
#include "softmx/block.hpp"
#include "softmx/convert.hpp"
#include "softmx/dialect.hpp"
#include "softmx/text.hpp"

namespace softmx {
namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("torchmx: " + what); }

std::size_t product(std::span<const std::size_t> shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

std::string shape_text(std::span<const std::size_t> shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

const Dialect& dialect_for(TorchmxPath path, FormatId element) {
  // int8 always takes the simulated path (mx_tensor.py:80-90).
  const bool hw = path == TorchmxPath::hardware_exact && element != FormatId::int8;
  return *find_dialect(hw ? "torchmx-hw-exact" : "torchmx");
}

Context ieee_rne() {
  Context c;
  c.saturation = Saturation::none;
  return c;
}

// Codes of one row of n elements as stored: FP4 two per byte, element 2i in the high nibble
// (pack_uint4, utils.py:120-145); others one per byte.
std::uint8_t stored_code(FormatId e, const std::uint8_t* row, std::size_t i) {
  if (e != FormatId::e2m1) return row[i];
  return i % 2 == 0 ? row[i / 2] >> 4 : row[i / 2] & 0xF;
}

// The quantization of rows x n bf16 values (n a multiple of bs): scales and one code per element.
MxTensor quantize_rows(const std::uint16_t* data, std::size_t rows, std::size_t n, FormatId e, std::size_t bs,
                       TorchmxPath path) {
  BlockOptions o;
  o.element = e;
  o.dialect = &dialect_for(path, e);
  const std::size_t shape[2] = {rows, n};
  return quantize_tensor(FormatId::bf16, data, shape, 1, bs, o);
}

// Packs rows of `padded` codes into rows of `keep` stored bytes (FP4: ceil(kept elements / 2)).
std::vector<std::uint8_t> store_rows(FormatId e, const std::vector<std::uint8_t>& codes, std::size_t rows,
                                     std::size_t padded, std::size_t n) {
  if (e != FormatId::e2m1) {
    std::vector<std::uint8_t> out(rows * n);
    for (std::size_t r = 0; r < rows; ++r) std::copy_n(&codes[r * padded], n, &out[r * n]);
    return out;
  }
  const std::size_t bytes = (n + 1) / 2;
  std::vector<std::uint8_t> out(rows * bytes);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t b = 0; b < bytes; ++b) {
      const std::uint8_t hi = codes[r * padded + 2 * b];
      const std::uint8_t lo = 2 * b + 1 < padded ? codes[r * padded + 2 * b + 1] : 0;
      out[r * bytes + b] = static_cast<std::uint8_t>(hi << 4 | lo);
    }
  return out;
}

TorchmxTensor quantize(const std::uint16_t* data, std::span<const std::size_t> shape, std::string_view elem,
                       std::size_t bs, TorchmxPath path, bool pad) {
  const FormatId e = torchmx_element(elem);
  if (shape.empty()) fail("the tensor needs at least one dimension");
  if (bs == 0) fail("block_size must be at least 1");
  const std::size_t n = shape.back(), total = product(shape);
  if (total == 0) fail("the tensor " + shape_text(shape) + " is empty");
  if (!data) fail("data_hp is null");
  const std::size_t padding = (bs - n % bs) % bs;
  if (padding && !pad)
    fail("the last dimension (" + std::to_string(n) + ") must be a multiple of block_size (" + std::to_string(bs) +
         "): quantize_mx asserts it (mx_tensor.py:68-70); to_mx pads");
  if (padding && bs % 2)
    fail("padding a last dimension of " + std::to_string(n) + " needs an even block_size, not " + std::to_string(bs) +
         " (mx_tensor.py:228-230)");
  if (e == FormatId::e2m1 && (n + padding) % 2)
    fail("float4_e2m1 packs pairs along the last dimension, which must be even, not " + std::to_string(n + padding) +
         " (pack_uint4, utils.py:141)");
  const std::size_t rows = total / n, padded = n + padding;
  TorchmxTensor t;
  t.element = e;
  t.block_size = bs;
  t.shape.assign(shape.begin(), shape.end());
  t.padding = padding;
  MxTensor q;
  if (padding) {  // F.pad(data_hp, (0, padding)): +0.0 at the end of each row
    std::vector<std::uint16_t> p(rows * padded, 0);
    for (std::size_t r = 0; r < rows; ++r) std::copy_n(data + r * n, n, &p[r * padded]);
    q = quantize_rows(p.data(), rows, padded, e, bs, path);
  } else {
    q = quantize_rows(data, rows, n, e, bs, path);
  }
  t.scale_shape = t.shape;
  t.scale_shape.back() = padded / bs;
  t.scale = std::move(q.scales);
  t.data = store_rows(e, q.codes, rows, padded, n);
  t.data_shape = t.shape;
  if (e == FormatId::e2m1) t.data_shape.back() = (n + 1) / 2;
  t.flags = q.flags;
  return t;
}

// One bf16 or f32 value as exact Unpacked.
Unpacked value_of(FormatId f, std::uint64_t code) { return unpack(format(f), code); }

// Adds (-1)^sign * sig * 2^(exp - 63) to acc, for a value with at most `bits` significant bits.
void add_value(detail::WideAccumulator& acc, const Unpacked& v, int bits) {
  acc.add(v.sign, v.sig >> (64 - bits), v.exp - (bits - 1));
}

// The sum of the terms a_k * b_k (+ an optional bias) of bf16 values under `acc`, rounded to bf16.
class Gemm {
 public:
  explicit Gemm(TorchmxAccumulation acc) : model_(acc) {}

  Result dot(const std::uint16_t* a, std::size_t a_step, const std::uint16_t* b, std::size_t b_step, std::size_t k,
             std::optional<std::uint16_t> bias) {
    const Format& bf = format(FormatId::bf16);
    Unpacked s;  // the f32 partial sum (fp32_sequential), +0
    bool nan = false, pinf = false, ninf = false;
    bool all_neg_zero = true;  // exact model: every term is -0
    // The exact model's view of one term of class `cls` and sign `sign`: NaN, Inf and zero terms
    // are noted here; true for a finite one, which the caller adds to the accumulator.
    const auto finite_term = [&](ValueClass cls, bool sign) {
      switch (cls) {
        case ValueClass::nan: nan = true; return false;
        case ValueClass::inf: (sign ? ninf : pinf) = true; return false;
        case ValueClass::zero: all_neg_zero &= sign; return false;
        case ValueClass::finite: all_neg_zero = false; return true;
      }
      return false;
    };
    made_nan_ = false;
    acc_.clear();
    for (std::size_t i = 0; i < k; ++i) {
      const Unpacked x = value_of(FormatId::bf16, a[i * a_step]), y = value_of(FormatId::bf16, b[i * b_step]);
      Unpacked p;  // the exact product's class and sign
      p.sign = x.sign != y.sign;
      if (x.cls == ValueClass::nan || y.cls == ValueClass::nan) {
        p.cls = ValueClass::nan;
      } else if (x.cls == ValueClass::inf || y.cls == ValueClass::inf) {
        p.cls = x.cls == ValueClass::zero || y.cls == ValueClass::zero ? ValueClass::nan : ValueClass::inf;
        made_nan_ |= p.cls == ValueClass::nan;  // Inf * 0
      } else if (x.cls == ValueClass::zero || y.cls == ValueClass::zero) {
        p.cls = ValueClass::zero;
      } else {
        p.cls = ValueClass::finite;
      }
      if (model_ == TorchmxAccumulation::fp32_sequential) {
        s = fma_f32(s, x, y, p);
        continue;
      }
      if (finite_term(p.cls, p.sign)) acc_.add(p.sign, (x.sig >> 56) * (y.sig >> 56), x.exp + y.exp - 14);
    }
    Unpacked total;
    if (model_ == TorchmxAccumulation::fp32_sequential) {
      if (bias) {
        const Unpacked one = value_of(FormatId::f32, 0x3F800000);
        const Unpacked bv = value_of(FormatId::bf16, *bias);
        Unpacked p;
        p.sign = bv.sign;
        p.cls = bv.cls;
        s = fma_f32(s, bv, one, p);
      }
      total = s;
    } else {
      if (bias) {
        const Unpacked bv = value_of(FormatId::bf16, *bias);
        if (finite_term(bv.cls, bv.sign)) add_value(acc_, bv, 8);
      }
      made_nan_ |= !nan && pinf && ninf;  // Inf - Inf
      if (nan || (pinf && ninf)) {
        total.cls = ValueClass::nan;
        total.nan_payload = std::uint64_t{1} << 63;
      } else if (pinf || ninf) {
        total.cls = ValueClass::inf;
        total.sign = ninf;
      } else {
        total = acc_.to_unpacked();
        if (total.cls == ValueClass::zero) total.sign = k > 0 || bias ? all_neg_zero : false;
        // RN_f32 first: the GEMM's f32 accumulator (docs/research/torchmx.md section 9).
        total = unpack(format(FormatId::f32), round_pack(format(FormatId::f32), total, ieee_rne(), ocp_dialect()).code);
      }
    }
    Result r = round_pack(bf, total, ieee_rne(), ocp_dialect());
    if (made_nan_) r.flags |= flag::invalid;  // a NaN operand propagates quietly
    return r;
  }

 private:
  // RN_f32(s + x * y) with IEEE specials; p carries the product's class and sign.
  Unpacked fma_f32(const Unpacked& s, const Unpacked& x, const Unpacked& y, const Unpacked& p) {
    Unpacked r;
    if (s.cls == ValueClass::nan || p.cls == ValueClass::nan) {
      r.cls = ValueClass::nan;
      r.nan_payload = std::uint64_t{1} << 63;
      return r;
    }
    if (s.cls == ValueClass::inf || p.cls == ValueClass::inf) {
      if (s.cls == ValueClass::inf && p.cls == ValueClass::inf && s.sign != p.sign) {
        made_nan_ = true;
        r.cls = ValueClass::nan;
        r.nan_payload = std::uint64_t{1} << 63;
        return r;
      }
      r.cls = ValueClass::inf;
      r.sign = s.cls == ValueClass::inf ? s.sign : p.sign;
      return r;
    }
    if (p.cls == ValueClass::zero) {
      if (s.cls == ValueClass::zero) r.sign = s.sign && p.sign;  // IEEE 6.3 under rne
      else r = s;
      return r;
    }
    acc_.clear();
    if (s.cls == ValueClass::finite) add_value(acc_, s, 24);
    // x is bf16 or the f32 1.0 (bias), y bf16: both have at most 8 significant bits in sig's top.
    acc_.add(p.sign, (x.sig >> 56) * (y.sig >> 56), x.exp + y.exp - 14);
    r = acc_.to_unpacked();  // zero: +0 (x + -x under rne)
    return unpack(format(FormatId::f32), round_pack(format(FormatId::f32), r, ieee_rne(), ocp_dialect()).code);
  }

  TorchmxAccumulation model_;
  detail::WideAccumulator acc_;
  bool made_nan_ = false;  // a NaN produced from non-NaN terms (invalid)
};

// The dequantized bf16 matrix of a 2-d tensor.
std::vector<std::uint16_t> to_bf16(const TorchmxTensor& t, const char* which) {
  if (t.shape.size() != 2) fail(std::string(which) + " must be 2-d, not " + shape_text(t.shape));
  std::vector<std::uint16_t> v(t.shape[0] * t.shape[1]);
  torchmx_to_dtype(t, FormatId::bf16, v.data());
  return v;
}

TorchmxMatmul gemm(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b, std::size_t m,
                   std::size_t k, std::size_t n, bool b_transposed, std::optional<std::span<const std::uint16_t>> bias,
                   TorchmxAccumulation acc) {
  TorchmxMatmul r;
  r.rows = m;
  r.cols = n;
  r.c.resize(m * n);
  Gemm g(acc);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const std::uint16_t* bj = b_transposed ? &b[j * k] : &b[j];
      const Result x = g.dot(&a[i * k], 1, bj, b_transposed ? 1 : n, k,
                             bias ? std::optional<std::uint16_t>((*bias)[j]) : std::nullopt);
      r.c[i * n + j] = static_cast<std::uint16_t>(x.code);
      r.flags |= x.flags;
    }
  return r;
}

}  // namespace

FormatId torchmx_element(std::string_view n) {
  if (n == "float8_e4m3") return FormatId::e4m3;
  if (n == "float6_e3m2") return FormatId::e3m2;
  if (n == "float6_e2m3") return FormatId::e2m3;
  if (n == "float4_e2m1") return FormatId::e2m1;
  if (n == "int8") return FormatId::int8;
  if (n.find("e5m2") != std::string_view::npos)
    fail("torchmx has no e5m2 ('" + std::string(n) +
         "'): its SUPPORTED_ELEM_DTYPES are float8_e4m3, float6_e3m2, float6_e2m3, float4_e2m1 and int8 "
         "(dtypes.py:143-149)");
  fail("unknown element dtype '" + std::string(n) +
       "' (expected float8_e4m3, float6_e3m2, float6_e2m3, float4_e2m1 or int8)");
}

std::string_view torchmx_element_name(FormatId e) {
  switch (e) {
    case FormatId::e4m3: return "float8_e4m3";
    case FormatId::e3m2: return "float6_e3m2";
    case FormatId::e2m3: return "float6_e2m3";
    case FormatId::e2m1: return "float4_e2m1";
    case FormatId::int8: return "int8";
    default: fail(std::string(format(e).name) + " is not a torchmx element dtype");
  }
}

TorchmxTensor torchmx_quantize_mx(const std::uint16_t* data_hp, std::span<const std::size_t> shape,
                                  std::string_view elem_dtype_name, std::size_t block_size, TorchmxPath path) {
  return quantize(data_hp, shape, elem_dtype_name, block_size, path, false);
}

TorchmxTensor torchmx_to_mx(const std::uint16_t* data_hp, std::span<const std::size_t> shape,
                            std::string_view elem_dtype_name, std::size_t block_size, TorchmxPath path) {
  return quantize(data_hp, shape, elem_dtype_name, block_size, path, true);
}

Flags torchmx_dequantize_mx(std::span<const std::uint8_t> data_lp, std::span<const std::size_t> data_shape,
                            std::span<const std::uint8_t> scale, std::span<const std::size_t> scale_shape,
                            std::string_view elem_dtype_name, std::size_t block_size, FormatId target,
                            std::size_t block_dim, void* out) {
  const FormatId e = torchmx_element(elem_dtype_name);
  if (target != FormatId::bf16 && target != FormatId::f32)
    fail("target_dtype must be bf16 or f32, not " + std::string(format(target).name));
  if (block_size == 0) fail("block_size must be at least 1");
  const std::size_t rank = data_shape.size();
  if (rank == 0) fail("data_lp needs at least one dimension");
  if (block_dim >= rank) fail("block_dim " + std::to_string(block_dim) + " does not exist in a " + std::to_string(rank) + "-d data_lp");
  if (data_lp.size() != product(data_shape))
    fail("data_lp holds " + std::to_string(data_lp.size()) + " bytes, its shape " + shape_text(data_shape) + " " +
         std::to_string(product(data_shape)));
  // The unpacked shape: FP4 doubles block_dim (unpack_uint4, utils.py:96-117).
  std::vector<std::size_t> shape(data_shape.begin(), data_shape.end());
  if (e == FormatId::e2m1) shape[block_dim] *= 2;
  std::vector<std::size_t> want = shape;
  if (shape[block_dim] % block_size)
    fail("dimension " + std::to_string(block_dim) + " of the data (" + std::to_string(shape[block_dim]) +
         " elements) is not a multiple of block_size " + std::to_string(block_size));
  want[block_dim] /= block_size;
  if (!std::equal(want.begin(), want.end(), scale_shape.begin(), scale_shape.end()))
    fail("the scale's shape " + shape_text(scale_shape) + " should be " + shape_text(want) + " for data " +
         shape_text(shape) + " in blocks of " + std::to_string(block_size) + " along dimension " + std::to_string(block_dim));
  if (scale.size() != product(scale_shape))
    fail("the scale holds " + std::to_string(scale.size()) + " bytes, its shape " + shape_text(scale_shape) + " " +
         std::to_string(product(scale_shape)));
  std::size_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < block_dim; ++d) outer *= shape[d];
  for (std::size_t d = block_dim + 1; d < rank; ++d) inner *= shape[d];
  const std::size_t len = shape[block_dim], nb = len / block_size;
  Dequantizer dq(e, target, ieee_rne(), *find_dialect("torchmx"));
  Flags all = 0;
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t i = 0; i < len; ++i)
      for (std::size_t n = 0; n < inner; ++n) {
        std::uint8_t code;
        if (e == FormatId::e2m1) {
          const std::uint8_t byte = data_lp[(o * (len / 2) + i / 2) * inner + n];
          code = i % 2 == 0 ? byte >> 4 : byte & 0xF;
        } else {
          code = data_lp[(o * len + i) * inner + n];
          if (format(e).width == 6 && code > 0x3F)
            fail("data_lp byte " + std::to_string((o * len + i) * inner + n) + " (0x" + hex(code, 2) +
                 ") has bits above the 6-bit " + std::string(elem_dtype_name) + " code");
        }
        const Result r = dq(scale[(o * nb + i / block_size) * inner + n], code);
        const std::size_t at = (o * len + i) * inner + n;
        if (target == FormatId::bf16) static_cast<std::uint16_t*>(out)[at] = static_cast<std::uint16_t>(r.code);
        else static_cast<std::uint32_t*>(out)[at] = static_cast<std::uint32_t>(r.code);
        all |= r.flags;
      }
  return all;
}

Flags torchmx_to_dtype(const TorchmxTensor& t, FormatId target, void* out) {
  if (target != FormatId::bf16 && target != FormatId::f32)
    fail("to_dtype's target must be bf16 or f32, not " + std::string(format(target).name));
  if (t.shape.empty() || t.block_size == 0) fail("the tensor has no shape or block size");
  torchmx_element_name(t.element);  // checks the element
  const std::size_t n = t.shape.back(), rows = n ? product(t.shape) / n : 0;
  const std::size_t padded = n + t.padding, nb = padded / t.block_size;
  const std::size_t row_bytes = t.element == FormatId::e2m1 ? (n + 1) / 2 : n;
  if (padded % t.block_size || t.scale.size() != rows * nb || t.data.size() != rows * row_bytes)
    fail("the tensor's scale (" + std::to_string(t.scale.size()) + " bytes) or data (" + std::to_string(t.data.size()) +
         " bytes) does not match its shape " + shape_text(t.shape) + ", block_size " + std::to_string(t.block_size) +
         " and padding " + std::to_string(t.padding));
  Dequantizer dq(t.element, target, ieee_rne(), *find_dialect("torchmx"));
  Flags all = 0;
  // The padded codes (zeros) are dequantized and cut off by torchmx (mx_tensor.py:296-321): they
  // never reach the result, so only the row's own n elements are computed.
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < n; ++j) {
      const std::uint8_t code = stored_code(t.element, &t.data[r * row_bytes], j);
      if (format(t.element).width == 6 && code > 0x3F) fail("a float6 data byte has bits above its 6-bit code");
      const Result x = dq(t.scale[r * nb + j / t.block_size], code);
      if (target == FormatId::bf16) static_cast<std::uint16_t*>(out)[r * n + j] = static_cast<std::uint16_t>(x.code);
      else static_cast<std::uint32_t*>(out)[r * n + j] = static_cast<std::uint32_t>(x.code);
      all |= x.flags;
    }
  return all;
}

TorchmxMatmul torchmx_matmul(const TorchmxTensor& a, const TorchmxTensor& b, TorchmxAccumulation acc) {
  const auto av = to_bf16(a, "a"), bv = to_bf16(b, "b");
  if (a.shape[1] != b.shape[0])
    fail("matmul of " + shape_text(a.shape) + " and " + shape_text(b.shape) + ": the inner dimensions differ");
  return gemm(av, bv, a.shape[0], a.shape[1], b.shape[1], false, std::nullopt, acc);
}

TorchmxMatmul torchmx_linear(const TorchmxTensor& a, const TorchmxTensor& w,
                             std::optional<std::span<const std::uint16_t>> bias, TorchmxAccumulation acc) {
  const auto av = to_bf16(a, "a"), wv = to_bf16(w, "w");
  if (a.shape[1] != w.shape[1])
    fail("linear of " + shape_text(a.shape) + " and weight " + shape_text(w.shape) + ": the inner dimensions differ");
  if (bias && bias->size() != w.shape[0])
    fail("the bias has " + std::to_string(bias->size()) + " values, the weight " + std::to_string(w.shape[0]) + " rows");
  return gemm(av, wv, a.shape[0], a.shape[1], w.shape[0], true, bias, acc);
}

namespace {
constexpr detail::EnumName<TorchmxAccumulation> kTorchmxAccumulation[] = {
    {TorchmxAccumulation::exact_f32, "exact-f32"}, {TorchmxAccumulation::fp32_sequential, "fp32-sequential"}};
constexpr detail::EnumName<TorchmxPath> kTorchmxPath[] = {{TorchmxPath::simulated, "simulated"},
                                                          {TorchmxPath::hardware_exact, "hardware-exact"}};
}  // namespace

std::string_view name(TorchmxAccumulation a) { return detail::enum_name(a, kTorchmxAccumulation); }
std::string_view name(TorchmxPath p) { return detail::enum_name(p, kTorchmxPath); }
// Exact spellings (case matters), as the CLI and Python have always taken them.
std::optional<TorchmxAccumulation> parse_torchmx_accumulation(std::string_view s) {
  return detail::enum_parse(s, kTorchmxAccumulation, true);
}
std::optional<TorchmxPath> parse_torchmx_path(std::string_view s) { return detail::enum_parse(s, kTorchmxPath, true); }

}  // namespace softmx
