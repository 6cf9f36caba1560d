// capi/info.cpp: versions, status names, enumeration names, format, dialect and model lookup.
#include <string>
#include <vector>

#include "shell.hpp"
#include "softmx/batch.hpp"
#include "softmx/block.hpp"
#include "softmx/tensor_core.hpp"

using namespace softmx;
using namespace softmx::capi;

namespace {

// Names out of the C++ API are string_views of string literals, so their data() is
// NUL-terminated (test_capi checks every one).
const char* c_str(std::string_view s) { return s.data(); }

template <class T>
std::string known_names(const char* a, T first, T last, std::string_view (*name_of)(T)) {
  std::string s = a;
  for (int v = static_cast<int>(first); v <= static_cast<int>(last); ++v) {
    s += v == static_cast<int>(first) ? " " : ", ";
    s += name_of(static_cast<T>(v));
  }
  return s;
}

std::string_view rounding_name(Rounding r) { return softmx::name(r); }
std::string_view tininess_name(Tininess t) { return softmx::name(t); }
std::string_view scale_rule_name(ScaleRule r) { return softmx::name(r); }

std::string quoted(const char* s) { return std::string("'") + s + "'"; }

/// The names of a table's rows (name_of of each), joined by `sep`: what an unknown name's
/// message lists.
template <class Table, class NameOf>
std::string joined(const Table& table, const char* sep, NameOf name_of) {
  std::string s;
  for (const auto& row : table) {
    if (!s.empty()) s += sep;
    s += name_of(row);
  }
  return s;
}

// What every softmx_*_from_name and *_lookup does: checks its pointers (`out_name` names `out`
// in the message), looks the name `n` up (parse: an optional or a pointer, empty when unknown),
// and writes to_c of what it found; an unknown name fails with UNKNOWN_NAME
// "unknown WHAT 'n' (expected())".
template <class Out, class Parse, class Expected, class ToC>
int from_name(softmx_error* err, const char* function, const char* n, Out* out, const char* out_name,
              const char* what, Parse parse, Expected expected, ToC to_c) {
  return guard(err, function, [&] {
    need(n, "name");
    need(out, out_name);
    const auto v = parse(n);
    if (!v) fail(SOFTMX_ERR_UNKNOWN_NAME, "unknown " + std::string(what) + " " + quoted(n) + " (" + expected() + ")");
    *out = to_c(*v);
  });
}

}  // namespace

extern "C" {

int softmx_abi_version(void) { return SOFTMX_ABI_VERSION; }

#define SOFTMX_STRINGIFY2(x) #x
#define SOFTMX_STRINGIFY(x) SOFTMX_STRINGIFY2(x)
const char* softmx_version(void) {
  return SOFTMX_STRINGIFY(SOFTMX_VERSION_MAJOR) "." SOFTMX_STRINGIFY(SOFTMX_VERSION_MINOR) "." SOFTMX_STRINGIFY(
      SOFTMX_VERSION_PATCH);
}

const char* softmx_status_name(int status) {
  switch (status) {
    case SOFTMX_OK: return "SOFTMX_OK";
    case SOFTMX_ERR_NULL_POINTER: return "SOFTMX_ERR_NULL_POINTER";
    case SOFTMX_ERR_UNKNOWN_NAME: return "SOFTMX_ERR_UNKNOWN_NAME";
    case SOFTMX_ERR_INVALID_ARGUMENT: return "SOFTMX_ERR_INVALID_ARGUMENT";
    case SOFTMX_ERR_BAD_CODE: return "SOFTMX_ERR_BAD_CODE";
    case SOFTMX_ERR_UNSUPPORTED: return "SOFTMX_ERR_UNSUPPORTED";
    case SOFTMX_ERR_SHAPE: return "SOFTMX_ERR_SHAPE";
    case SOFTMX_ERR_BUFFER_TOO_SMALL: return "SOFTMX_ERR_BUFFER_TOO_SMALL";
    case SOFTMX_ERR_OUT_OF_MEMORY: return "SOFTMX_ERR_OUT_OF_MEMORY";
    case SOFTMX_ERR_INTERNAL: return "SOFTMX_ERR_INTERNAL";
    default: return "SOFTMX_ERR_?";
  }
}

// ---- enumeration names ---------------------------------------------------------------------------

const char* softmx_rounding_name(int32_t v) {
  return v >= 0 && v < kRoundingCount ? c_str(name(static_cast<Rounding>(v))) : nullptr;
}
const char* softmx_saturation_name(int32_t v) {
  const auto s = find_saturation(v);
  return s ? c_str(name(*s)) : nullptr;
}
const char* softmx_tininess_name(int32_t v) {
  const auto t = find_tininess(v);
  return t ? c_str(name(*t)) : nullptr;
}
const char* softmx_scale_rule_name(int32_t v) {
  return v >= SOFTMX_SCALE_FLOOR && v <= SOFTMX_SCALE_RCEIL ? c_str(name(static_cast<ScaleRule>(v))) : nullptr;
}
const char* softmx_isa_name(int32_t v) {
  return v >= SOFTMX_ISA_SCALAR && v <= SOFTMX_ISA_AVX512 ? name(static_cast<Isa>(v)) : nullptr;
}

int softmx_rounding_from_name(const char* n, int32_t* out, softmx_error* err) {
  return from_name(
      err, "softmx_rounding_from_name", n, out, "rounding", "rounding mode", parse_rounding,
      [] { return known_names("expected one of", Rounding::rne, Rounding::rs, rounding_name); },
      [](Rounding r) { return static_cast<int32_t>(r); });
}

int softmx_saturation_from_name(const char* n, int32_t* out, softmx_error* err) {
  return from_name(
      err, "softmx_saturation_from_name", n, out, "saturation", "saturation", parse_saturation,
      [] { return std::string("expected one of finite, none, propagate (P3109's SatFinite, SatNone, SatPropagate)"); },
      c_saturation);
}

int softmx_tininess_from_name(const char* n, int32_t* out, softmx_error* err) {
  return from_name(
      err, "softmx_tininess_from_name", n, out, "tininess", "tininess", parse_tininess,
      [] { return known_names("expected one of", Tininess::after_rounding, Tininess::after_bounded, tininess_name); },
      c_tininess);
}

int softmx_scale_rule_from_name(const char* n, int32_t* out, softmx_error* err) {
  return from_name(
      err, "softmx_scale_rule_from_name", n, out, "rule", "scale rule", parse_scale_rule,
      [] { return known_names("expected one of", ScaleRule::floor, ScaleRule::rceil, scale_rule_name); },
      [](ScaleRule r) { return static_cast<int32_t>(r); });
}

int softmx_isa_supported(int32_t isa) {
  return isa >= SOFTMX_ISA_SCALAR && isa <= SOFTMX_ISA_AVX512 && isa_supported(static_cast<Isa>(isa)) ? 1 : 0;
}

// ---- formats ----------------------------------------------------------------------------------------

int softmx_format_lookup(const char* spec, softmx_format* out, softmx_error* err) {
  return guard(err, "softmx_format_lookup", [&] {
    need(spec, "spec");
    need(out, "format");
    if (auto id = parse_format(spec)) return fill(out, format(*id));
    // Any other spec of docs/SEMANTICS.md 1.2 (e1m2, e4m3fnuz, int4, e4m3:bias=11:specials=fnuz):
    // a runtime descriptor (id SOFTMX_FORMAT_RUNTIME) named by its canonical spec.
    try {
      fill(out, parse_format_spec(spec));
    } catch (const FormatError& e) {
      if (e.field() != "name") fail(SOFTMX_ERR_INVALID_ARGUMENT, e.what());  // names the bad field
      const std::string known = joined(all_formats(), " ", [](const Format& f) { return f.name; });
      fail(SOFTMX_ERR_UNKNOWN_NAME, "unknown format " + quoted(spec) + " (expected one of " + known +
                                        ", an alias such as fp32, bfloat16, float8_e4m3fn, fp4, mxint8, or a spec " +
                                        "such as e1m2, e4m3fnuz, int4, e4m3:bias=11:specials=fnuz)");
    }
  });
}

int softmx_format_named(int32_t id, softmx_format* out, softmx_error* err) {
  return guard(err, "softmx_format_named", [&] {
    need(out, "format");
    if (id < 0 || id >= kFormatCount)
      fail(SOFTMX_ERR_INVALID_ARGUMENT, "id " + std::to_string(id) + " is not a named format's (0.." +
                                            std::to_string(kFormatCount - 1) + ")");
    fill(out, format(static_cast<FormatId>(id)));
  });
}

int32_t softmx_format_count(void) { return kFormatCount; }

size_t softmx_storage_bytes(const softmx_format* f) {
  try {
    return storage_of(descriptor_of(f, "format"));
  } catch (...) {
    return 0;
  }
}

// ---- dialects ----------------------------------------------------------------------------------------

int softmx_dialect_lookup(const char* n, const softmx_dialect** out, softmx_error* err) {
  return from_name(
      err, "softmx_dialect_lookup", n, out, "dialect", "dialect", find_dialect,
      [] { return "expected one of " + joined(all_dialects(), ", ", [](const Dialect& x) { return x.name; }); },
      [](const Dialect& d) { return handle_of(d); });
}

size_t softmx_dialect_count(void) { return all_dialects().size(); }

const softmx_dialect* softmx_dialect_at(size_t i) {
  return i < all_dialects().size() ? handle_of(all_dialects()[i]) : nullptr;
}

const char* softmx_dialect_name(const softmx_dialect* d) { return c_str(dialect_of(d).name); }
const char* softmx_dialect_summary(const softmx_dialect* d) { return c_str(dialect_of(d).summary); }

int softmx_dialect_support(const softmx_dialect* d, const softmx_format* dst, uint32_t* roundings,
                           uint32_t* saturations, int32_t* default_rounding, int32_t* default_saturation,
                           softmx_error* err) {
  return guard(err, "softmx_dialect_support", [&] {
    const Format f = descriptor_of(dst, "dst");
    const Dialect& dialect = dialect_of(d);
    const DestinationSupport& s = support_for(dialect, f);
    RoundingSet modes = s.roundings;
    SaturationSet sats = s.saturations;
    if (!f.is_named()) {
      // A runtime destination may be refused whatever the mode (the dialect refuses runtime
      // formats, or these specials): the masks are what unsupported_reason accepts, mode by mode.
      modes = 0;
      sats = 0;
      for (int r = 0; r < kRoundingCount; ++r)
        for (Saturation z : {Saturation::finite, Saturation::none, Saturation::propagate}) {
          Context c;
          c.rounding = static_cast<Rounding>(r);
          c.saturation = z;
          if (!unsupported_reason(dialect, f, c)) {
            modes |= rounding_bit(c.rounding);
            sats |= saturation_bit(z);
          }
        }
    }
    if (roundings) *roundings = modes;
    if (saturations) {
      // C bit i = SOFTMX_SAT_ i, from the C++ set's bit per Saturation value.
      *saturations = ((sats & saturation_bit(Saturation::finite)) ? 1u << SOFTMX_SAT_FINITE : 0u) |
                     ((sats & saturation_bit(Saturation::none)) ? 1u << SOFTMX_SAT_NONE : 0u) |
                     ((sats & saturation_bit(Saturation::propagate)) ? 1u << SOFTMX_SAT_PROPAGATE : 0u);
    }
    if (default_rounding) *default_rounding = static_cast<int32_t>(s.default_rounding);
    if (default_saturation)
      *default_saturation = c_saturation(s.default_saturation);
  });
}

void softmx_context_init(softmx_context* ctx) {
  if (ctx) *ctx = softmx_context SOFTMX_CONTEXT_INIT;
}

int softmx_check_support(const softmx_format* dst, const softmx_context* ctx, softmx_error* err) {
  return guard(err, "softmx_check_support", [&] {
    const Format f = descriptor_of(dst, "dst");
    const Conversion c = conversion_of(ctx, f);
    if (auto why = unsupported_reason(*c.dialect, f, c.ctx)) fail(SOFTMX_ERR_UNSUPPORTED, *why);
  });
}

}  // extern "C"

// ---- accumulation models --------------------------------------------------------------------------------

namespace {

// Every model by name: the library's list (dot.hpp accumulation_models()).
std::span<const AccumulationModel* const> all_models() { return accumulation_models(); }

}  // namespace

extern "C" {

int softmx_accumulation_lookup(const char* n, const softmx_accumulation** out, softmx_error* err) {
  return from_name(
      err, "softmx_accumulation_lookup", n, out, "model", "accumulation model", find_accumulation_model,
      [] { return "expected one of " + joined(all_models(), ", ", [](const AccumulationModel* x) { return x->name(); }); },
      [](const AccumulationModel& m) { return handle_of(m); });
}

size_t softmx_accumulation_count(void) {
  try {
    return all_models().size();
  } catch (...) {
    return 0;
  }
}

const softmx_accumulation* softmx_accumulation_at(size_t i) {
  try {
    return i < all_models().size() ? handle_of(*all_models()[i]) : nullptr;
  } catch (...) {
    return nullptr;
  }
}

const char* softmx_accumulation_name(const softmx_accumulation* m) { return c_str(model_of(m).name()); }

}  // extern "C"
