// softmx/gemm.hpp: MX matrix products under any accumulation model, every output bit-exact.
//
//   C[i][j] = DotGeneral(row i of A, row j of B)      i < M, j < N       (docs/BLOCKS.md 5)
//
// A holds M vectors and B holds N vectors of K element codes each, blocked along K with one
// E8M0 scale per block (the last block may be shorter). Each output is exactly what
// dot_general() (dot.hpp) gives for the block pairs of its two vectors under the same model
// and output context: the f32 code and its flags. gemm() computes them all at once: it packs
// the operands into tiles sized for the caches, runs a kernel per accumulation model that
// works on many outputs at once in vector registers (AVX-512 or AVX2, chosen at run time, or
// a portable form of the same code), and spreads the tiles over threads. Every output is
// computed on its own (no reduction across threads), so the results do not depend on the
// thread count or the kernel.
//
//   const std::size_t M = 256, N = 128, K = 1024;
//   // (a runtime element format works the same way: gemm_rows(parse_format_spec("e1m2"), ...))
//   // A: M x K codes (row-major) with M x K/32 scales; B: K x N codes with K/32 x N scales.
//   GemmOperand a = gemm_rows(FormatId::e4m3, M, K, 32, a_codes, a_scales);
//   GemmOperand b = gemm_columns(FormatId::e4m3, K, N, 32, b_codes, b_scales);
//   std::vector<std::uint32_t> c(M * N);
//   std::vector<Flags> f(M * N);
//   Flags any = gemm(a, b, GemmOptions{}, c, f);  // exact model; c row-major M x N
//
// The kernels (docs/ARCHITECTURE.md, "GEMM"):
//   exact            block sums as exact integers in double lanes (every code of every format
//                    is an integer multiple of the format's smallest quantum; formats whose
//                    codes span too many binades are split in two by magnitude), added with
//                    their scales into a 128-bit exact accumulator per output, rounded once;
//   fp32-sequential  the FPU's f32 additions in order, several outputs per vector, with each
//                    addition's exact error (TwoSum) for the flags and the other rounding modes;
//   tensor-core      (TensorCoreModel, any TensorCoreParams with addend_in_group) per group
//                    the largest exponent, every product shifted and cut in 32-bit integer
//                    lanes (truncated with the operands' exponents: an f32 product truncated by
//                    the conversion), the group sum normalised and rounded onto the accumulator
//                    grid (rz: by the f32 conversion); the exact sum decides the flags;
//   GST-FDPA         (blackwell-mxf4, blackwell-nvf4: E2M1 groups of 16 under their block
//                    scales) each group's exact sum in float lanes, E from C and the groups'
//                    scale exponents, the group terms and C cut in 64-bit lanes, RZ to f32, the
//                    result the next instruction's C; the exact sum decides the flags.
// Outputs whose inputs hold NaN or Inf codes or NaN scales, outputs that reach the edges of
// f32's range (overflow, subnormal steps), exact-zero sums (whose sign follows every zero
// product), and any model without a kernel (another AccumulationModel) are computed by
// dot_general() itself, the reference, on the same threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "softmx/block.hpp"
#include "softmx/context.hpp"
#include "softmx/dot.hpp"
#include "softmx/flags.hpp"
#include "softmx/format.hpp"
#include "softmx/tensor_core.hpp"

namespace softmx {

/// One operand of a GEMM: `rows` vectors of `k` element codes each (one code per byte,
/// unpacked), blocked along k in blocks of `block` codes (the last block holds
/// k - (ceil(k / block) - 1) * block codes), one scale code per block: E8M0 (UE8M0), or for the
/// GST models (blackwell-mxf4, blackwell-nvf4) UE4M3 (scale_format e4m3: the e4m3 value of
/// code & 0x7F, 0x7F and 0xFF NaN, as TensorCoreModel::mma_scaled reads it; kind::mxf4nvf4 4X).
///
/// Element t of vector r is codes[r * row_stride + t * k_stride]; the scale of block b of
/// vector r is scales[r * scale_row_stride + b * scale_block_stride]. gemm_rows() and
/// gemm_columns() fill the strides for the two usual layouts.
///
/// The element format is a named MX element format or a runtime descriptor of at most 8 bits
/// (ElementFormat, block.hpp: `parse_format_spec("e1m2")`, e2m2, e4m3fnuz, int4, ...;
/// mx_element_reason says which can be one). The kernels read every code through per-code
/// tables made from the descriptor, so a runtime format runs the same kernels as a named one.
/// Runtime elements take the exact and fp32-sequential models only: the tensor-core models are
/// the named formats' hardware (as dot_general()).
struct GemmOperand {
  ElementFormat format = FormatId::e4m3;  ///< an MX element format, named or runtime
  std::size_t rows = 0;              ///< vectors (M for A, N for B), >= 1
  std::size_t k = 0;                 ///< codes per vector, >= 1
  std::size_t block = 32;            ///< codes per block along k, >= 1
  std::span<const std::uint8_t> codes;
  std::size_t row_stride = 0, k_stride = 1;
  std::span<const std::uint8_t> scales;
  std::size_t scale_row_stride = 0, scale_block_stride = 1;
  /// e8m0, or e4m3 (UE4M3: code c is the ue4m3 code c & 0x7F) with a ScaleApplication::per_group
  /// model, exact or fp32-sequential (those two give dot_general's result with scale_format
  /// ue4m3, on their kernels: docs/ARCHITECTURE.md, GEMM); A and B the same.
  FormatId scale_format = FormatId::e8m0;
  /// Any other block scale format (BlockOptions::scale_format, block.hpp: ue5m3, a signed e4m3
  /// read with its sign, bf16, f16, f32, ...), for blocks quantized with it; nullptr (or E8M0's
  /// descriptor): `scale_format` decides. When set, every scale code is a code of it, stored
  /// scale_code_bytes() bytes each in the host's byte order (the scale strides count codes,
  /// not bytes), `scale_format` is ignored, and the exact and fp32-sequential models give each
  /// output's dot_general() with BlockRef::scale_format set to it (BLOCKS.md 5); the
  /// tensor-core models refuse it. A and B the same (equal descriptors). The descriptor must
  /// outlive the call.
  const Format* block_scale_format = nullptr;

  /// ceil(k / block).
  std::size_t blocks() const { return block ? (k + block - 1) / block : 0; }
};

/// The GemmOperand::scale_format that reads the codes of MX blocks quantized with scale format
/// `sf` (BlockOptions::scale_format, block.hpp): e8m0 for E8M0; e4m3 for UE4M3 (ue4m3, or
/// e4m3's positive codes, which are the same values under the same codes); nullopt for any
/// other scale format (GemmOperand::block_scale_format takes those, under exact and
/// fp32-sequential).
std::optional<FormatId> gemm_scale_format(const ScaleFormat& sf);

/// `op` reading the scales of MX blocks quantized with scale format `sf`: scale_format set to
/// gemm_scale_format(sf) (E8M0, or UE4M3 for ue4m3 and e4m3), or else block_scale_format set to
/// &sf.format() (`sf` must then outlive the GEMM call).
GemmOperand with_scale_format(GemmOperand op, const ScaleFormat& sf);

/// A as an M x K row-major matrix blocked along each row: codes[i * K + t], scales
/// M x ceil(K / block) row-major (scales[i * nb + b]); quantize_tensor along axis 1 gives this.
GemmOperand gemm_rows(const ElementFormat& format, std::size_t rows, std::size_t k, std::size_t block,
                      std::span<const std::uint8_t> codes, std::span<const std::uint8_t> scales);

/// B as a K x N row-major matrix blocked along each column: codes[t * N + j], scales
/// ceil(K / block) x N row-major (scales[b * N + j]); quantize_tensor along axis 0 gives this.
GemmOperand gemm_columns(const ElementFormat& format, std::size_t k, std::size_t columns, std::size_t block,
                         std::span<const std::uint8_t> codes, std::span<const std::uint8_t> scales);

/// Which code computes the outputs. The results are the same bit for bit on every one.
enum class GemmKernel : std::uint8_t {
  reference,  ///< dot_general() per output (threaded): the definition
  portable,   ///< the vector kernels compiled for the baseline instruction set (any CPU)
  avx2,       ///< x86-64 AVX2 + FMA + BMI2
  avx512,     ///< x86-64 AVX-512 F/BW/VL/DQ
};

/// "reference" "portable" "avx2" "avx512".
const char* name(GemmKernel k);
/// True when this CPU can run `k` (reference and portable always).
bool gemm_kernel_supported(GemmKernel k);
/// The widest vector kernel this CPU supports (avx512, avx2, else portable).
GemmKernel default_gemm_kernel();
/// Every kernel this CPU supports, reference first.
std::span<const GemmKernel> supported_gemm_kernels();

/// One of the GEMM's kernel families, from the registry the driver dispatches by
/// (emulator/gemm/models.cpp; docs/ARCHITECTURE.md, "GEMM"): its name, the accumulation models
/// it serves, how it computes, and what it hands to the reference (dot_general() per output).
/// A model no family serves runs the reference for every output.
struct GemmModelKernel {
  std::string_view name;
  std::string_view models;
  std::string_view method;
  std::span<const std::string_view> reference_when;
};
/// Every kernel family, in the order the driver asks them: exact, fp32-sequential,
/// tensor-core, gst-fdpa.
std::span<const GemmModelKernel> gemm_model_kernels();

struct GemmOptions {
  /// The accumulation model; nullptr: exact. Models without a kernel (anything but exact,
  /// fp32-sequential and a TensorCoreModel with addend_in_group; GST models on E2M1 with k a
  /// multiple of the block and the block a multiple of 16) run the reference per output.
  const AccumulationModel* model = nullptr;
  /// The output context, as dot_general() takes it (saturation by destination: none into f32,
  /// f16 and bf16, IEEE overflow to Inf; the tensor-core models ignore it).
  Context out{};
  /// The outputs' format, as DotDestination::to (dot.hpp): f32 (the default), f16 or bf16; the
  /// output array receives codes of it (f16 and bf16 in the low 16 bits). Under a tensor-core
  /// model, the model's accumulator (f32 or f16; bf16 is refused).
  FormatId to = FormatId::f32;
  /// The addends C (DotDestination::c), codes of `to`: gemm() adds addend[i * N + j] to output
  /// (i, j), dot_pairs() adds addend[l] to pair l; it must hold that many codes, each within
  /// `to`'s mask. Empty: no addend (the sum alone, as before C existed).
  std::span<const std::uint32_t> addend;
  /// Worker threads; 0: std::thread::hardware_concurrency(). The results do not depend on it.
  unsigned threads = 0;
  /// Default: default_gemm_kernel(). Must be supported (gemm_kernel_supported).
  std::optional<GemmKernel> kernel;
};

/// C = A x B as above: c[i * N + j] the code of output (i, j) (f32, or options.to; with
/// options.addend, D = A x B + C, each output dot_general(row i, row j, DotDestination{to,
/// addend[i * N + j]})) and, when `flags` is not empty, flags[i * N + j] its flags. Returns the
/// OR of every output's flags.
///
/// The kernels take C and f16/bf16 outputs where that is cheap and exact: exact adds C to each
/// output's exact sum and rounds once into `to`; fp32-sequential starts its f32 accumulator at
/// C and rounds the result into `to`; the tensor-core kernel seeds its accumulator with an f32
/// C (as mma_pairs()). Everything else with C or f16/bf16 (a tensor-core f16 accumulator, the
/// GST models with C, C NaN or Inf, a zero sum) runs dot_general() per output.
///
/// Throws std::invalid_argument, naming the operand and what was expected, when: a format is
/// not an MX element format (a runtime one: mx_element_reason's field); a runtime element meets
/// a model other than exact and fp32-sequential, or a pair of runtime formats whose products
/// leave the exact accumulator's range (a bias far from the default; as dot_general()); rows, k or block is 0; A and B differ in k or block; a span is
/// too small for the rows, strides and blocks it must hold; a code is out of its format's
/// range; c (or a non-empty flags) holds fewer than M * N entries; the kernel is not supported
/// by this CPU; the scale formats differ or are not e8m0 / e4m3, or e4m3 meets a tensor-core
/// model without per-group scales; options.to is not f32, f16 or bf16, or the model does not
/// define it (a tensor-core model and bf16); a non-empty options.addend holds fewer than M * N
/// codes or a code beyond `to`'s mask.
Flags gemm(const GemmOperand& a, const GemmOperand& b, const GemmOptions& options, std::span<std::uint32_t> c,
           std::span<Flags> flags = {});

/// Many independent dot products at once: c[l] = DotGeneral(vector l of A, vector l of B) and
/// flags[l] its flags, for l < A.rows (= B.rows), under options.model as gemm() computes them
/// (the same kernels with one pair per lane, the same checks, threads and results), into
/// options.to with the addend options.addend[l] when given. For lines of `softmx dot`, vector
/// files and the like. Throws as gemm() does, and when A and B hold different numbers of
/// vectors.
Flags dot_pairs(const GemmOperand& a, const GemmOperand& b, const GemmOptions& options, std::span<std::uint32_t> c,
                std::span<Flags> flags = {});

/// Many independent tensor-core mma outputs at once, for the lines of `softmx gen mma` vector
/// files: for l < A.rows (= B.rows), d[l] is the f32 accumulator code that
///   model.mma(A.format, vector l of A, B.format, vector l of B, FormatId::f32, c[l])
/// gives, or, when `scaled`,
///   model.mma_scaled(A.format, vector l of A, B.format, vector l of B, A.scale_format, A.block,
///                    A's scales of vector l, B's scales of vector l, FormatId::f32, c[l]).
/// c[l] is C, an f32 code. Unscaled, each vector is one block whose scale code is 127 (E8M0's
/// 1.0: the products are the elements' own) and A.block = A.k; scaled, the operands' scale
/// codes and block are the instruction's (block = scale_block).
///
/// The same kernels as dot_pairs(), C being the accumulator before the first instruction
/// (tensor_core.hpp: the chain of instructions starts from C). Outputs the kernels do not take
/// (C NaN, Inf or subnormal; C off the accumulator grid of a model that adds C by grid
/// additions rather than as a term of its first group; what dot_pairs() sends to the
/// reference) run mma() / mma_scaled() itself. mma's flags are not computed: an mma vector line
/// carries none. threads: 0 for every core; the results do not depend on it or on `kernel`.
///
/// Throws std::invalid_argument as gemm() does, and when c or d holds fewer than A.rows codes,
/// an element format is a runtime one, or an unscaled operand has a scale code other than 127
/// or a block other than k; and what mma() / mma_scaled() throw for these operands (their
/// formats, scale format and block).
void mma_pairs(const GemmOperand& a, const GemmOperand& b, const TensorCoreModel& model, bool scaled,
               std::span<const std::uint32_t> c, std::span<std::uint32_t> d, unsigned threads = 0,
               std::optional<GemmKernel> kernel = std::nullopt);

}  // namespace softmx
