// softmx/lut_argmin.hpp: the MX-FP4 GEMM golden generator of seed 003 (the `lut-argmin`
// dialect and the `gemm-golden --layout lut-argmin` files), bit for bit.
//
// The generator is a PyTorch script (../shared/seeds/003_1cfc0588c37cecb0.txt; "L n" is its line
// n). docs/research/lut-argmin-golden.md derives every rule below from it; docs/DIALECTS.md has
// the policy table. All values are f32 bit patterns (std::uint32_t), as the script's tensors are
// f32; matrices are row-major.
//
//   LutGemmOptions o{.m = 2, .n = 2, .k = 64};
//   LutGemmFiles f = lut_argmin_gemm_golden(a_f32, b_f32, o);   // a: m x k, b: k x n
//   // f.a_8, f.b_8, f.a_scale, f.b_scale: data/input/*.bin; f.expected: data/golden/expected_data.bin
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "softmx/flags.hpp"

namespace softmx {

/// The generator's two FP4 tables (L10-27). E2M1's table is the OCP E2M1 code table (index =
/// code); E1M2 (exp_bits 1, mantissa_bits 2, bias 1, no specials, max 1.75) is the OCP-convention
/// 4-bit format that softmx's format table does not (yet) have, so it lives here as its table.
enum class LutFormat : std::uint8_t { e2m1, e1m2 };

struct LutFormatInfo {
  LutFormat id;
  std::string_view name;             ///< "e2m1", "e1m2"
  int emax;                          ///< L15, L23: 2 and 0
  std::uint32_t max_bits;            ///< f32 bits of max_value (L16, L24): 6.0, 1.75
  std::array<std::uint32_t, 16> table;  ///< f32 bits of _build_fp4_lut (L28-48); index 8 is -0.0
};

const LutFormatInfo& lut_format(LutFormat f);
/// "e2m1" or "e1m2" (case-insensitive; also "fp4", "fp4e2m1"), else nullopt.
std::optional<LutFormat> parse_lut_format(std::string_view name);

/// How the scale's floor(log2(amax)) is computed (L84; research section 4).
enum class Log2Model : std::uint8_t {
  /// floor of the correctly rounded f32 log2 (glibc log2f and NumPy's float32 log2 measured so):
  /// the 4148 f32 amax values just below a power of two 2^k (k = -39..128) whose log2 rounds to k
  /// get exponent k, one binade more than the exact floor. The default.
  correctly_rounded_f32,
  exact,  ///< floor(log2 amax) of the exact value (ilogb)
};

/// The table index L57-59 chooses for the f32 value `x`: clamp(x, -max, max), then the first
/// index with the least |clamped - table[i]|. Computed with exact distances (they decide the same
/// as the script's f32 distances: research section 3). NaN gives 0 (every distance NaN; PyTorch's
/// argmin keeps the first NaN). So: nearest, ties toward zero, saturating, zero results +0.
/// For E2M1 this is the core's conversion f32 -> e2m1 under the lut-argmin dialect; for E1M2 the
/// table argmin itself.
std::uint8_t lut_argmin_index(LutFormat f, std::uint32_t x);

/// One block's scale (L83-87, L118) from its amax (f32 bits of max |x|; NaN if any element is NaN).
struct LutScale {
  bool nan = false;        ///< amax NaN: scale NaN
  int exp = 0;             ///< the clamped exponent (L86); meaningless when nan
  std::uint32_t scale = 0; ///< f32 bits of pow(2, exp) (L87): exact; NaN 0x7FC00000
  std::uint8_t e8m0 = 0;   ///< scale.to(float8_e8m0fnu) (L118): exp + 127; NaN 0xFF
};
/// exp = floor(log2(max(amax, f32(1e-12)))) - emax; 0 when amax < f32(1e-12) = 0x2B8CBCCC (L85);
/// clamped to [-128, 127] (L86; +Inf gives 127). See Log2Model.
LutScale lut_argmin_scale(LutFormat f, std::uint32_t amax, Log2Model log2 = Log2Model::correctly_rounded_f32);

/// What _quantize(matrix, fmt, axis) returns (L73-110), for axis 1 (blocks of 32 along each row)
/// or axis 0 (along each column).
struct LutQuantized {
  std::size_t rows = 0, cols = 0;
  std::size_t nb = 0;                  ///< blocks per row (axis 1) or column (axis 0): ceil(extent / 32)
  std::vector<std::uint8_t> index;     ///< rows x cols table indices
  std::vector<std::uint32_t> dequantized;  ///< rows x cols f32: table[index] * scale (L90), rounded to f32
  /// E8M0 codes, padded to an even count with 0x7F (L96-100): axis 1: rows x nb_even; axis 0:
  /// nb_even x cols.
  std::vector<std::uint8_t> scales;
};
/// Throws std::invalid_argument if matrix.size() != rows * cols or axis is not 0 or 1.
LutQuantized lut_argmin_quantize(LutFormat f, std::span<const std::uint32_t> matrix, std::size_t rows, std::size_t cols,
                                 int axis, Log2Model log2 = Log2Model::correctly_rounded_f32);

/// _pack_fp4_nibbles (L62-72): each row of `index` (rows x cols) padded to an even count with
/// index 0, byte j = index[2j] | index[2j + 1] << 4 (low nibble first); rows one after another.
std::vector<std::uint8_t> pack_fp4_nibbles(std::span<const std::uint8_t> index, std::size_t rows, std::size_t cols);

/// The seed's f32 matmul (L158) is a BLAS sgemm whose summation order (blocking, FMA, threads)
/// is the BLAS's: the script's own expected_data.bin is not a function of its inputs alone. These
/// are the models softmx computes.
enum class LutGemmModel : std::uint8_t {
  exact,           ///< sum_k a_ik * b_kj exactly, rounded once to f32 (rne, overflow to Inf)
  f32_sequential,  ///< s = +0; for k in order: s = RN_f32(s + RN_f32(a_ik * b_kj)) (no FMA)
};

struct LutGemmOptions {
  std::size_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;  ///< the script's flags (only 1 means transposed: L114, L144)
  LutFormat a = LutFormat::e2m1, b = LutFormat::e2m1;  ///< the script uses E2M1 for both (L140-141)
  Log2Model log2 = Log2Model::correctly_rounded_f32;
};

/// The script's files for one GEMM, byte for byte (L140-160; research sections 5-6), and the
/// two golden models.
struct LutGemmFiles {
  std::vector<std::uint8_t> a_8;      ///< data/input/a_8.bin: A (m x k) or A^T (k x m) packed
  std::vector<std::uint8_t> b_8;      ///< data/input/b_8.bin: B (k x n) or B^T (n x k) packed
  std::vector<std::uint8_t> a_scale;  ///< data/input/a_scale.bin: paired layout (scale_layout.hpp)
  std::vector<std::uint8_t> b_scale;  ///< data/input/b_scale.bin
  std::vector<std::uint32_t> expected;        ///< C (m x n) f32, LutGemmModel::exact
  std::vector<std::uint32_t> f32_sequential;  ///< C (m x n) f32, LutGemmModel::f32_sequential
  std::vector<std::uint32_t> a_dequantized, b_dequantized;  ///< A (m x k) and B (k x n) as the script's a_fp32, b_fp32
  Flags expected_flags = 0;  ///< OR of the exact model's rounding flags (inexact, overflow, invalid)
};

/// gen_data(m, n, k, trans_a, trans_b) for given f32 inputs a (m x k) and b (k x n) (the script
/// draws them from torch.randn, unseeded). Throws std::invalid_argument for a size mismatch or a
/// zero dimension.
LutGemmFiles lut_argmin_gemm_golden(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                                    const LutGemmOptions& o);

/// C (m x n) = a (m x k) x b (k x n) of f32 values under `model` (NaN results are 0x7FC00000).
std::vector<std::uint32_t> lut_argmin_matmul(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                                             std::size_t m, std::size_t n, std::size_t k, LutGemmModel model,
                                             Flags* flags = nullptr);

/// The input generator `softmx gemm-golden` uses for A and B (both layouts): each value is
/// (sum of 12 SplitMix64 draws >> 40, minus 6 * 2^24) * 2^-24, a bell-shaped value in [-6, 6],
/// rounded to f32 (rne); `count` values from the stream seeded with `seed` (A row-major, then B).
std::vector<std::uint32_t> gemm_golden_inputs(std::uint64_t seed, std::size_t count);

}  // namespace softmx
