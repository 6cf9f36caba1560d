// tools/cuda/mma/mma_catalog.cpp: see mma_catalog.hpp.
#include "mma_catalog.hpp"

#include <cstdio>

#include "tcgen05_layout.hpp"

namespace softmx::mma_capture {
namespace {

using vec::MmaScaleFormat;

constexpr Elem kElems[kElemCount] = {Elem::e4m3, Elem::e5m2, Elem::e3m2, Elem::e2m3, Elem::e2m1};

const char* kind_ptx(Kind k) {
  switch (k) {
    case Kind::fp8: return "";
    case Kind::f8f6f4: return "kind::f8f6f4";
    case Kind::mxf8f6f4: return "kind::mxf8f6f4";
    case Kind::mxf4: return "kind::mxf4";
    case Kind::mxf4nvf4: return "kind::mxf4nvf4";
  }
  return "?";
}
const char* kind_file(Kind k) {
  switch (k) {
    case Kind::fp8: return "fp8";
    case Kind::f8f6f4: return "f8f6f4";
    case Kind::mxf8f6f4: return "mxf8f6f4";
    case Kind::mxf4: return "mxf4";
    case Kind::mxf4nvf4: return "mxf4nvf4";
  }
  return "?";
}
const char* scale_ptx(ScaleType s) { return s == ScaleType::ue8m0 ? "ue8m0" : s == ScaleType::ue4m3 ? "ue4m3" : ""; }

bool fp8(Elem e) { return elem_bits(e) == 8; }

std::string hex32(std::uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08X", v);
  return b;
}

/// The PTX text of a form: the whole mma.sync opcode, or for tcgen05 the opcode with the shape,
/// types and instruction descriptor it runs with.
std::string instruction_text(const DeviceForm& d) {
  const std::string acc = d.f16 ? "f16" : "f32", a = elem_ptx(d.a), b = elem_ptx(d.b);
  const int k = kind_k(d.kind);
  const std::string sv = d.scale_vec ? ".block_scale.scale_vec::" + std::to_string(d.scale_vec) + "X" : "";
  if (d.engine == Engine::mma_sync) {
    const std::string shape = "mma.sync.aligned.m16n8k" + std::to_string(k) + ".row.col.";
    if (d.kind == Kind::fp8) return shape + acc + "." + a + "." + b + "." + acc;
    std::string s = shape + kind_ptx(d.kind) + sv + "." + acc + "." + a + "." + b + "." + acc;
    if (d.scale != ScaleType::none) s += std::string(".") + scale_ptx(d.scale);
    return s;
  }
  std::string s = std::string("tcgen05.mma.cta_group::1.") + kind_ptx(d.kind) + sv + " m128n8k" + std::to_string(k) + " A " + a +
                  " B " + b + " D " + acc;
  if (d.scale != ScaleType::none) s += std::string(" scales ") + scale_ptx(d.scale);
  s += std::string(", enable-input-d ") + (d.enable_c ? "true" : "false") + ", idesc " + hex32(tc05::instruction_descriptor(d)) +
       " (K-major, no swizzle)";
  return s;
}

MmaScaleFormat scale_format(ScaleType s) {
  return s == ScaleType::ue8m0 ? MmaScaleFormat::ue8m0 : s == ScaleType::ue4m3 ? MmaScaleFormat::ue4m3 : MmaScaleFormat::none;
}

CaptureForm make(const DeviceForm& d, bool addend, Feature needs, std::uint64_t count, std::string model) {
  CaptureForm f;
  f.dev = d;
  f.needs = needs;
  f.default_count = count;
  f.model = std::move(model);
  f.shape.a = format_of(d.a);
  f.shape.b = format_of(d.b);
  f.shape.acc = d.f16 ? FormatId::f16 : FormatId::f32;
  f.shape.k = kind_k(d.kind);
  f.shape.scale_format = scale_format(d.scale);
  f.shape.scale_block = d.scale_vec ? f.shape.k / d.scale_vec : 0;
  f.shape.addend = addend;
  f.instruction = instruction_text(d);
  const std::string tail = std::string("-") + (d.f16 ? "f16" : "f32") + (addend ? "-c" : "-noc") + ".vec";
  const std::string ab = std::string(elem_ptx(d.a)) + "-" + elem_ptx(d.b);
  if (d.engine == Engine::mma_sync && d.kind == Kind::fp8) {
    f.file = "mma-" + ab + tail;
  } else {
    f.file = std::string("mma-") + (d.engine == Engine::mma_sync ? "sync-" : "tcgen05-") + kind_file(d.kind) + "-" + ab;
    if (d.scale != ScaleType::none) f.file += std::string("-") + scale_ptx(d.scale) + "x" + std::to_string(f.shape.scale_block);
    f.file += tail;
  }
  return f;
}

std::vector<CaptureForm> build() {
  std::vector<CaptureForm> out;
  // The FP8 mma.sync forms of the first program, in its order.
  for (Elem a : {Elem::e4m3, Elem::e5m2})
    for (Elem b : {Elem::e4m3, Elem::e5m2})
      for (bool f16 : {false, true})
        for (bool addend : {true, false}) {
          DeviceForm d{Engine::mma_sync, Kind::fp8, a, b, f16, ScaleType::none, 0, true};
          out.push_back(make(d, addend, Feature::mma_fp8, kMainCount, ""));
        }
  auto count = [](Elem a, Elem b) { return a == b && elem_bits(a) != 6 ? kMainCount : kOtherCount; };
  // sm_120: mma.sync .kind::f8f6f4 and .kind::mxf8f6f4, every pair, f32, with C.
  for (Kind kind : {Kind::f8f6f4, Kind::mxf8f6f4})
    for (Elem a : kElems)
      for (Elem b : kElems) {
        const bool scaled = kind == Kind::mxf8f6f4;
        DeviceForm d{Engine::mma_sync, kind, a, b, false, scaled ? ScaleType::ue8m0 : ScaleType::none, scaled ? 1 : 0, true};
        out.push_back(make(d, true, Feature::mma_sm120, count(a, b), scaled ? "blackwell-mxf8f6f4" : "blackwell-f8f6f4"));
      }
  // sm_120: the m16n8k64 FP4 kinds.
  struct Fp4 {
    Kind kind;
    ScaleType scale;
    int vec;
    Feature needs;
    const char* model;
  };
  const Fp4 fp4[] = {{Kind::mxf4, ScaleType::ue8m0, 2, Feature::mma_sm120, "blackwell-mxf4"},
                     {Kind::mxf4nvf4, ScaleType::ue8m0, 2, Feature::mma_sm120, "blackwell-mxf4"},
                     {Kind::mxf4nvf4, ScaleType::ue4m3, 4, Feature::mma_sm120, "blackwell-nvf4"},
                     {Kind::mxf4nvf4, ScaleType::ue8m0, 4, Feature::mma_sm120_4x_ue8m0, "blackwell-mxf4"}};
  for (const Fp4& x : fp4) {
    DeviceForm d{Engine::mma_sync, x.kind, Elem::e2m1, Elem::e2m1, false, x.scale, x.vec, true};
    out.push_back(make(d, true, x.needs, kMainCount, x.model));
  }
  // tcgen05 .kind::f8f6f4: every pair with f32 and C; the FP8 pairs also with f16 and without C.
  for (Elem a : kElems)
    for (Elem b : kElems)
      for (bool f16 : {false, true})
        for (bool addend : {true, false}) {
          if ((f16 || !addend) && !(fp8(a) && fp8(b))) continue;
          DeviceForm d{Engine::tcgen05, Kind::f8f6f4, a, b, f16, ScaleType::none, 0, addend};
          out.push_back(make(d, addend, Feature::tcgen05, fp8(a) && fp8(b) ? kMainCount : count(a, b), "blackwell-f8f6f4"));
        }
  // tcgen05 .kind::mxf8f6f4 1X UE8M0: every pair with C; same-type pairs also without.
  for (Elem a : kElems)
    for (Elem b : kElems)
      for (bool addend : {true, false}) {
        if (!addend && a != b) continue;
        DeviceForm d{Engine::tcgen05, Kind::mxf8f6f4, a, b, false, ScaleType::ue8m0, 1, addend};
        out.push_back(make(d, addend, Feature::tcgen05, count(a, b), "blackwell-mxf8f6f4"));
      }
  // tcgen05 FP4 kinds (4X UE8M0 exists for tcgen05 in PTX ISA 8.6: the scale type is a field of
  // the instruction descriptor).
  for (const Fp4& x : fp4)
    for (bool addend : {true, false}) {
      DeviceForm d{Engine::tcgen05, x.kind, Elem::e2m1, Elem::e2m1, false, x.scale, x.vec, addend};
      out.push_back(make(d, addend, Feature::tcgen05, kMainCount, x.model));
    }
  return out;
}

}  // namespace

FormatId format_of(Elem e) {
  switch (e) {
    case Elem::e4m3: return FormatId::e4m3;
    case Elem::e5m2: return FormatId::e5m2;
    case Elem::e3m2: return FormatId::e3m2;
    case Elem::e2m3: return FormatId::e2m3;
    case Elem::e2m1: return FormatId::e2m1;
  }
  return FormatId::e4m3;
}

const std::vector<CaptureForm>& capture_forms() {
  static const std::vector<CaptureForm> forms = build();
  return forms;
}

std::string model_for(const CaptureForm& f, int major, int minor) {
  if (!f.model.empty()) return f.model;
  if (major == 8 && minor == 9) return "ada-fp8-mma";
  if (major == 12) return "blackwell-f8f6f4";
  return "hopper-fp8-mma";
}

std::optional<std::string> skip_reason(const CaptureForm& f, const DeviceStatus& d) {
  if (d.features & feature_bit(f.needs)) return std::nullopt;
  const std::string here = " (this GPU: compute capability " + std::to_string(d.major) + "." + std::to_string(d.minor) +
                           ", running code for " + d.target + ")";
  switch (f.needs) {
    case Feature::mma_fp8:
      return "mma.sync FP8 needs compute capability 8.9 or later and an sm_89+ build" + here;
    case Feature::mma_sm120:
      return "needs an sm_120-family GPU (compute capability 12.x: RTX 50, RTX PRO Blackwell, DGX Spark) and the sm_120f "
             "build; ptxas accepts these forms for sm_120f/120a/121a only" + here;
    case Feature::mma_sm120_4x_ue8m0:
      if (d.features & feature_bit(Feature::mma_sm120))
        return ".scale_vec::4X with .ue8m0 on mma.sync needs PTX ISA 9.1 (CUDA 13.1 or later); the capture program was "
               "built with CUDA " + std::to_string(d.nvcc_major) + "." + std::to_string(d.nvcc_minor);
      return "needs an sm_120-family GPU (compute capability 12.x) and a CUDA 13.1+ build (PTX ISA 9.1)" + here;
    case Feature::tcgen05:
      return "tcgen05.mma needs a Blackwell datacenter GPU (compute capability 10.0, 10.3 or 11.0: B200, GB200, B300, "
             "Thor) and its arch-specific build (sm_100a, sm_103a, sm_110a; ptxas refuses the block-scaled forms for "
             "the f-targets and tcgen05 altogether for sm_120)" + here;
  }
  return "unknown feature";
}

}  // namespace softmx::mma_capture
