// capi/explain.cpp: softmx_explain and softmx_explain_value (include/softmx/softmx.h) over
// softmx/explain.hpp. The text is what the library's explain functions write, in the order
// `softmx explain` prints them, plus one result line for the caller's context; nothing here
// decides anything about the conversion.
#include <cstdio>
#include <cstring>
#include <string>

#include "shell.hpp"
#include "softmx/error.hpp"
#include "softmx/describe.hpp"
#include "softmx/explain.hpp"

using namespace softmx;
using namespace softmx::capi;

namespace {

// "input ... destination ... neighbours ... result CODE flags FLAGS: REASON\n" for `in` into
// `d` under the C context `ctx`.
// `dst` named or runtime (descriptor_of's canonical descriptor).
std::string explanation(const ExplainInput& in, const Format& dst, const softmx_context* ctx) {
  const Conversion c = conversion_of(ctx, dst);
  if (const auto why = unsupported_reason(*c.dialect, dst, c.ctx))
    fail(SOFTMX_ERR_UNSUPPORTED, *why);
  const Neighbours nb = find_neighbours(in, dst);
  const Result r = in.code ? convert(*in.from, dst, *in.code, c.ctx, *c.dialect) : round_pack(dst, in.u, c.ctx, *c.dialect);
  std::string t = input_text(in, dst);
  t += "destination " + describe_format(dst) + "\n";
  t += neighbours_text(in, nb, dst);
  char head[64];
  std::snprintf(head, sizeof head, "result %0*llX flags %02X: ", dst.hex_digits(),
                static_cast<unsigned long long>(r.code), static_cast<unsigned>(r.flags));
  t += head + rounding_reason(in, nb, dst, c.ctx, *c.dialect, r) + "\n";
  return t;
}

// Hands `t` to the caller: *length always, the bytes and the NUL when they fit.
void deliver(const std::string& t, char* text, std::size_t capacity, std::size_t* length) {
  if (length) *length = t.size();
  check_capacity(capacity, t.size() + 1, "capacity");
  need(text, "text");
  std::memcpy(text, t.c_str(), t.size() + 1);
}

}  // namespace

extern "C" {

int softmx_explain(const softmx_format* src, const softmx_format* dst, uint64_t code, const softmx_context* ctx,
                   char* text, size_t capacity, size_t* length, softmx_error* err) {
  return guard(err, "softmx_explain", [&] {
    const Format s = descriptor_of(src, "src"), d = descriptor_of(dst, "dst");
    check_code(s, code, "code");
    deliver(explanation(explain_input_code(s, code), d, ctx), text, capacity, length);
  });
}

int softmx_explain_value(const char* value, const softmx_format* dst, const softmx_context* ctx, char* text,
                         size_t capacity, size_t* length, softmx_error* err) {
  return guard(err, "softmx_explain_value", [&] {
    need(value, "value");
    const Format d = descriptor_of(dst, "dst");
    ExplainInput in;
    try {
      in = explain_input_text(value);
    } catch (const InputError& e) {
      fail(SOFTMX_ERR_INVALID_ARGUMENT, std::string("value: ") + e.what());
    }
    deliver(explanation(in, d, ctx), text, capacity, length);
  });
}

}  // extern "C"
