// tools/cuda/capture_catalog.hpp: what each capture_calls.hpp Call means in softmx's terms.
//
// For every Call: the conversion softmx performs to reproduce it (source, destination, rounding,
// saturation), the text of the x-instruction / x-function header key, and the table's file name.
// All of it is derived from the Call's fields, never listed per capture.
#pragma once

#include <string>
#include <utility>

#include "capture_calls.hpp"
#include "softmx/context.hpp"
#include "softmx/format.hpp"

namespace softmx::capture {

/// softmx's format for a capture format.
FormatId format_of(Fmt f);

/// The softmx rounding of a capture mode: rn -> rne, rz -> rz, rp -> ru, rs -> rs.
Rounding rounding_of(Mode m);

/// The softmx saturation that reproduces the call: satfinite -> finite; no .satfinite /
/// __NV_NOSAT -> none. Decodes are exact or overflow only to Inf, and are written with none.
Saturation saturation_of(const Call& c);

/// True for the PTX forms (written with x-instruction), false for the header functions
/// (x-function).
bool is_instruction(const Call& c);

/// The header key and its text: {"x-instruction", "cvt.rn.satfinite.e4m3x2.f32"} or
/// {"x-function", "__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3)"}. The PTX text names the
/// instruction as written in the program (both lanes get the input).
std::pair<std::string, std::string> call_text(const Call& c);

/// The table's file name: "{ptx|fn}-FROM-TO-ROUNDING[-satfinite|-nosat].vec" with softmx's format
/// and rounding names ("ptx-f32-e4m3-rne-satfinite.vec", "fn-e4m3-f16-rne.vec" for a decode).
/// Distinct for distinct catalogue entries (the tests check it).
std::string file_name(const Call& c);

}  // namespace softmx::capture
