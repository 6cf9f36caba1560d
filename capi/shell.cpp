// capi/shell.cpp: errors and argument translation for the C API (shell.hpp).
#include "shell.hpp"

#include "softmx/text.hpp"

#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <utility>

namespace softmx::capi {

void fail(int status, std::string message) { throw Failure(status, std::move(message)); }

int report(softmx_error* err, const char* function, int status, const char* message) noexcept {
  if (err) {
    err->code = status;
    // snprintf truncates and always terminates; the message is ASCII from softmx itself or a
    // quoted argument.
    std::snprintf(err->message, sizeof err->message, "%s: %s", function, message);
  }
  return status;
}

void clear(softmx_error* err) noexcept {
  if (err) {
    err->code = SOFTMX_OK;
    err->message[0] = '\0';
  }
}

int report_current(softmx_error* err, const char* function) noexcept {
  try {
    throw;
  } catch (const Failure& f) {
    return report(err, function, f.status, f.message.c_str());
  } catch (const Unsupported& e) {
    return report(err, function, SOFTMX_ERR_UNSUPPORTED, e.what());
  } catch (const std::bad_alloc&) {
    return report(err, function, SOFTMX_ERR_OUT_OF_MEMORY, "out of memory");
  } catch (const std::length_error& e) {
    return report(err, function, SOFTMX_ERR_OUT_OF_MEMORY, e.what());
  } catch (const std::invalid_argument& e) {
    return report(err, function, SOFTMX_ERR_INVALID_ARGUMENT, e.what());
  } catch (const std::exception& e) {
    return report(err, function, SOFTMX_ERR_INTERNAL, e.what());
  } catch (...) {
    return report(err, function, SOFTMX_ERR_INTERNAL, "an exception that is not a std::exception");
  }
}

namespace {

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llX", static_cast<unsigned long long>(v));
  return b;
}

}  // namespace

// ---- formats ---------------------------------------------------------------------------------

void fill(softmx_format* out, const Format& f) {
  *out = softmx_format{};
  out->id = f.is_named() ? static_cast<std::int32_t>(f.id) : SOFTMX_FORMAT_RUNTIME;
  out->width = f.width;
  out->exp_bits = f.exp_bits;
  out->man_bits = f.man_bits;
  out->bias = f.bias;
  out->sign = static_cast<std::int32_t>(f.sign);
  out->specials = static_cast<std::int32_t>(f.specials);
  out->subnormals = f.subnormals ? 1 : 0;
  out->fixed_point = f.fixed_point ? 1 : 0;
  const std::string_view n = f.name;
  const std::size_t len = n.size() < sizeof out->name ? n.size() : sizeof out->name - 1;
  std::memcpy(out->name, n.data(), len);
  out->name[len] = '\0';
}

FormatId format_of(const softmx_format* f, const char* what) {
  need(f, what);
  if (f->reserved0 != 0) fail(SOFTMX_ERR_INVALID_ARGUMENT, std::string(what) + ": reserved0 is not zero");
  check_reserved(f->reserved, 4, what);
  if (f->id == SOFTMX_FORMAT_RUNTIME)  // descriptor_of takes these; format_of is for named ones
    fail(SOFTMX_ERR_UNSUPPORTED, std::string(what) + ": a runtime format (id SOFTMX_FORMAT_RUNTIME) is not served "
                                 "here (a named format is needed, softmx_format_count())");
  if (f->id < 0 || f->id >= kFormatCount)
    fail(SOFTMX_ERR_INVALID_ARGUMENT, std::string(what) + ": id " + std::to_string(f->id) +
                                          " is not a format id (0.." + std::to_string(kFormatCount - 1) +
                                          " or SOFTMX_FORMAT_RUNTIME); fill it with softmx_format_lookup");
  const FormatId id = static_cast<FormatId>(f->id);
  const Format& t = format(id);
  if (f->width != t.width || f->exp_bits != t.exp_bits || f->man_bits != t.man_bits || f->bias != t.bias ||
      f->sign != static_cast<std::int32_t>(t.sign) || f->specials != static_cast<std::int32_t>(t.specials) ||
      f->subnormals != (t.subnormals ? 1 : 0) || f->fixed_point != (t.fixed_point ? 1 : 0))
    fail(SOFTMX_ERR_INVALID_ARGUMENT, std::string(what) + ": the fields differ from those of " + std::string(t.name) +
                                          ", whose id it has (a descriptor is filled by softmx_format_lookup and "
                                          "not edited; a format of its own has id SOFTMX_FORMAT_RUNTIME)");
  return id;
}

Format descriptor_of(const softmx_format* f, const char* what) {
  need(f, what);
  if (f->id != SOFTMX_FORMAT_RUNTIME) return format(format_of(f, what));
  if (f->reserved0 != 0) fail(SOFTMX_ERR_INVALID_ARGUMENT, std::string(what) + ": reserved0 is not zero");
  check_reserved(f->reserved, 4, what);
  const std::string head = std::string(what) + ": a runtime format's field ";
  if (f->sign != SOFTMX_SIGN_MAGNITUDE && f->sign != SOFTMX_SIGN_TWOS_COMPLEMENT && f->sign != SOFTMX_SIGN_NONE)
    fail(SOFTMX_ERR_INVALID_ARGUMENT, head + "sign = " + std::to_string(f->sign) + " is not a SOFTMX_SIGN_* value");
  if (f->specials < SOFTMX_SPECIALS_IEEE || f->specials > SOFTMX_SPECIALS_EXTENDED)
    fail(SOFTMX_ERR_INVALID_ARGUMENT, head + "specials = " + std::to_string(f->specials) + " is not a SOFTMX_SPECIALS_* value");
  if ((f->subnormals != 0 && f->subnormals != 1) || (f->fixed_point != 0 && f->fixed_point != 1))
    fail(SOFTMX_ERR_INVALID_ARGUMENT, head + (f->subnormals != 0 && f->subnormals != 1 ? "subnormals" : "fixed_point") +
                                          " is not 0 or 1");
  if (f->exp_bits < 0 || f->exp_bits > 255 || f->man_bits < 0 || f->man_bits > 255 || f->bias < -32768 || f->bias > 32767)
    fail(SOFTMX_ERR_INVALID_ARGUMENT, head + "exp_bits, man_bits or bias is out of range");
  FormatFields ff;
  ff.sign = static_cast<SignEncoding>(f->sign);
  ff.exp_bits = f->exp_bits;
  ff.man_bits = f->man_bits;
  ff.bias = f->bias;
  ff.specials = static_cast<Specials>(f->specials);
  ff.subnormals = f->subnormals != 0;
  ff.fixed_point = f->fixed_point != 0;
  Format r;
  try {
    r = make_format(ff);  // the named descriptor when the fields equal one's
  } catch (const FormatError& e) {
    fail(SOFTMX_ERR_INVALID_ARGUMENT, std::string(what) + ": " + e.what());
  }
  if (f->width != r.width)
    fail(SOFTMX_ERR_INVALID_ARGUMENT, head + "width = " + std::to_string(f->width) + " differs from the " +
                                          std::to_string(r.width) + " bits its sign, exp_bits and man_bits give");
  return r;
}

FormatId named_of(const softmx_format* f, const char* what, int status, const char* why) {
  const Format r = descriptor_of(f, what);
  if (!r.is_named())
    fail(status, std::string(what) + ": " + std::string(r.name) + " is a runtime format; " + why);
  return r.id;
}

ScaleFormat scale_format_of(const softmx_format* f, const char* what) {
  if (!f) return FormatId::e8m0;
  const Format sf = descriptor_of(f, what);  // a named format, or a runtime one by its fields
  if (auto why = mx_scale_reason(sf)) fail(SOFTMX_ERR_INVALID_ARGUMENT, std::string(what) + ": " + *why);
  return sf;
}

void check_scale_codes(const ScaleFormat& sf, const std::uint8_t* scales, std::size_t n, const char* what) {
  const Format& f = sf;
  const std::size_t bytes = sf.code_bytes();
  const int digits = static_cast<int>(2 * bytes);
  for (std::size_t i = 0; i < n; ++i)
    if (const std::uint32_t c = load_scale_code(scales, i, bytes); c > f.code_mask())
      fail(SOFTMX_ERR_BAD_CODE, std::string(what) + "[" + std::to_string(i) + "] = 0x" + softmx::hex(c, digits) +
                                    " is not a code of " + std::string(f.name) + " (" + std::to_string(f.width) +
                                    " bits: at most 0x" + softmx::hex(f.code_mask(), digits) + ")");
}

Format element_of(const softmx_format* f, const char* what) {
  const Format r = descriptor_of(f, what);
  // A named format that is not an element is refused by the C++ function, with its message.
  if (!r.is_named())
    if (auto why = mx_element_reason(r)) fail(SOFTMX_ERR_INVALID_ARGUMENT, std::string(what) + ": " + *why);
  return r;
}

std::size_t storage_of(FormatId f) { return storage_of(format(f)); }

std::size_t storage_of(const Format& f) {
  const int w = f.width;
  return w <= 8 ? 1 : w <= 16 ? 2 : w <= 32 ? 4 : 8;
}

void check_code(FormatId f, std::uint64_t code, const char* what) { check_code(format(f), code, what); }

void check_code(const Format& t, std::uint64_t code, const char* what) {
  if (code & ~t.code_mask())
    fail(SOFTMX_ERR_BAD_CODE, std::string(what) + " " + hex(code) + " is not a code of " + std::string(t.name) +
                                  " (" + std::to_string(t.width) + " bits: at most " + hex(t.code_mask()) + ")");
}

namespace {

template <class T>
void check_array(const Format& t, const T* codes, std::size_t n, const char* what) {
  const std::uint64_t mask = t.code_mask();
  for (std::size_t i = 0; i < n; ++i)
    if (static_cast<std::uint64_t>(codes[i]) & ~mask)
      fail(SOFTMX_ERR_BAD_CODE, std::string(what) + "[" + std::to_string(i) + "] = " + hex(codes[i]) +
                                    " is not a code of " + std::string(t.name) + " (" + std::to_string(t.width) +
                                    " bits: at most " + hex(mask) + ")");
}

}  // namespace

void check_codes(FormatId f, const void* codes, std::size_t n, const char* what) {
  check_codes(format(f), codes, n, what);
}

void check_codes(const Format& f, const void* codes, std::size_t n, const char* what) {
  const int w = f.width;
  if (w == 8 || w == 16 || w == 32 || w == 64) return;  // every stored value is a code
  switch (storage_of(f)) {
    case 1: return check_array(f, static_cast<const std::uint8_t*>(codes), n, what);
    case 2: return check_array(f, static_cast<const std::uint16_t*>(codes), n, what);
    case 4: return check_array(f, static_cast<const std::uint32_t*>(codes), n, what);
    default: return check_array(f, static_cast<const std::uint64_t*>(codes), n, what);
  }
}

void check_byte_codes(const Format& f, const std::uint8_t* codes, std::size_t n, const char* what) {
  if (f.width > 8)
    fail(SOFTMX_ERR_INVALID_ARGUMENT, std::string(what) + ": " + std::string(f.name) +
                                          " codes do not fit in a byte (an element format of at most 8 bits)");
  check_array(f, codes, n, what);
}

void check_byte_codes(FormatId f, const std::uint8_t* codes, std::size_t n, const char* what) {
  check_byte_codes(format(f), codes, n, what);
}

// ---- contexts, dialects, options ---------------------------------------------------------------

const Dialect& dialect_of(const softmx_dialect* d) {
  return d ? *reinterpret_cast<const Dialect*>(d) : ocp_dialect();
}
const softmx_dialect* handle_of(const Dialect& d) { return reinterpret_cast<const softmx_dialect*>(&d); }
const AccumulationModel& model_of(const softmx_accumulation* m) {
  return m ? *reinterpret_cast<const AccumulationModel*>(m) : exact_accumulation();
}
const softmx_accumulation* handle_of(const AccumulationModel& m) {
  return reinterpret_cast<const softmx_accumulation*>(&m);
}

namespace {

[[noreturn]] void bad_enum(const char* what, std::int32_t v, const char* expected) {
  fail(SOFTMX_ERR_INVALID_ARGUMENT, std::string(what) + " = " + std::to_string(v) + " is not " + expected);
}

}  // namespace

Rounding rounding_of(std::int32_t v, const char* what) {
  if (v < 0 || v >= kRoundingCount) bad_enum(what, v, "a rounding mode (SOFTMX_ROUND_RNE .. SOFTMX_ROUND_RS)");
  return static_cast<Rounding>(v);
}
namespace {

/// A C API enumeration and the C++ one, as rows {C value, C++ value}: one table for both
/// directions (the C values are the ABI's, not the C++ enumerators').
template <class E>
struct CValue {
  std::int32_t c;
  E value;
};
constexpr CValue<Saturation> kSaturations[] = {{SOFTMX_SAT_FINITE, Saturation::finite},
                                               {SOFTMX_SAT_NONE, Saturation::none},
                                               {SOFTMX_SAT_PROPAGATE, Saturation::propagate}};
constexpr CValue<Tininess> kTininess[] = {{SOFTMX_TININESS_AFTER, Tininess::after_rounding},
                                          {SOFTMX_TININESS_BEFORE, Tininess::before_rounding},
                                          {SOFTMX_TININESS_AFTER_BOUNDED, Tininess::after_bounded}};

template <class E, std::size_t N>
std::optional<E> from_c(const CValue<E> (&table)[N], std::int32_t v) {
  for (const CValue<E>& r : table)
    if (r.c == v) return r.value;
  return std::nullopt;
}

template <class E, std::size_t N>
std::int32_t to_c(const CValue<E> (&table)[N], E e, std::int32_t otherwise) {
  for (const CValue<E>& r : table)
    if (r.value == e) return r.c;
  return otherwise;
}

}  // namespace

std::optional<Saturation> find_saturation(std::int32_t v) { return from_c(kSaturations, v); }

Saturation saturation_of(std::int32_t v, const char* what) {
  if (auto s = find_saturation(v)) return *s;
  bad_enum(what, v, "SOFTMX_SAT_FINITE, SOFTMX_SAT_NONE or SOFTMX_SAT_PROPAGATE");
}

std::int32_t c_saturation(Saturation s) { return to_c(kSaturations, s, SOFTMX_SAT_NONE); }

std::optional<Tininess> find_tininess(std::int32_t v) { return from_c(kTininess, v); }

Tininess tininess_of(std::int32_t v, const char* what) {
  if (auto t = find_tininess(v)) return *t;
  bad_enum(what, v, "SOFTMX_TININESS_AFTER, SOFTMX_TININESS_BEFORE or SOFTMX_TININESS_AFTER_BOUNDED");
}

std::int32_t c_tininess(Tininess t) { return to_c(kTininess, t, SOFTMX_TININESS_AFTER); }

ScaleRule scale_rule_of(std::int32_t v, const char* what) {
  if (v < SOFTMX_SCALE_FLOOR || v > SOFTMX_SCALE_RCEIL)
    bad_enum(what, v, "a scale rule (SOFTMX_SCALE_FLOOR .. SOFTMX_SCALE_RCEIL)");
  return static_cast<ScaleRule>(v);
}
Isa isa_of(std::int32_t v, const char* what) {
  if (v < SOFTMX_ISA_SCALAR || v > SOFTMX_ISA_AVX512)
    bad_enum(what, v, "an instruction set (SOFTMX_ISA_SCALAR, SOFTMX_ISA_AVX2, SOFTMX_ISA_AVX512)");
  return static_cast<Isa>(v);
}

std::uint8_t rbits_width_of(std::uint32_t w, const char* what) {
  if (w < 1 || w > 64)
    fail(SOFTMX_ERR_INVALID_ARGUMENT, std::string(what) + " = " + std::to_string(w) + " is not in 1..64");
  return static_cast<std::uint8_t>(w);
}

void check_rbits(std::uint64_t r, std::uint8_t width, const char* what) {
  if (width < 64 && (r >> width) != 0)
    fail(SOFTMX_ERR_INVALID_ARGUMENT, std::string(what) + " = " + hex(r) + " is not below 2^" + std::to_string(width) +
                                          " (rbits_width)");
}

void check_reserved(const std::uint64_t* reserved, std::size_t n, const char* what) {
  for (std::size_t i = 0; i < n; ++i)
    if (reserved[i] != 0)
      fail(SOFTMX_ERR_INVALID_ARGUMENT, std::string(what) + ": reserved[" + std::to_string(i) +
                                            "] is not zero (initialise the struct with its _init function)");
}

Conversion conversion_of(const softmx_context* c, const Format& dst) {
  softmx_context defaults;
  softmx_context_init(&defaults);
  if (!c) c = &defaults;
  check_reserved(c->reserved, 2, "ctx");
  Conversion r;
  r.dialect = &dialect_of(c->dialect);
  const DestinationSupport& s = support_for(*r.dialect, dst);  // a runtime dst: the dialect's runtime policy
  r.ctx.rounding = c->rounding == SOFTMX_DEFAULT ? s.default_rounding : rounding_of(c->rounding, "ctx->rounding");
  r.ctx.saturation =
      c->saturation == SOFTMX_DEFAULT ? s.default_saturation : saturation_of(c->saturation, "ctx->saturation");
  r.ctx.tininess = tininess_of(c->tininess, "ctx->tininess");
  r.ctx.rbits_width = rbits_width_of(c->rbits_width, "ctx->rbits_width");
  if (r.ctx.rounding == Rounding::rs) check_rbits(c->rbits, r.ctx.rbits_width, "ctx->rbits");
  r.ctx.rbits = c->rbits;
  return r;
}

Context plain_context_of(const softmx_context* c) {
  softmx_context defaults;
  softmx_context_init(&defaults);
  if (!c) c = &defaults;
  check_reserved(c->reserved, 2, "ctx");
  Context r;
  if (c->rounding != SOFTMX_DEFAULT) r.rounding = rounding_of(c->rounding, "ctx->rounding");
  if (c->saturation != SOFTMX_DEFAULT) r.saturation = saturation_of(c->saturation, "ctx->saturation");
  r.tininess = tininess_of(c->tininess, "ctx->tininess");
  r.rbits_width = rbits_width_of(c->rbits_width, "ctx->rbits_width");
  if (r.rounding == Rounding::rs) check_rbits(c->rbits, r.rbits_width, "ctx->rbits");
  r.rbits = c->rbits;
  return r;
}

// ---- shapes ------------------------------------------------------------------------------------

Extent extent_of(const std::size_t* shape, std::size_t rank, std::size_t axis, std::size_t block) {
  if (rank == 0) fail(SOFTMX_ERR_SHAPE, "the tensor needs at least one dimension (rank is 0)");
  need(shape, "shape");
  if (axis >= rank)
    fail(SOFTMX_ERR_SHAPE, "axis " + std::to_string(axis) + " does not exist in a " + std::to_string(rank) + "-d tensor");
  if (block == 0) fail(SOFTMX_ERR_SHAPE, "the block size must be at least 1");
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  Extent e;
  for (std::size_t d = 0; d < rank; ++d) {
    const std::size_t n = shape[d];
    const std::size_t s = d == axis ? n / block + (n % block != 0) : n;
    if ((n != 0 && e.elements > kMax / n) || (s != 0 && e.scales > kMax / s))
      fail(SOFTMX_ERR_SHAPE, "the shape's element count overflows size_t");
    e.elements *= n;
    e.scales *= s;
  }
  return e;
}

void check_capacity(std::size_t capacity, std::size_t needed, const char* what) {
  if (capacity < needed)
    fail(SOFTMX_ERR_BUFFER_TOO_SMALL, std::string(what) + " holds " + std::to_string(capacity) + " but " +
                                          std::to_string(needed) + " are needed");
}

void check_dequantize_buffers(const Extent& x, std::size_t scale_count, std::size_t code_count,
                              std::size_t out_capacity, const void* scales, const void* codes, const void* out,
                              const char* blocks) {
  if (scale_count != x.scales)
    fail(SOFTMX_ERR_SHAPE, "scale_count is " + std::to_string(scale_count) + " but the shape has " +
                               std::to_string(x.scales) + " " + blocks);
  if (code_count != x.elements)
    fail(SOFTMX_ERR_SHAPE, "code_count is " + std::to_string(code_count) + " but the shape has " +
                               std::to_string(x.elements) + " elements");
  check_capacity(out_capacity, x.elements, "out");
  if (x.scales) need(scales, "scales");
  if (x.elements) {
    need(codes, "codes");
    need(out, "out");
  }
}

}  // namespace softmx::capi
