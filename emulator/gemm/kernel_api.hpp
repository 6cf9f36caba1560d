// emulator/gemm/kernel_api.hpp: the interface between the GEMM driver (gemm.cpp: operands,
// packing, threads, the reference for what the kernels hand back) and the tile kernels
// (kernels.hpp, compiled once per instruction set: isa_*.cpp) (internal).
//
// A tile is MR x NR outputs (MR rows of A, NR rows of B); the driver packs a stretch of k (a
// chunk) of the tile's A rows as [t][MR] and of its B rows as [t][NR] (zeros past the edges of
// the matrices), and the kernel keeps each output's running state in the driver's arrays
// (row r, column c of the tile at state[r * stride + c]).
#pragma once

#include <cstddef>
#include <cstdint>

#include <span>

#include "softmx/context.hpp"
#include "softmx/gemm.hpp"

namespace softmx::gemm_detail {

__extension__ using i128 = __int128;
__extension__ using u128 = unsigned __int128;

// ---- exact ----------------------------------------------------------------------------------
// The chunk is a run of segments, each inside one block: the kernel sums a segment's products
// in double lanes (integers, exact: the driver bounds a segment's length so that no partial sum
// reaches 2^51) and adds each output's sum to its 128-bit accumulator (two's complement, the
// low 64 bits in lo, the high 64 in hi, at the same index) shifted left by
// ra[r] + rb[c] (the block's scale exponents above the output's smallest, plus the parts'
// quantum offsets; the driver sends outputs whose shifts could overflow 128 bits to the
// reference, and the kernel clamps the shift to 127 so that they stay defined).
struct ExactSegment {
  std::uint32_t len;
  const std::int32_t* ra;  // MR shifts
  const std::int32_t* rb;  // NR shifts
};
struct ExactTile {
  const double* a;  // [t][MR] over the segments in order
  const double* b;  // [t][NR]
  const ExactSegment* seg;
  std::size_t segments;
  std::uint64_t* lo;  // the accumulators' low words
  std::int64_t* hi;   // their high words
  std::size_t stride;
};

// ---- fp32-sequential --------------------------------------------------------------------------
// Per output: s (the block's running f32 sum), acc (the f32 sum of the scaled blocks) and
// state bits. A segment lies inside one block; at the end of a block (ends_block) the kernel
// forms d = s * 2^(xa[r] + xb[c]) (E8M0 scales: va null) or d = round_f32(s * va[r] * vb[c])
// (other scale formats, Problem::seq_scales: the scale values, exact f32 values as doubles, of at most 14
// significant bits each, so that the product is exact in a double and d is one rounding, as
// dot.cpp's times_scales and round_pack form it), and acc = acc + d, then s = +0.
inline constexpr std::uint32_t kSeqInexact = 1;     // some step was inexact
inline constexpr std::uint32_t kSeqReference = 2;   // a step left the range the kernel handles
//
// Exact blocks: per vector and block, sx = e_S - q and mx = e_M - q, where q is the exponent of
// the lowest set bit over the block's non-zero element values, 2^e_S bounds the sum of their
// magnitudes and 2^e_M the largest (e_S, e_M the least such integers; both kSeqAlwaysExact for
// a block without a non-zero value). When min(sx_a + mx_b, mx_a + sx_b) <= 24 for the output,
// every partial sum of the block's products is exact in f32 (SeqTile's kernel, seq_tile.hpp),
// and the kernel sums them with plain multiply-adds, no error terms.
inline constexpr std::int32_t kSeqAlwaysExact = -(1 << 20);
struct SeqSegment {
  std::uint32_t len;
  bool ends_block;
  const std::int32_t* xa;  // MR scale exponents (code - 127)
  const std::int32_t* xb;  // NR
  const std::int32_t* sa;  // MR: sx of A's vectors for the segment's block
  const std::int32_t* ma;  // MR: mx
  const std::int32_t* sb;  // NR
  const std::int32_t* mb;  // NR
  const double* va;        // MR scale values (Problem::seq_scales), or null: E8M0 (xa, xb)
  const double* vb;        // NR
};
struct SeqTile {
  const float* a;  // [t][MR]
  const float* b;  // [t][NR]
  const SeqSegment* seg;
  std::size_t segments;
  std::uint32_t* s;    // f32 bits
  std::uint32_t* acc;  // f32 bits
  std::uint32_t* state;
  std::size_t stride;
};

// ---- tensor-core models -----------------------------------------------------------------------
// The chunk is a run of whole instructions (tensor_core.hpp, header steps 2-7), packed in
// position order (the products permuted by product_order within each instruction; positions
// past the last product packed as absent: n = 0, exponent kZeroExponent, A sign byte 2), and
// cut into its groups (a group without any product is left out). Per output the accumulator
// acc and the instruction's running value r, each on the grid: (-1)^sign * kept * 2^qe
// (kept = 0: a zero of that sign), and state bits.
inline constexpr std::uint32_t kTcAccSign = 1;
inline constexpr std::uint32_t kTcAccPresent = 2;   // false before the first instruction (no C)
inline constexpr std::uint32_t kTcRSign = 4;
inline constexpr std::uint32_t kTcRPresent = 8;     // false at the start of an instruction with after_products
inline constexpr std::uint32_t kTcReference = 16;   // a step left the range the kernel handles
inline constexpr std::uint8_t kTcAbsent = 2;        // an A sign byte: no product at this position
struct TcParams {
  int F;               // alignment_bits
  int p;               // accumulator fraction bits
  int emin, emax;      // accumulator exponent range
  Rounding mode;       // each group's rounding
  Rounding addend_mode;  // after_products: acc + r
  int cr;              // right shift added to every product term (operand reference: max(m_a + m_b - F, 0))
  int c;               // product reference: F - m_a - m_b
  int mamb;            // m_a + m_b
  bool addend_in_group;
  bool after;          // AddendStage::after_products
  std::int32_t zfloor; // the zero exponent (every group's E at least this), or kZeroExponent for none
  std::uint32_t fl;    // the float route (TcTile::af): products per 32-bit partial sum, >= 1
  bool sums53;         // every group's sum below 2^53 in magnitude (64-bit lanes: the f32 conversion's rz)
  // tc_tile_rz's configuration, for chunks that take the float route: fl != 0, mode rz, p <= 23,
  // addend_in_group, F <= 29, 32-bit lanes or sums53, and after_products only with addend_mode
  // rne and p = 23 (f32's grid, emin -126, emax 127).
  bool rz_kernel;
};
struct TcGroup {
  std::uint32_t len;   // positions
  bool starts, ends;   // the group starts / ends an instruction
};
struct TcTile {
  const std::int32_t* an;  // [t][MR] significands (operand reference: pre-shifted left by max(c, 0))
  const std::int32_t* ae;  // [t][MR] exponents with the scale exponent added
  const std::uint8_t* as;  // [t][MR] signs (zero groups only), kTcAbsent for no product
  const std::int32_t* bn;  // [t][NR]
  const std::int32_t* be;
  const std::uint8_t* bs;
  const TcGroup* grp;
  std::size_t groups;
  std::int32_t* acc_kept;
  std::int32_t* acc_qe;
  std::int32_t* r_kept;
  std::int32_t* r_qe;
  std::uint32_t* state;
  std::size_t stride;
  const TcParams* prm;
  // The float route of pass 2 (operand-exponent reference, truncation; null: the integer
  // route), per position af = n_a 2^(e_a - RA) as an f32 (n_a as in `an`, pre-shift included;
  // 0 for a zero or absent element) and per group and row RA, the largest e_a over the group's
  // non-zero elements of that row (0 if none), such that every non-zero element of the group
  // has e_a >= RA - kTcSpread; the same for B (bf, rb). The kernel takes each term as
  // trunc(af bf 2^(RA + RB - E - cr)) in f32 and sums runs of fl terms in 32-bit lanes
  // (fl T < 2^31, T the largest term: TcParams::fl).
  const float* af = nullptr;  // [t][MR]
  const float* bf = nullptr;  // [t][NR]
  const std::int32_t* ra = nullptr;  // [group][MR]
  const std::int32_t* rb = nullptr;  // [group][NR]
};
/// The float route's largest exponent spread within a group's row or column (TcTile::af):
/// every f32 product af bf is a normal number (at least 2^(-2 kTcSpread)) and 2^k at most
/// 2^(2 kTcSpread), both exact.
inline constexpr int kTcSpread = 48;

// ---- GST-FDPA (ScaleApplication::per_group: blackwell-mxf4, blackwell-nvf4) -------------------
// The chunk is a run of whole instructions (group_size products each, the last one possibly
// short), each a run of groups of scale_group products (every group full: the driver runs the
// kernel only when k is a multiple of the block and the block a multiple of scale_group). A
// and B hold each element as its integer value in units of its format's part quantum 2^q (the
// exact model's table: E2M1 times 2, -12..12), as a float; a group's sum of products is an
// integer below 2^24 in units of 2^(q_a + q_b), so the float multiply-adds are exact. Per group
// and vector: m, the element mask (bit i: position i of the group holds a non-zero element; bit
// 16 + i: its sign bit), and the block scale sigma = n * 2^(x + qoff / 2): x its exponent, the
// group's offer (UE8M0: code - 127, n = 1, qoff 0; UE4M3: the e4m3 exponent, -6 for its
// subnormals, n its 4-bit significand, 0 for a zero scale, which makes the group offer zexp;
// qoff -6 for the pair). Per output: acc, the
// accumulator as f32 bits (C; +0 before the first instruction, which has no C: either way a
// zero sum is -0 only when C is -0 and every product of the instruction a negative zero, so
// only after a sum that RZ took to -0), and state bits.
inline constexpr std::uint32_t kGstReference = 1;  // overflow: the output goes to the reference
struct GstParams {
  int F;                // alignment_bits
  int gpi;              // groups per instruction (group_size / scale_group)
  int pl, pr;           // a group sum S in units of 2^(E - F): |S| << pl >> (E - x + pr)
  int cl, cr;           // C = n * 2^(e - 23) in units of 2^(E - F): n << cl >> (E - e + cr)
  int qoff;             // sigma_a sigma_b = n_a n_b 2^(x_a + x_b + qoff): S n_a n_b << pl >> (E - x - qoff + pr)
  bool exact;           // keep the exact sum: exact += S n_a n_b << (x_a + x_b + qoff + xo) (UE4M3)
  int xo;               // its unit: 2^(q_a + q_b - xo)
  std::int32_t zexp;    // the exponent a zero group or zero C offers (kZeroExponent: none)
};
struct GstTile {
  const float* a;         // [t][MR]
  const float* b;         // [t][NR]
  const std::int32_t* ma; // [group][MR] element masks
  const std::int32_t* xa; // [group][MR] scale exponents
  const std::int32_t* mb; // [group][NR]
  const std::int32_t* xb;
  const std::int32_t* na; // [group][MR] scale significands
  const std::int32_t* nb; // [group][NR]
  std::size_t groups;     // in the chunk, which starts an instruction
  std::uint32_t* acc;     // f32 bits
  std::uint32_t* state;
  std::int64_t* exact;    // the exact sums (GstParams::exact), else unused
  std::size_t stride;
  const GstParams* prm;
};

using ExactFn = void (*)(const ExactTile&);
using SeqFn = void (*)(const SeqTile&);
using TcFn = void (*)(const TcTile&);
using GstFn = void (*)(const GstTile&);

/// One instruction set's kernels and their tile shapes.
struct Kernels {
  int exact_mr, exact_nr;
  ExactFn exact;
  ExactFn exact_narrow;  // every output's sum below 2^62: an int64 in lo (ExactBlock::narrow)
  int seq_mr, seq_nr;
  SeqFn seq[6];  // by Rounding (rne, rna, rz, ru, rd, ro)
  int tc_mr, tc_nr;
  TcFn tc[2][2][2];  // [product reference][nearest-even alignment][64-bit group sums]
  TcFn tc_rz[2];     // the published FP8 models' configuration (TcParams::rz_kernel), [64-bit group sums]
  int gst_mr, gst_nr;
  GstFn gst;
  // dot_pairs: tiles of 1 x NR pairs (the same NR), A packed like B ([t][NR], its vectors
  // being the pairs' own), the shifts and scale exponents of A per lane ([NR]).
  ExactFn exact_pairs;
  ExactFn exact_pairs_narrow;
  SeqFn seq_pairs[6];
  TcFn tc_pairs[2][2][2];
  TcFn tc_rz_pairs[2];
  GstFn gst_pairs;
};

const Kernels& kernels_portable();
const Kernels& kernels_avx2();
const Kernels& kernels_avx512();

/// mma_pairs(): each pair's C (f32 codes) and whether the operands' scales are the
/// instruction's (mma_scaled) or unit (mma).
struct MmaAddend {
  std::span<const std::uint32_t> c;
  bool scaled = false;
};

/// gemm() (pairs: dot_pairs()) on the given kernels (nullptr: the reference), after the same
/// checks; with `mma`, mma_pairs() (C seeded as the accumulator, the reference mma()).
Flags gemm_on(const Kernels* kernels, bool pairs, const GemmOperand& a, const GemmOperand& b,
              const GemmOptions& options, std::span<std::uint32_t> c, std::span<Flags> flags,
              const MmaAddend* mma = nullptr);

}  // namespace softmx::gemm_detail
