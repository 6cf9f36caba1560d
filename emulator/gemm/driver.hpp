// emulator/gemm/driver.hpp: what the GEMM's parts share (internal): the operands as the driver
// sees them (Side), the problem (Problem), writing outputs, tiles, output blocks, threads, and
// the prologue of every kernel's work item (begin_item). The entry points are gemm.cpp, the
// operand checks operands.cpp, the reference reference.cpp, and each kernel family's driver its
// own file (models.hpp lists them).
//
// Blocking: the outputs are cut into blocks of MC x NC (each a work item, taken by the next
// free thread); a block's running state (one entry per output) stays in the thread's arrays
// while k is walked in chunks of KC: the chunk's A rows and B rows are packed (table reads of
// the codes) into panels of MR and NR, and the instruction set's kernel runs on every MR x NR
// tile of the block. The sizes keep a chunk's panels and the block's state within L2.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#else
#include <cfenv>
#endif

#include "gemm/kernel_api.hpp"
#include "gemm/tables.hpp"
#include "softmx/convert.hpp"
#include "softmx/dot.hpp"
#include "softmx/gemm.hpp"
#include "softmx/tensor_core.hpp"

namespace softmx::gemm_detail {

// ---- operands -------------------------------------------------------------------------------

inline std::string side_name(bool is_b) { return is_b ? "B" : "A"; }

/// x * y + z without wrapping, or false.
inline bool mul_add(std::size_t x, std::size_t y, std::size_t z, std::size_t& out) {
  std::size_t p;
  if (__builtin_mul_overflow(x, y, &p)) return false;
  return !__builtin_add_overflow(p, z, &out);
}

/// True when the operand's scales are in a block scale format other than E8M0 and the GEMM's
/// UE4M3 (GemmOperand::block_scale_format): the reference per output reads them.
inline bool any_scale_format(const GemmOperand& o) {
  return o.block_scale_format && o.block_scale_format->id != FormatId::e8m0;
}

/// Checks one operand's format, sizes and spans (gemm: operand A / B: ...).
void check_shape(const GemmOperand& o, bool is_b);

struct Side {
  const GemmOperand* op = nullptr;
  bool is_b = false;
  std::size_t nb = 0;
  ElementTables tab;
  std::vector<std::uint8_t> special;
  std::vector<std::int32_t> smin, smax;
  int qmin = 0, qspan = 0;  // the parts' smallest quantum exponent and their spread

  std::uint8_t code(std::size_t r, std::size_t t) const { return op->codes[r * op->row_stride + t * op->k_stride]; }
  std::uint8_t scale(std::size_t r, std::size_t b) const {
    return op->scales[r * op->scale_row_stride + b * op->scale_block_stride];
  }
  /// Scale code b of vector r in any scale format (block_scale_format: sbytes bytes per code).
  std::uint32_t scale_code(std::size_t r, std::size_t b) const {
    return load_scale_code(op->scales.data(), r * op->scale_row_stride + b * op->scale_block_stride, sbytes);
  }
  std::size_t sbytes = 1;
  // Scales in a format other than E8M0, decoded for the exact kernel (decode_scales; empty for
  // E8M0): block b of vector r has the scale ssig[r * nb + b] * 2^(bexp[r * nb + b] - 127), ssig
  // an odd integer (its sign the scale's) with |ssig| < 2^sbits, or 0 for a zero scale (and for a
  // NaN or Inf one, whose vector is special); a zero block's bexp is smin[r] (shift 0). smin and
  // smax then range over the non-zero finite scales' bexp, as they range over E8M0 codes.
  std::vector<std::int32_t> bexp;
  std::vector<double> ssig;
  int sbits = 0;
  // The same scales as f32 values for the fp32-sequential kernel (decode_scale_values; empty
  // otherwise): block b of vector r has the scale sval[r * nb + b], exactly, zeros with their
  // sign; 0 for a NaN or Inf scale, whose vector is special.
  std::vector<float> sval;
  /// Block b of vector r's scale exponent on E8M0's scale (code - 127 = the exponent): the E8M0
  /// code (a NaN code 0xFF reads as smin[r]), or bexp.
  std::int32_t scale_exp(std::size_t r, std::size_t b) const {
    if (!bexp.empty()) return bexp[r * nb + b];
    const std::uint8_t x = scale(r, b);
    return x == 0xFF ? smin[r] : x;
  }
};

/// The Side of an operand: its tables (flush: subnormal inputs flushed, for tensor-core models
/// that flush them) and per vector its specials and scale range; checks every code's range.
Side make_side(const GemmOperand& o, bool is_b, bool flush);

/// Whether the exact kernel can take operands a and b whose scales are in `sf` (neither E8M0
/// nor its UE4M3 reading by the tensor-core models): the one place that decides it, from the
/// descriptors (docs/ARCHITECTURE.md, GEMM, "Exact routes and their proofs"). With the scale
/// significand folded into the packed element integers (decode_scales), a part of A is below
/// 2^(bits_a + sbits) and a product of two below 2^(bits_a + bits_b + 2 sbits), sbits =
/// sf.man_bits + 1; the kernel's segment sums need that below 2^51 (ExactBlock: segments of
/// 2^(51 - pair bits) products, at least one). And every product and sum must lie in the exact
/// accumulator's range (2^-320 .. 2^430, for the sums with C): the least weight 2^(q_a + q_b +
/// 2 (sf.emin - sf.man_bits)) >= 2^-320 and the largest sum below 2^(emax_a + emax_b + 2 +
/// 2 (emax_sf + 1) + bit_width(K)) <= 2^430. For e4m3 x e4m3 with ue4m3 scales: parts of 18
/// bits, pairs of 36 + 8 = 44, segments of 2^7; with bf16 scales (8 bits) 52: the reference.
bool exact_scales_fit(const Side& a, const Side& b, const Format& sf, std::size_t K);

/// Decodes a side's scales (codes & mask, in sf) into bexp, ssig and sbits, and sets smin and
/// smax over them and special[r] for a vector with a NaN or Inf scale (operands.cpp).
void decode_scales(Side& s, const Format& sf, std::uint32_t mask);

/// Whether the fp32-sequential kernel can take scales in `sf` (neither E8M0 nor its UE4M3
/// reading by the tensor-core models): the one place that decides it, from the descriptor
/// (docs/ARCHITECTURE.md, GEMM, "Exact routes and their proofs", 7). The model's d_j rounds
/// s * X_A * X_B once into f32 (dot.cpp, times_scales); the kernel forms that product exactly
/// in double lanes (seq_tile.hpp, scale_round), which needs every finite scale value exact in
/// f32 (2^(emin - man_bits) >= 2^-149, emax < 128) and 24 + 2 (man_bits + 1) <= 53 significant
/// bits: man_bits <= 13. ue4m3, ue5m3, e4m3, bf16 and f16 fit; f32 (24 + 48 bits) does not.
bool seq_scales_fit(const Format& sf);

/// Decodes a side's scales (codes & mask, in sf) into sval (seq_scales_fit(sf) holds) and sets
/// special[r] for a vector with a NaN or Inf scale (operands.cpp).
void decode_scale_values(Side& s, const Format& sf, std::uint32_t mask);

/// As dot_general() (dot.cpp's validate): a pair of runtime elements whose products leave the
/// exact accumulator's range is refused (operands.cpp).
void check_runtime_range(const std::string& what, const GemmOperand& a, const GemmOperand& b);

/// Packs one panel of a kernel's operand: vectors row .. row + lanes - 1 of `op` (lanes <= w),
/// elements t0 .. t0 + len - 1, each code read through `value` (a per-code table: a Component's
/// n for the exact kernel, ElementTables::value for fp32-sequential), into o as [t][w] (o[t * w +
/// l] is vector row + l's element t0 + t); lanes lanes .. w - 1 are zeros. The codes are read
/// along the operand's shorter stride (k for gemm_rows, the vectors for gemm_columns), so that the
/// reads stay sequential in memory whichever way the operand is laid out.
template <class T>
void pack_panel(const GemmOperand& op, const std::array<T, 256>& value, std::size_t row, std::size_t lanes,
                std::size_t t0, std::size_t len, std::size_t w, T* o) {
  if (lanes < w)
    for (std::size_t t = 0; t < len; ++t)
      for (std::size_t l = lanes; l < w; ++l) o[t * w + l] = T(0);
  if (op.k_stride <= op.row_stride) {
    for (std::size_t l = 0; l < lanes; ++l) {
      const std::uint8_t* code = op.codes.data() + (row + l) * op.row_stride + t0 * op.k_stride;
      for (std::size_t t = 0; t < len; ++t) o[t * w + l] = value[code[t * op.k_stride]];
    }
  } else {
    for (std::size_t t = 0; t < len; ++t) {
      const std::uint8_t* code = op.codes.data() + row * op.row_stride + (t0 + t) * op.k_stride;
      for (std::size_t l = 0; l < lanes; ++l) o[t * w + l] = value[code[l * op.row_stride]];
    }
  }
}

// ---- the problem and its reference ------------------------------------------------------------

struct Problem {
  Side a, b;
  std::size_t M = 0, N = 0, K = 0, block = 0, nb = 0;
  const AccumulationModel* model = nullptr;
  Context ctx;
  std::uint32_t* c = nullptr;
  Flags* flags = nullptr;  // may be null
  const Kernels* kern = nullptr;
  const TensorCoreModel* tc = nullptr;  // the model as a TensorCoreModel, or null
  bool pairs = false;  // dot_pairs: output l is (l, l), at c[l]
  const TensorCoreModel* ue4m3 = nullptr;  // UE4M3 scales: the GST model that reads them
  // UE4M3 scales under exact or fp32-sequential: dot_general per output, each scale code c read
  // as the ue4m3 code c & 0x7F (as the GST models read it: 0x7F and 0xFF NaN).
  const Format* ue4m3_ref = nullptr;
  // GemmOperand::block_scale_format (any other scale format): dot_general per output with it.
  const Format* any_ref = nullptr;
  // ue4m3_ref or any_ref under the exact model with scales the exact kernel takes
  // (exact_scales_fit): the sides hold them decoded (decode_scales), and the exact kernel runs;
  // the reference (per output, for specials and zero sums) still reads them as above.
  bool exact_scales = false;
  // ue4m3_ref or any_ref under fp32-sequential with scales its kernel takes (seq_scales_fit):
  // the sides hold their values (decode_scale_values), and the fp32-sequential kernel runs; the
  // reference (per output) still reads them as above.
  bool seq_scales = false;
  // mma_pairs: C of each pair (f32 codes), the accumulator before the first instruction; the
  // reference is then TensorCoreModel::mma (scaled: mma_scaled). Null for gemm / dot_pairs.
  const std::uint32_t* addend = nullptr;
  bool scaled = false;
  // gemm / dot_pairs with GemmOptions::to other than f32 or with addends (dest): the outputs'
  // format, and C per output (codes of `to`, at the output's index; null: no C). The
  // reference is then dot_general_to (DotGeneral into `to` with C).
  bool dest = false;
  const Format* to = nullptr;
  const std::uint32_t* dot_c = nullptr;
  std::optional<std::uint32_t> c_of(std::size_t i, std::size_t j) const {
    if (!dot_c) return std::nullopt;
    return dot_c[pairs ? i : i * N + j];
  }
};

/// Per-thread buffers for the reference's block lists.
struct RefScratch {
  std::vector<std::uint8_t> a, b;
  std::vector<BlockRef> ra, rb;
};

/// Output (i, j) by the reference: dot_general's model (or the tensor-core mma) per output
/// (reference.cpp).
Result reference_output(const Problem& P, std::size_t i, std::size_t j, RefScratch& s);

/// C of output (i, j) as an exact value (zero without C), for the kernels' finishing steps.
inline Unpacked addend_value(const Problem& P, std::size_t i, std::size_t j) {
  const std::optional<std::uint32_t> c = P.c_of(i, j);
  return c ? unpack(*P.to, *c) : Unpacked{};
}
/// Writes output (i, j) and ORs its flags into `any`.
inline void put(const Problem& P, std::size_t i, std::size_t j, Result r, Flags& any) {
  const std::size_t at = P.pairs ? i : i * P.N + j;
  P.c[at] = static_cast<std::uint32_t>(r.code);
  if (P.flags) P.flags[at] = r.flags;
  any |= r.flags;
}

/// f(i, j) for the block's outputs: every (i, j), or the pairs (l, l).
template <class F>
void each_output(const Problem& P, std::size_t i0, std::size_t i1, std::size_t j0, std::size_t j1, F f) {
  if (P.pairs) {
    for (std::size_t l = i0; l < i1; ++l) f(l, l);
    return;
  }
  for (std::size_t i = i0; i < i1; ++i)
    for (std::size_t j = j0; j < j1; ++j) f(i, j);
}

/// A block of outputs in tiles of mr x nr: panels of A rows (pa) and of B rows (pb), the
/// running state of output (i, j) at at(i - i0, j - j0) and tile (x, y)'s at tile(x, y). In
/// pairs mode the tiles are the diagonal ones, 1 x nr pairs each, and A is packed nr wide.
struct Tiles {
  Tiles(bool pairs_, std::size_t mr_, std::size_t nr_, std::size_t rows, std::size_t cols)
      : pairs(pairs_), mr(pairs_ ? nr_ : mr_), nr(nr_), pa((rows + mr - 1) / mr), pb((cols + nr - 1) / nr),
        ld(pairs_ ? 0 : pb * nr) {}
  bool pairs;
  std::size_t mr, nr, pa, pb, ld;  // mr: A's panel width
  std::size_t cells() const { return pairs ? pb * nr : pa * mr * ld; }
  std::size_t at(std::size_t i, std::size_t j) const { return pairs ? i : i * ld + j; }
  std::size_t tile(std::size_t x, std::size_t y) const { return pairs ? x * nr : x * mr * ld + y * nr; }
  template <class F>
  void each(F f) const {
    for (std::size_t x = 0; x < pa; ++x)
      for (std::size_t y = 0; y < pb; ++y)
        if (!pairs || x == y) f(x, y);
  }
};

/// The FPU state the kernels assume: round to nearest, no flush-to-zero or denormals-are-zero,
/// every exception masked (read, never set). Otherwise the reference computes every output.
inline bool fpu_default() {
#if defined(__x86_64__) || defined(__i386__)
  return (_mm_getcsr() & 0xFFC0u) == 0x1F80u;
#else
  return std::fegetround() == FE_TONEAREST;
#endif
}

// ---- threads --------------------------------------------------------------------------------

/// Runs a copy of `proto` on each of `threads` threads (the caller's included): begin(), then
/// operator()(item, flags) for items taken in turn until all n are done, each item once; returns
/// the OR of the threads' flags. The first exception is rethrown after every thread stopped.
template <class Work>
Flags parallel(unsigned threads, std::size_t n, const Work& proto) {
  if (n == 0) return 0;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr error;
  std::mutex mu;
  Flags any = 0;
  auto body = [&] {
    Flags mine = 0;
    try {
      Work w = proto;  // each thread its own scratch
      w.begin();
      for (std::size_t item; !stop.load(std::memory_order_relaxed) && (item = next.fetch_add(1)) < n;) w(item, mine);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!error) error = std::current_exception();
      stop = true;
    }
    std::lock_guard<std::mutex> lock(mu);
    any |= mine;
  };
  const std::size_t extra = std::min<std::size_t>(threads, n) - 1;
  std::vector<std::thread> pool;
  pool.reserve(extra);
  try {
    for (std::size_t t = 0; t < extra; ++t) pool.emplace_back(body);
  } catch (...) {
    stop = true;
    for (std::thread& t : pool) t.join();
    throw;
  }
  body();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  return any;
}

/// Output blocks of mc x nc: item w covers rows (w / jb) * mc .. and columns (w % jb) * nc ..
struct Blocking {
  std::size_t mc, nc, ib, jb;
  std::size_t items() const { return ib * jb; }
  struct Range {
    std::size_t i0, i1, j0, j1;
  };
  /// Item w's rows i0..i1-1 and columns j0..j1-1 (pairs: the same range twice).
  Range range(const Problem& P, std::size_t w) const {
    const std::size_t i0 = (w / jb) * mc, j0 = P.pairs ? i0 : (w % jb) * nc;
    return {i0, std::min(P.M, i0 + mc), j0, P.pairs ? std::min(P.M, i0 + mc) : std::min(P.N, j0 + nc)};
  }
};

/// Output blocks for tiles of mr x nr, about mc x nc each, at least two per thread where the
/// problem allows (reference.cpp).
Blocking blocking(const Problem& P, std::size_t mr, std::size_t nr, std::size_t mc, std::size_t nc, unsigned threads);

/// The prologue of every kernel's work item: item w's outputs; or, when the FPU is not in the
/// state the kernel assumes (fpu_ok: fpu_default() at the thread's begin()), every output of
/// the item computed by the reference, and nullopt.
inline std::optional<Blocking::Range> begin_item(const Problem& P, const Blocking& bl, std::size_t w, bool fpu_ok,
                                                 RefScratch& s, Flags& any) {
  const Blocking::Range rg = bl.range(P, w);
  if (fpu_ok) return rg;
  each_output(P, rg.i0, rg.i1, rg.j0, rg.j1,
              [&](std::size_t i, std::size_t j) { put(P, i, j, reference_output(P, i, j, s), any); });
  return std::nullopt;
}

// ---- the reference for everything -------------------------------------------------------------

struct ReferenceWork {
  explicit ReferenceWork(const Problem* p) : P(p) {}
  const Problem* P;
  RefScratch s;
  void begin() {}
  void operator()(std::size_t w, Flags& any) {
    if (P->pairs) put(*P, w, w, reference_output(*P, w, w, s), any);  // item w: pair w
    else for (std::size_t j = 0; j < P->N; ++j) put(*P, w, j, reference_output(*P, w, j, s), any);  // row w
  }
};

}  // namespace softmx::gemm_detail
