// emulator/core/format_table.hpp: the format descriptors as constexpr data (internal).
//
// Kept in a header so the kernels in convert.cpp see constants and the compiler folds each
// descriptor into the one generic algorithm (one source, specialised object code).
#pragma once

#include <array>

#include "softmx/format.hpp"

namespace softmx::detail {

// clang-format off
//  id              name    width exp man bias  sign                          specials         subnormals fixed
inline constexpr std::array<Format, kFormatCount> kFormats = {{
  {FormatId::f64,  "f64",  64, 11, 52, 1023, SignEncoding::magnitude,       Specials::ieee, true,  false},
  {FormatId::f32,  "f32",  32,  8, 23,  127, SignEncoding::magnitude,       Specials::ieee, true,  false},
  {FormatId::f16,  "f16",  16,  5, 10,   15, SignEncoding::magnitude,       Specials::ieee, true,  false},
  {FormatId::bf16, "bf16", 16,  8,  7,  127, SignEncoding::magnitude,       Specials::ieee, true,  false},
  {FormatId::e4m3, "e4m3",  8,  4,  3,    7, SignEncoding::magnitude,       Specials::fn,   true,  false},
  {FormatId::e5m2, "e5m2",  8,  5,  2,   15, SignEncoding::magnitude,       Specials::ieee, true,  false},
  {FormatId::e3m2, "e3m2",  6,  3,  2,    3, SignEncoding::magnitude,       Specials::none, true,  false},
  {FormatId::e2m3, "e2m3",  6,  2,  3,    1, SignEncoding::magnitude,       Specials::none, true,  false},
  {FormatId::e2m1, "e2m1",  4,  2,  1,    1, SignEncoding::magnitude,       Specials::none, true,  false},
  // MXINT8: 1.6 fixed point, modelled as an E1M6 float (bias 1) with two's complement sign.
  {FormatId::int8, "int8",  8,  1,  6,    1, SignEncoding::twos_complement, Specials::none, true,  true},
  // E8M0: unsigned power of two, no zero, no subnormals; 0xFF is NaN.
  {FormatId::e8m0, "e8m0",  8,  8,  0,  127, SignEncoding::none,            Specials::fn,   false, false},
}};
// clang-format on

constexpr const Format& fmt(FormatId id) { return kFormats[static_cast<int>(id)]; }

// The table is indexed by FormatId: check the order once, at compile time.
constexpr bool table_in_id_order() {
  for (int i = 0; i < kFormatCount; ++i)
    if (static_cast<int>(kFormats[i].id) != i) return false;
  return true;
}
static_assert(table_in_id_order());
static_assert(fmt(FormatId::e4m3).max_finite_magnitude() == 0x7E);
static_assert(fmt(FormatId::e5m2).max_finite_magnitude() == 0x7B);
static_assert(fmt(FormatId::f16).max_finite_magnitude() == 0x7BFF);
static_assert(fmt(FormatId::e8m0).max_finite_magnitude() == 0xFE);
static_assert(fmt(FormatId::int8).max_finite_magnitude() == 0x7F);
static_assert(fmt(FormatId::e2m1).max_finite_magnitude() == 0x7);
static_assert(fmt(FormatId::e8m0).emin() == -127 && fmt(FormatId::e4m3).emin() == -6);

}  // namespace softmx::detail
