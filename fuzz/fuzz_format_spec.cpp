// fuzz/fuzz_format_spec.cpp: fuzzes softmx::parse_format_spec (include/softmx/format.hpp), the
// textual format specs (docs/SEMANTICS.md 1.2) that the command line, the Python module and the C
// API take, on the whole input as one string (NUL bytes included), and checks what it returns:
//
//   - a rejected spec throws FormatError (nothing else) with a message that names the spec and
//     the field (field() is one of the documented keys);
//   - a parsed format is valid: make_format(fields_of(f)) == f, unless it is a named format;
//     a runtime one has at most 32 bits;
//   - its name is its canonical spec, which parses back to the same descriptor and id, in any
//     letter case;
//   - converting with it works: every code (up to 4096 of them) into f64 and back under rne, and
//     1.0, -0.0, NaN and the f32 extremes into it, raise no exception.
//
// Finding: a crash, a sanitizer report, any other exception, or a failed check above (abort()).
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "softmx/convert.hpp"

namespace {

[[noreturn]] void fail(const char* what, std::string_view input) {
  std::fprintf(stderr, "fuzz_format_spec: %s (input: \"%.*s\")\n", what,
               static_cast<int>(input.size() > 200 ? 200 : input.size()), input.data());
  std::abort();
}

bool known_field(const std::string& f) {
  for (const char* k : {"name", "sign", "exp", "man", "bias", "specials", "subnormals", "fixed", "width", "key"})
    if (f == k) return true;
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  softmx::Format f;
  try {
    f = softmx::parse_format_spec(text);
  } catch (const softmx::FormatError& e) {
    const std::string what = e.what();
    if (!known_field(e.field())) fail("FormatError with an undocumented field", text);
    if (what.find("format spec '") != 0 || what.find(e.field() + ":") == std::string::npos)
      fail("FormatError message does not name the spec and the field", text);
    return 0;
  }
  using softmx::FormatId;
  if (!f.is_named()) {
    if (f.width > 32) fail("runtime format wider than 32 bits", text);
    if (!(softmx::make_format(softmx::fields_of(f)) == f)) fail("make_format(fields_of(f)) != f", text);
  }
  const std::string spec = softmx::format_spec(f);
  if (std::string(f.name) != spec) fail("name is not the canonical spec", text);
  std::string upper = spec;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const std::string& s : {spec, upper}) {
    const softmx::Format back = softmx::parse_format_spec(s);
    if (!(back == f) || back.id != f.id) fail("the canonical spec does not parse back", text);
  }
  softmx::Context none;
  none.saturation = softmx::Saturation::none;
  const softmx::Format& f64 = softmx::format(FormatId::f64);
  const softmx::Converter to(f, f64, none), back(f64, f, none), from32(softmx::format(FormatId::f32), f, {});
  const std::uint64_t codes = f.width >= 12 ? 4096 : std::uint64_t{1} << f.width;
  for (std::uint64_t c = 0; c < codes; ++c) (void)back(to(c).code);
  for (std::uint32_t x : {0x3F800000u, 0x80000000u, 0x7FC00000u, 0x7F7FFFFFu, 0x00000001u, 0xFF800000u})
    (void)from32(x);
  return 0;
}
