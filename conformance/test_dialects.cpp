// conformance/test_dialects.cpp: the cases that tell the dialects apart, pinned by hand.
//
// Every expectation comes from reading the implementation's source (docs/research/
// block-dialects.md, "Distinguishing test cases"); none is computed by softmx. Blocks are 32
// f32 values: the listed ones first, then +0.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/convert.hpp"

namespace softmx {
namespace {

const Dialect& D(const char* name) { return *find_dialect(name); }

struct Q {
  std::uint8_t scale;
  std::vector<std::uint8_t> codes;
  friend bool operator==(const Q&, const Q&) = default;
};

std::ostream& operator<<(std::ostream& o, const Q& q) {
  o << "scale 0x" << std::hex << int(q.scale) << " codes";
  for (auto c : q.codes) o << " 0x" << int(c);
  return o << std::dec;
}

// Quantizes [values..., 0, 0, ...] (32 values) and returns the scale and the first n codes.
Q quantize(const char* dialect, FormatId elem, std::vector<float> values, std::optional<ScaleRule> rule = {}) {
  std::vector<std::uint32_t> in(32, 0);
  for (std::size_t i = 0; i < values.size(); ++i) in[i] = std::bit_cast<std::uint32_t>(values[i]);
  BlockOptions o;
  o.element = elem;
  o.dialect = &D(dialect);
  o.rule = rule;
  const QuantizedBlock b = quantize_block(FormatId::f32, in.data(), in.size(), o);
  return {static_cast<std::uint8_t>(b.scale), std::vector<std::uint8_t>(b.codes.begin(), b.codes.begin() + static_cast<long>(values.size()))};
}

float f32(std::uint32_t bits) { return std::bit_cast<float>(bits); }
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// 1. [957] in E4M3 (microxcaling issue 4): the floor rule saturates 478.5 to 448 (896);
//    the round-up rules pick X = 4 and keep 960.
TEST(Dialects, Case1_957InAnE4m3Block) {
  for (const char* d : {"ocp", "microxcaling", "gfloat", "torchao"}) EXPECT_EQ(quantize(d, FormatId::e4m3, {957}), (Q{0x80, {0x7E}})) << d;
  EXPECT_EQ(quantize("torchao", FormatId::e4m3, {957}, ScaleRule::even), (Q{0x80, {0x7E}}));
  EXPECT_EQ(quantize("torchao", FormatId::e4m3, {957}, ScaleRule::ceil), (Q{0x81, {0x77}}));
  EXPECT_EQ(quantize("torchao", FormatId::e4m3, {957}, ScaleRule::rceil), (Q{0x81, {0x77}}));
  EXPECT_EQ(quantize("transformer-engine", FormatId::e4m3, {957}), (Q{0x81, {0x77}}));
  EXPECT_EQ(quantize("cuda", FormatId::e4m3, {957}), (Q{0x81, {0x77}}));
}

// 2. All zero: 0x00 everywhere; -0 elements keep their sign.
TEST(Dialects, Case2_AllZeroBlock) {
  for (const char* d : {"ocp", "microxcaling", "gfloat", "torchao", "transformer-engine", "cuda"})
    EXPECT_EQ(quantize(d, FormatId::e4m3, {0.0f, -0.0f}), (Q{0x00, {0x00, 0x80}})) << d;
  EXPECT_EQ(quantize("microxcaling", FormatId::int8, {0.0f}), (Q{0x00, {0x00}}));  // the CUDA path (Python: 0x01)
}

// 3. [NaN, 1.0].
TEST(Dialects, Case3_NanInTheBlock) {
  EXPECT_EQ(quantize("torchao", FormatId::e4m3, {kNaN, 1.0f}), (Q{0xFF, {0x7F, 0x7F}}));
  EXPECT_EQ(quantize("gfloat", FormatId::e4m3, {kNaN, 1.0f}), (Q{0xFF, {0xFF, 0xFF}}));
  // TransformerEngine's amax ignores NaN: 1.0 * RN(1/448) rounds up to 2^-8.
  EXPECT_EQ(quantize("transformer-engine", FormatId::e4m3, {kNaN, 1.0f}), (Q{0x77, {0x7F, 0x78}}));
  EXPECT_EQ(quantize("microxcaling", FormatId::e4m3, {kNaN, 1.0f}).scale, 0xFF);
  EXPECT_EQ(quantize("ocp", FormatId::e4m3, {kNaN, 1.0f}), (Q{0xFF, {0x00, 0x00}}));
}

// 4. [+Inf, 1.0].
TEST(Dialects, Case4_InfInTheBlock) {
  EXPECT_EQ(quantize("torchao", FormatId::e4m3, {kInf, 1.0f}), (Q{0xFF, {0x7F, 0x7F}}));
  EXPECT_EQ(quantize("gfloat", FormatId::e4m3, {kInf, 1.0f}), (Q{0xFE, {0x7E, 0x00}}));
  // TransformerEngine (float_to_e8m0, ptx_arch_spec.cuh:89-91): 0xFE. Its multiplier is now 2^-127
  // (exp2f_rcp<float>, ptx.cuh:314): Inf stays Inf and satfinite gives 0x7E, 1.0 * 2^-127 gives 0.
  // Before PR 2647 it was +0.0: Inf * 0 = NaN (0x7F) (transformer-engine-recipes.md section 3 case 4).
  EXPECT_EQ(quantize("transformer-engine", FormatId::e4m3, {kInf, 1.0f}), (Q{0xFE, {0x7E, 0x00}}));
  EXPECT_EQ(quantize("transformer-engine-2025", FormatId::e4m3, {kInf, 1.0f}), (Q{0xFE, {0x7F, 0x00}}));
  EXPECT_EQ(quantize("microxcaling", FormatId::e4m3, {kInf, 1.0f}).scale, 0xFF);
  EXPECT_EQ(quantize("ocp", FormatId::e4m3, {kInf, 1.0f}).scale, 0xFF);
}

// 5. [2^-130] (f32 0x00080000) and [2^-128] (0x00200000; the research notes label this
//    pattern 2^-130, but it is 2^-128): the exact dialects keep 2^-3 (0x20) and 2^-1 (0x30)
//    times 2^-127. TransformerEngine since PR 2647 multiplies a 0x00 block by 2^127
//    (exp2f_rcp<float>, ptx.cuh:316) and agrees; before it (transformer-engine-2025) the
//    multiplier was 1.0, which flushes the block to zero.
TEST(Dialects, Case5_TinyBlock) {
  for (const char* d : {"ocp", "microxcaling", "gfloat", "torchao"}) {
    EXPECT_EQ(quantize(d, FormatId::e4m3, {f32(0x00080000)}), (Q{0x00, {0x20}})) << d;
    EXPECT_EQ(quantize(d, FormatId::e4m3, {f32(0x00200000)}), (Q{0x00, {0x30}})) << d;
  }
  EXPECT_EQ(quantize("torchao", FormatId::e4m3, {f32(0x00080000)}, ScaleRule::rceil), (Q{0x00, {0x20}}));
  EXPECT_EQ(quantize("transformer-engine", FormatId::e4m3, {f32(0x00080000)}), (Q{0x00, {0x20}}));
  EXPECT_EQ(quantize("transformer-engine", FormatId::e4m3, {f32(0x00200000)}), (Q{0x00, {0x30}}));
  EXPECT_EQ(quantize("transformer-engine-2025", FormatId::e4m3, {f32(0x00080000)}), (Q{0x00, {0x00}}));
  EXPECT_EQ(quantize("transformer-engine-2025", FormatId::e4m3, {f32(0x00200000)}), (Q{0x00, {0x00}}));
}

// 6. [7.9999995]: exact floor keeps the binade (7.0 saturated); the round-up rules move up.
TEST(Dialects, Case6_JustBelowAPowerOfTwo) {
  for (const char* d : {"ocp", "microxcaling", "gfloat", "torchao"})
    EXPECT_EQ(quantize(d, FormatId::e4m3, {f32(0x40FFFFFF)}), (Q{0x79, {0x7E}})) << d;
  for (ScaleRule r : {ScaleRule::even, ScaleRule::ceil, ScaleRule::rceil})
    EXPECT_EQ(quantize("torchao", FormatId::e4m3, {f32(0x40FFFFFF)}, r), (Q{0x7A, {0x78}})) << name(r);
  EXPECT_EQ(quantize("transformer-engine", FormatId::e4m3, {f32(0x40FFFFFF)}), (Q{0x7A, {0x78}}));
}

// 7. [1.96875 * 2^127]: torchao EVEN rounds the f32 amax past 2^128 to Inf: the scale is NaN.
TEST(Dialects, Case7_NearFloatMax) {
  EXPECT_EQ(quantize("ocp", FormatId::e4m3, {f32(0x7F7C0000)}), (Q{0xF6, {0x7E}}));
  EXPECT_EQ(quantize("gfloat", FormatId::e4m3, {f32(0x7F7C0000)}), (Q{0xF6, {0x7E}}));
  EXPECT_EQ(quantize("torchao", FormatId::e4m3, {f32(0x7F7C0000)}, ScaleRule::ceil), (Q{0xF7, {0x78}}));
  EXPECT_EQ(quantize("torchao", FormatId::e4m3, {f32(0x7F7C0000)}, ScaleRule::rceil), (Q{0xF7, {0x78}}));
  EXPECT_EQ(quantize("transformer-engine", FormatId::e4m3, {f32(0x7F7C0000)}), (Q{0xF7, {0x78}}));
  EXPECT_EQ(quantize("torchao", FormatId::e4m3, {f32(0x7F7C0000)}, ScaleRule::even).scale, 0xFF);
}

// 8. Ties: RNE dialects 2.5 -> 2.0 in E2M1, microxcaling's default "nearest" ties away -> 3.0.
TEST(Dialects, Case8_ElementTies) {
  for (const char* d : {"ocp", "gfloat", "torchao", "cuda"})
    EXPECT_EQ(quantize(d, FormatId::e2m1, {4.0f, 2.5f}), (Q{0x7F, {0x6, 0x4}})) << d;
  EXPECT_EQ(quantize("microxcaling", FormatId::e2m1, {4.0f, 2.5f}), (Q{0x7F, {0x6, 0x5}}));
  EXPECT_EQ(quantize("ocp", FormatId::e4m3, {256.0f, 1.0625f}), (Q{0x7F, {0x78, 0x38}}));
  EXPECT_EQ(quantize("microxcaling", FormatId::e4m3, {256.0f, 1.0625f}), (Q{0x7F, {0x78, 0x39}}));
}

// 10. NaN in an E2M1 block: torchao's cast turns the x86 NaN into 1.5; gfloat raises.
TEST(Dialects, Case10_NanInAnFp4Block) {
  EXPECT_EQ(quantize("torchao", FormatId::e2m1, {kNaN, 1.0f}), (Q{0xFF, {0x3, 0x3}}));
  EXPECT_THROW(quantize("gfloat", FormatId::e2m1, {kNaN, 1.0f}), std::invalid_argument);
  EXPECT_EQ(quantize("ocp", FormatId::e2m1, {kNaN, 1.0f}), (Q{0xFF, {0x0, 0x0}}));
  // Element casts alone: ml_dtypes +NaN -> the -0 code, -NaN -> +0; CUDA +MAXNORM.
  EXPECT_EQ(convert(FormatId::f32, FormatId::e2m1, 0x7FC00000, Context{}, D("ml_dtypes")).code, 0x8u);
  EXPECT_EQ(convert(FormatId::f32, FormatId::e2m1, 0xFFC00000, Context{}, D("ml_dtypes")).code, 0x0u);
  EXPECT_EQ(convert(FormatId::f32, FormatId::e2m1, 0xFFC00000, Context{}, D("cuda")).code, 0x7u);
  EXPECT_EQ(convert(FormatId::f32, FormatId::e2m1, 0xFFC00000, Context{}, D("torchao")).code, 0xBu);  // -1.5
}

// 11. MXINT8 and -2: gfloat produces 0x80, microxcaling saturates to 0x81.
TEST(Dialects, Case11_Mxint8MinusTwo) {
  EXPECT_EQ(quantize("ocp", FormatId::int8, {-2.0f}), (Q{0x80, {0xC0}}));
  EXPECT_EQ(quantize("gfloat", FormatId::int8, {-2.0f}), (Q{0x80, {0xC0}}));
  EXPECT_EQ(quantize("gfloat", FormatId::int8, {-1.99609375f}), (Q{0x7F, {0x80}}));
  EXPECT_EQ(quantize("microxcaling", FormatId::int8, {-1.99609375f}), (Q{0x7F, {0x81}}));
  EXPECT_EQ(quantize("ocp", FormatId::int8, {-1.99609375f}), (Q{0x7F, {0x81}}));
  EXPECT_EQ(quantize("gfloat", FormatId::int8, {1.99609375f}), (Q{0x7F, {0x7F}}));
}

// 12. Converting a float into E8M0.
TEST(Dialects, Case12_E8m0Conversion) {
  auto e8 = [](const char* d, double x, Rounding r = Rounding::rne, Saturation s = Saturation::finite) {
    Context c;
    c.rounding = r;
    c.saturation = s;
    return convert(FormatId::f64, FormatId::e8m0, std::bit_cast<std::uint64_t>(x), c, D(d)).code;
  };
  const double inf = std::numeric_limits<double>::infinity();
  // ml_dtypes and PyTorch (torchao) round every tie up; gfloat (and ocp) to the even code.
  EXPECT_EQ(e8("ml_dtypes", 3.0, Rounding::rne, Saturation::none), 0x81u);
  EXPECT_EQ(e8("torchao", 3.0, Rounding::rne, Saturation::none), 0x81u);
  EXPECT_EQ(e8("gfloat", 3.0), 0x80u);
  EXPECT_EQ(e8("ocp", 3.0), 0x80u);
  EXPECT_EQ(e8("ml_dtypes", 6.0, Rounding::rne, Saturation::none), 0x82u);
  EXPECT_EQ(e8("gfloat", 6.0), 0x82u);
  EXPECT_EQ(e8("transformer-engine", 1.4, Rounding::ru), 0x80u);
  EXPECT_EQ(e8("cuda", 6.0, Rounding::rz), 0x81u);
  // 1.25 * 2^-127 (an f32 subnormal): the ties-up casts give 0x01, the exact ones 0x00.
  EXPECT_EQ(e8("ml_dtypes", 0x1.4p-127, Rounding::rne, Saturation::none), 0x01u);
  EXPECT_EQ(e8("torchao", 0x1.4p-127, Rounding::rne, Saturation::none), 0x01u);
  EXPECT_EQ(e8("gfloat", 0x1.4p-127), 0x00u);
  // Zero: ml_dtypes and gfloat NaN; PyTorch, TE, CUDA 0x00.
  EXPECT_EQ(e8("ml_dtypes", 0.0, Rounding::rne, Saturation::none), 0xFFu);
  EXPECT_EQ(e8("gfloat", 0.0), 0xFFu);
  EXPECT_EQ(e8("torchao", 0.0, Rounding::rne, Saturation::none), 0x00u);
  EXPECT_EQ(e8("transformer-engine", 0.0, Rounding::ru), 0x00u);
  // Negative: ml_dtypes NaN; PyTorch and TE drop the sign.
  EXPECT_EQ(e8("ml_dtypes", -3.0, Rounding::rne, Saturation::none), 0xFFu);
  EXPECT_EQ(e8("torchao", -3.0, Rounding::rne, Saturation::none), 0x81u);
  EXPECT_EQ(e8("transformer-engine", -3.0, Rounding::ru), 0x81u);
  // 1.5 * 2^127: ties up overflow to NaN; gfloat's even code is 0xFE; cvt.rp.satfinite 0xFE.
  EXPECT_EQ(e8("ml_dtypes", 0x1.8p127, Rounding::rne, Saturation::none), 0xFFu);
  EXPECT_EQ(e8("torchao", 0x1.8p127, Rounding::rne, Saturation::none), 0xFFu);
  EXPECT_EQ(e8("gfloat", 0x1.8p127), 0xFEu);
  EXPECT_EQ(e8("transformer-engine", 0x1.8p127, Rounding::ru), 0xFEu);
  // Inf.
  EXPECT_EQ(e8("ml_dtypes", inf, Rounding::rne, Saturation::none), 0xFFu);
  EXPECT_EQ(e8("transformer-engine", inf, Rounding::ru), 0xFEu);
}

// Element casts that distinguish ml_dtypes: non-saturating E4M3 (465 -> NaN) by default.
TEST(Dialects, MlDtypesElementCasts) {
  const Dialect& m = D("ml_dtypes");
  const DestinationSupport& s = m.support[static_cast<int>(FormatId::e4m3)];
  EXPECT_EQ(s.default_saturation, Saturation::none);
  Context none;
  none.saturation = Saturation::none;
  EXPECT_EQ(convert(FormatId::f64, FormatId::e4m3, std::bit_cast<std::uint64_t>(465.0), none, m).code, 0x7Fu);
  EXPECT_EQ(convert(FormatId::f64, FormatId::e4m3, std::bit_cast<std::uint64_t>(464.0), none, m).code, 0x7Eu);
  EXPECT_THROW(quantize("ml_dtypes", FormatId::e4m3, {1.0f}), std::invalid_argument);
}

// TransformerEngine's dequantization, static_cast<OType>(ptx::exp2f(biased) * float(x))
// (dequantize_mxfp8.cuh:176,188). Since PR 3262 (ptx.cuh:335-341): 0x00 is 2^-127 and 0xFF NaN.
// Before it (transformer-engine-2025): the f32 bits S << 23, so 0x00 is 0.0 and 0xFF +Inf.
TEST(Dialects, TransformerEngineDequantizeQuirks) {
  const Dialect& te = D("transformer-engine");
  const Dialect& old = D("transformer-engine-2025");
  Context c;
  c.saturation = Saturation::none;
  // e4m3 0x38 = 1.0; 0x20 = 2^-3.
  EXPECT_EQ(dequantize_element(FormatId::e4m3, 0x00, 0x38, FormatId::f32, c, te).code, 0x00400000u);
  EXPECT_EQ(dequantize_element(FormatId::e4m3, 0x00, 0x20, FormatId::f32, c, te).code, 0x00080000u);
  EXPECT_EQ(dequantize_element(FormatId::e4m3, 0xFF, 0x38, FormatId::f32, c, te).code, 0x7FFFFFFFu);
  EXPECT_EQ(dequantize_element(FormatId::e4m3, 0xFF, 0x00, FormatId::f32, c, te).code, 0x7FFFFFFFu);
  EXPECT_EQ(dequantize_element(FormatId::e4m3, 0x77, 0x38, FormatId::f32, c, te).code, 0x3B800000u);  // 2^-8
  EXPECT_EQ(dequantize_element(FormatId::e4m3, 0x00, 0x38, FormatId::f32, c, old).code, 0x00000000u);
  EXPECT_EQ(dequantize_element(FormatId::e4m3, 0xFF, 0x38, FormatId::f32, c, old).code, 0x7F800000u);
  // Inf * 0 on the GPU gives its canonical NaN 0x7FFFFFFF.
  EXPECT_EQ(dequantize_element(FormatId::e4m3, 0xFF, 0x00, FormatId::f32, c, old).code, 0x7FFFFFFFu);
  EXPECT_EQ(dequantize_element(FormatId::e4m3, 0x00, 0x38, FormatId::f32, c).code, 0x00400000u);  // ocp: 2^-127
  EXPECT_EQ(dequantize_element(FormatId::e4m3, 0xFF, 0x38, FormatId::f32, c).code, 0x7FC00000u);  // ocp: NaN
}

// Which dialects quantize which element formats.
TEST(Dialects, SupportTables) {
  EXPECT_THROW(quantize("torchao", FormatId::int8, {1.0f}), std::invalid_argument);
  EXPECT_THROW(quantize("transformer-engine", FormatId::e2m3, {1.0f}), std::invalid_argument);
  EXPECT_THROW(quantize("cuda", FormatId::int8, {1.0f}), std::invalid_argument);
  EXPECT_NO_THROW(quantize("gfloat", FormatId::int8, {1.0f}));
  EXPECT_NO_THROW(quantize("microxcaling", FormatId::e3m2, {1.0f}));
}

// cuda-sm90 and cuda-sm100: the GPUs' results where the documentation is silent are decided as
// docs/DIALECTS.md says (unverified until a capture: tools/cuda/), and the modes each offers.
TEST(Dialects, CudaDeviceDialects) {
  for (const char* d : {"cuda-sm90", "cuda-sm100"}) {
    Context c;
    // cvt.rn.satfinite.e4m3x2.f32 / .e5m2x2 on NaN, either sign: the positive all-ones NaN.
    EXPECT_EQ(convert(FormatId::f32, FormatId::e4m3, 0xFFC00000, c, D(d)).code, 0x7Fu) << d;
    EXPECT_EQ(convert(FormatId::f32, FormatId::e5m2, 0xFF800001, c, D(d)).code, 0x7Fu) << d;
    EXPECT_EQ(convert(FormatId::f16, FormatId::e4m3, 0xFE00, c, D(d)).code, 0x7Fu) << d;
    // satfinite: overflow and Inf give max finite with the sign.
    EXPECT_EQ(convert(FormatId::f32, FormatId::e4m3, 0xFF800000, c, D(d)).code, 0xFEu) << d;
    // cvt.rn.f16x2.e4m3x2 on NaN: 0x7FFF, the sign dropped; e5m2 too.
    Context none;
    none.saturation = Saturation::none;
    EXPECT_EQ(convert(FormatId::e4m3, FormatId::f16, 0xFF, none, D(d)).code, 0x7FFFu) << d;
    EXPECT_EQ(convert(FormatId::e5m2, FormatId::f16, 0xFD, none, D(d)).code, 0x7FFFu) << d;
    // ue8m0: zero gives 0x00, the sign is dropped (-3: 0x80 rz, 0x81 rp); NaN 0xFF.
    Context rz, ru;
    rz.rounding = Rounding::rz;
    ru.rounding = Rounding::ru;
    EXPECT_EQ(convert(FormatId::f32, FormatId::e8m0, 0x00000000, rz, D(d)).code, 0x00u) << d;
    EXPECT_EQ(convert(FormatId::f32, FormatId::e8m0, 0xC0400000, rz, D(d)).code, 0x80u) << d;
    EXPECT_EQ(convert(FormatId::f32, FormatId::e8m0, 0xC0400000, ru, D(d)).code, 0x81u) << d;
    EXPECT_EQ(convert(FormatId::bf16, FormatId::e8m0, 0x7FC0, ru, D(d)).code, 0xFFu) << d;
    // FP6/FP4 NaN: positive MAXNORM.
    EXPECT_EQ(convert(FormatId::f32, FormatId::e2m1, 0xFFC00000, c, D(d)).code, 0x7u) << d;
    // No MXINT8; no rne into E8M0.
    EXPECT_TRUE(unsupported_reason(D(d), FormatId::int8, c).has_value()) << d;
    EXPECT_TRUE(unsupported_reason(D(d), FormatId::e8m0, c).has_value()) << d;
  }
  // cvt.rs exists on sm_100a/sm_103a only.
  Context rs;
  rs.rounding = Rounding::rs;
  for (FormatId f : {FormatId::e4m3, FormatId::e5m2, FormatId::e3m2, FormatId::e2m3, FormatId::e2m1}) {
    EXPECT_FALSE(unsupported_reason(D("cuda-sm100"), f, rs).has_value()) << format(f).name;
    EXPECT_TRUE(unsupported_reason(D("cuda-sm90"), f, rs).has_value()) << format(f).name;
    EXPECT_TRUE(unsupported_reason(D("cuda"), f, rs).has_value()) << format(f).name;
  }
  EXPECT_TRUE(unsupported_reason(D("cuda-sm100"), FormatId::e8m0, rs).has_value());
  // rs with R = 2^31 (half an ulp): 1 + 2^-4 (a tie in e4m3) rounds away; R = 2^31 - 1 does not.
  rs.rbits_width = 32;
  rs.rbits = 0x80000000u;
  EXPECT_EQ(convert(FormatId::f32, FormatId::e4m3, 0x3F880000, rs, D("cuda-sm100")).code, 0x39u);
  rs.rbits = 0x7FFFFFFFu;
  EXPECT_EQ(convert(FormatId::f32, FormatId::e4m3, 0x3F880000, rs, D("cuda-sm100")).code, 0x38u);
}

}  // namespace
}  // namespace softmx
