// tools/cuda/capture_catalog.cpp: see capture_catalog.hpp.
#include "capture_catalog.hpp"

#include <stdexcept>

namespace softmx::capture {
namespace {

bool is_decode(const Call& c) { return c.api == Api::nv_decode || c.api == Api::ptx_decode_x2; }

// PTX type names: the destination and source of the x2/x4 forms.
std::string ptx_type(Fmt f, const char* lanes) {
  switch (f) {
    case Fmt::f32: return "f32";
    case Fmt::f16: return std::string("f16") + lanes;
    case Fmt::bf16: return std::string("bf16") + lanes;
    case Fmt::e8m0: return std::string("ue8m0") + lanes;
    default: return std::string(format(format_of(f)).name) + lanes;
  }
}

// The header functions' source spellings.
const char* nv_source(Fmt f) { return f == Fmt::f32 ? "float" : f == Fmt::f16 ? "halfraw" : "bfloat16raw"; }

const char* nv_mode(Mode m) {
  return m == Mode::rz ? "cudaRoundZero" : m == Mode::rp ? "cudaRoundPosInf" : "cudaRoundNearest";
}

std::string upper(std::string s) {
  for (char& ch : s)
    if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
  return s;
}

}  // namespace

FormatId format_of(Fmt f) {
  switch (f) {
    case Fmt::f32: return FormatId::f32;
    case Fmt::f16: return FormatId::f16;
    case Fmt::bf16: return FormatId::bf16;
    case Fmt::e4m3: return FormatId::e4m3;
    case Fmt::e5m2: return FormatId::e5m2;
    case Fmt::e3m2: return FormatId::e3m2;
    case Fmt::e2m3: return FormatId::e2m3;
    case Fmt::e2m1: return FormatId::e2m1;
    case Fmt::e8m0: return FormatId::e8m0;
  }
  throw std::logic_error("format_of: unknown Fmt");
}

Rounding rounding_of(Mode m) {
  switch (m) {
    case Mode::rn: return Rounding::rne;
    case Mode::rz: return Rounding::rz;
    case Mode::rp: return Rounding::ru;
    case Mode::rs: return Rounding::rs;
  }
  throw std::logic_error("rounding_of: unknown Mode");
}

Saturation saturation_of(const Call& c) {
  return (!is_decode(c) && c.satfinite) ? Saturation::finite : Saturation::none;
}

bool is_instruction(const Call& c) { return c.api != Api::nv_encode && c.api != Api::nv_decode; }

std::pair<std::string, std::string> call_text(const Call& c) {
  const std::string sat = c.satfinite ? ".satfinite" : "";
  switch (c.api) {
    case Api::ptx_encode_x2: {
      const std::string mode = c.mode == Mode::rz ? "rz" : c.mode == Mode::rp ? "rp" : "rn";
      return {"x-instruction", "cvt." + mode + sat + "." + ptx_type(c.to, "x2") + "." + ptx_type(c.from, "x2")};
    }
    case Api::ptx_decode_x2: return {"x-instruction", "cvt.rn.f16x2." + ptx_type(c.from, "x2")};
    case Api::ptx_rs_x4: return {"x-instruction", "cvt.rs" + sat + "." + ptx_type(c.to, "x4") + ".f32"};
    case Api::nv_decode: {
      if (c.from == Fmt::e8m0) return {"x-function", "__nv_cvt_e8m0_to_bf16raw(x)"};
      const std::string fam = (c.from == Fmt::e4m3 || c.from == Fmt::e5m2) ? "fp8"
                              : c.from == Fmt::e2m1                       ? "fp4"
                                                                          : "fp6";
      return {"x-function",
              "__nv_cvt_" + fam + "_to_halfraw(x, __NV_" + upper(std::string(format(format_of(c.from)).name)) + ")"};
    }
    case Api::nv_encode: break;
  }
  const std::string src = nv_source(c.from);
  const std::string dst_name = upper(std::string(format(format_of(c.to)).name));
  const std::string satarg = c.satfinite ? "__NV_SATFINITE" : "__NV_NOSAT";
  switch (c.to) {
    case Fmt::e4m3:
    case Fmt::e5m2: return {"x-function", "__nv_cvt_" + src + "_to_fp8(x, " + satarg + ", __NV_" + dst_name + ")"};
    case Fmt::e3m2:
    case Fmt::e2m3:
      return {"x-function", "__nv_cvt_" + src + "_to_fp6(x, __NV_" + dst_name + ", " + nv_mode(c.mode) + ")"};
    case Fmt::e2m1: return {"x-function", "__nv_cvt_" + src + "_to_fp4(x, __NV_E2M1, " + std::string(nv_mode(c.mode)) + ")"};
    default: return {"x-function", "__nv_cvt_" + src + "_to_e8m0(x, " + satarg + ", " + nv_mode(c.mode) + ")"};
  }
}

std::string file_name(const Call& c) {
  std::string n = is_instruction(c) ? "ptx-" : "fn-";
  n += std::string(format(format_of(c.from)).name) + "-" + std::string(format(format_of(c.to)).name) + "-" +
       std::string(name(rounding_of(c.mode)));
  if (!is_decode(c)) n += c.satfinite ? "-satfinite" : "-nosat";
  return n + ".vec";
}

}  // namespace softmx::capture
