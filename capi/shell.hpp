// capi/shell.hpp: what every C entry point shares: the guard that turns any C++ exception into
// a status and a message, and the translation of C arguments into the C++ API's types.
//
// The rule of this folder: translate arguments and errors, compute nothing. Each check here is
// of something the C++ API takes for granted through its types (a pointer is not null, an int
// is one of an enum's values, a code fits its format, a caller's buffer is long enough); what
// the C++ functions check themselves is left to them, and their exceptions are translated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>

#include "softmx/block.hpp"
#include "softmx/context.hpp"
#include "softmx/convert.hpp"
#include "softmx/dialect.hpp"
#include "softmx/dot.hpp"
#include "softmx/format.hpp"
#include "softmx/softmx.h"

// The opaque C handle types are the C++ objects themselves (dialects and models are static
// objects of the library); these casts are the only place that knows it.
struct softmx_converter {
  softmx::Converter conv;
};

namespace softmx::capi {

/// A failure found by the shell: the status and the message (without the function's name).
struct Failure : std::exception {
  int status;
  std::string message;
  Failure(int s, std::string m) : status(s), message(std::move(m)) {}
  const char* what() const noexcept override { return message.c_str(); }
};
[[noreturn]] void fail(int status, std::string message);

/// Writes {status, "FUNCTION: message"} into err (if not null), truncating the message.
int report(softmx_error* err, const char* function, int status, const char* message) noexcept;
/// Marks err (if not null) as a success.
void clear(softmx_error* err) noexcept;

/// Maps the exception in flight to a status (Failure: its own; Unsupported: UNSUPPORTED;
/// bad_alloc: OUT_OF_MEMORY; FormatError and other invalid_argument: INVALID_ARGUMENT;
/// anything else: INTERNAL) and reports it. Call only inside a catch block.
int report_current(softmx_error* err, const char* function) noexcept;

/// Runs body() and returns SOFTMX_OK, or the status of whatever it threw. Nothing escapes.
template <class Body>
int guard(softmx_error* err, const char* function, Body&& body) noexcept {
  try {
    body();
    clear(err);
    return SOFTMX_OK;
  } catch (...) {
    return report_current(err, function);
  }
}

/// Fails with NULL_POINTER naming `what` when p is null.
template <class T>
T* need(T* p, const char* what) {
  if (!p) fail(SOFTMX_ERR_NULL_POINTER, std::string(what) + " is NULL");
  return p;
}

// ---- formats -------------------------------------------------------------------------------

/// The C++ format of a named descriptor: checks it (not null, reserved fields zero, a named id's
/// fields equal to that format's) and returns its FormatId. A runtime descriptor fails with
/// UNSUPPORTED: call descriptor_of where runtime formats are served, named_of where the C++
/// function takes a FormatId.
FormatId format_of(const softmx_format* f, const char* what);
/// The C++ descriptor of any format argument: a named one as format_of checks it, or a runtime
/// one (SOFTMX_FORMAT_RUNTIME) made from its fields by make_format (the named descriptor when
/// they equal one's); a bad field, or a width that is not what sign, exp_bits and man_bits give,
/// fails with INVALID_ARGUMENT naming it. The conversions, the converter, explain, the dialect
/// queries, the block elements and scales, packing and DotGeneral take their formats this way.
Format descriptor_of(const softmx_format* f, const char* what);
/// descriptor_of for an argument whose C++ function takes a FormatId (the block and NVFP4
/// sources, the dequantize destinations, the tensor-core mma): a runtime format fails with
/// `status` and "WHAT: NAME is a runtime format; `why`", where `why` says what the function takes.
FormatId named_of(const softmx_format* f, const char* what, int status, const char* why);
/// The block scale format of a C descriptor (null: E8M0): a named format, or a runtime
/// descriptor (softmx_format_lookup("ue4m3"), or filled by hand) made from its fields as
/// descriptor_of makes it; then mx_scale_reason (INVALID_ARGUMENT naming `what` and the field).
ScaleFormat scale_format_of(const softmx_format* f, const char* what);
/// Fails with BAD_CODE, naming what[i], when one of the n scale codes (sf.code_bytes() bytes
/// each, host byte order) is beyond sf's width.
void check_scale_codes(const ScaleFormat& sf, const std::uint8_t* scales, std::size_t n, const char* what);
/// descriptor_of, then for a runtime format mx_element_reason: INVALID_ARGUMENT naming the field
/// an MX element cannot have (width, sign, subnormals, specials).
Format element_of(const softmx_format* f, const char* what);
/// Fills a descriptor from a C++ format.
void fill(softmx_format* out, const Format& f);
/// Storage bytes of a format's codes (1, 2, 4, 8), named or runtime.
std::size_t storage_of(FormatId f);
std::size_t storage_of(const Format& f);
/// Fails with BAD_CODE when `code` has bits above the format's width.
void check_code(FormatId f, std::uint64_t code, const char* what);
void check_code(const Format& f, std::uint64_t code, const char* what);
/// The same for n codes in the format's storage type (only formats narrower than their storage
/// can hold bad codes).
void check_codes(FormatId f, const void* codes, std::size_t n, const char* what);
void check_codes(const Format& f, const void* codes, std::size_t n, const char* what);
/// The same for n codes held one per byte.
void check_byte_codes(FormatId f, const std::uint8_t* codes, std::size_t n, const char* what);
void check_byte_codes(const Format& f, const std::uint8_t* codes, std::size_t n, const char* what);

// ---- contexts, dialects, options -------------------------------------------------------------

const Dialect& dialect_of(const softmx_dialect* d);
const softmx_dialect* handle_of(const Dialect& d);
const AccumulationModel& model_of(const softmx_accumulation* m);
const softmx_accumulation* handle_of(const AccumulationModel& m);

/// Checks an enumerated value, failing with INVALID_ARGUMENT "WHAT = v is not one of ...".
Rounding rounding_of(std::int32_t v, const char* what);
Saturation saturation_of(std::int32_t v, const char* what);
/// The saturation of a SOFTMX_SAT_* value; nullopt for any other value.
std::optional<Saturation> find_saturation(std::int32_t v);
/// SOFTMX_SAT_* of a saturation (by_destination, never a C value, gives SOFTMX_SAT_NONE).
std::int32_t c_saturation(Saturation s);
Tininess tininess_of(std::int32_t v, const char* what);
/// The tininess rule of a SOFTMX_TININESS_* value; nullopt for any other value.
std::optional<Tininess> find_tininess(std::int32_t v);
/// The C value of a tininess rule (SOFTMX_TININESS_*).
std::int32_t c_tininess(Tininess t);
ScaleRule scale_rule_of(std::int32_t v, const char* what);
Isa isa_of(std::int32_t v, const char* what);
/// rbits_width in 1..64 and, for rs, rbits below 2^rbits_width.
std::uint8_t rbits_width_of(std::uint32_t w, const char* what);
void check_rbits(std::uint64_t r, std::uint8_t width, const char* what);
/// Fails with INVALID_ARGUMENT when a reserved field is not zero.
void check_reserved(const std::uint64_t* reserved, std::size_t n, const char* what);

/// A C context for a conversion into `dst`, named or runtime: the C++ Context (SOFTMX_DEFAULT
/// replaced by what the dialect uses for `dst` when not told, support_for(), as the command
/// line does) and the dialect. ctx may be null (SOFTMX_CONTEXT_INIT).
struct Conversion {
  Context ctx;
  const Dialect* dialect;
};
Conversion conversion_of(const softmx_context* ctx, const Format& dst);
inline Conversion conversion_of(const softmx_context* ctx, FormatId dst) { return conversion_of(ctx, format(dst)); }
/// A C context where no dialect decides (Dot's f32 result): SOFTMX_DEFAULT is softmx::Context's
/// own default.
Context plain_context_of(const softmx_context* ctx);

// ---- shapes ----------------------------------------------------------------------------------

/// The element count of a shape (rank >= 1, axis < rank, every product in size_t), failing with
/// SHAPE; with block > 0 also the scale count (shape[axis] replaced by ceil(shape[axis] / block)).
struct Extent {
  std::size_t elements = 1;
  std::size_t scales = 1;
};
Extent extent_of(const std::size_t* shape, std::size_t rank, std::size_t axis, std::size_t block);
/// Fails with BUFFER_TOO_SMALL when capacity < needed.
void check_capacity(std::size_t capacity, std::size_t needed, const char* what);
/// The buffers of a dequantized tensor of extent `x`: scale_count and code_count equal to the
/// shape's (SHAPE, the block count named with `blocks`, e.g. "blocks" or "blocks of 16"),
/// out_capacity enough (BUFFER_TOO_SMALL), and the pointers not null where there is data.
void check_dequantize_buffers(const Extent& x, std::size_t scale_count, std::size_t code_count,
                              std::size_t out_capacity, const void* scales, const void* codes, const void* out,
                              const char* blocks);

}  // namespace softmx::capi
