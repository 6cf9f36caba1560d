// A C++ program of softmx's users (conformance/consumer/run.sh builds it against an installed
// softmx): the C++ API, and the C header compiled as C++. Exit 0 when every result is the one
// computed by hand.
#include <cstdio>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/convert.hpp"
#include "softmx/dot.hpp"
#include "softmx/softmx.h"

static int failures = 0;

static void expect(const char* what, unsigned long long got, unsigned long long want) {
  std::printf("%-44s %llX%s\n", what, got, got == want ? "" : "  MISMATCH");
  if (got != want) ++failures;
}

int main() {
  softmx::Context ctx;  // rne, satfinite
  const softmx::Result r = softmx::convert(softmx::FormatId::f32, softmx::FormatId::e4m3, 0x43E80001, ctx);
  expect("convert f32 43E80001 -> e4m3", r.code, 0x7E);
  expect("  flags", r.flags, softmx::flag::overflow | softmx::flag::inexact);  // past the tie at 464

  const softmx::Converter conv(softmx::FormatId::f16, softmx::FormatId::e5m2, ctx, *softmx::find_dialect("cuda"));
  expect("Converter f16 3C00 -> e5m2 (cuda)", conv(0x3C00).code, 0x3C);

  const std::vector<std::uint32_t> data = {0x3F800000u, 0x43E80001u, 0xC0400000u, 0};
  const softmx::QuantizedBlock q = softmx::quantize_block(softmx::FormatId::f32, data.data(), 4, softmx::BlockOptions{});
  expect("quantize_block scale", q.scale, 0x7F);
  expect("  codes[2]", q.codes[2], 0xC4);

  const std::vector<std::uint8_t> a(32, 0x38), b(32, 0x40);  // 1.0 and 2.0 in e4m3
  const softmx::BlockRef ba{softmx::FormatId::e4m3, 0x7F, a}, bb{softmx::FormatId::e4m3, 0x7F, b};
  expect("dot exact (32 x 1 x 2 = 64)", softmx::dot(ba, bb, ctx).code, 0x42800000u);

  softmx_format f32, e4m3;  // the C API from C++
  softmx_format_lookup("f32", &f32, nullptr);
  softmx_format_lookup("e4m3", &e4m3, nullptr);
  std::uint64_t code = 0;
  softmx_convert(&f32, &e4m3, 0x3F800000u, nullptr, &code, nullptr, nullptr);
  expect("C API from C++: f32 1.0 -> e4m3", code, 0x38);

  std::printf("consumer_cpp: %s\n", failures ? "FAILED" : "all results as expected");
  return failures ? 1 : 0;
}
