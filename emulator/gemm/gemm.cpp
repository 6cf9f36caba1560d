// emulator/gemm/gemm.cpp: the GEMM entry point and driver (include/softmx/gemm.hpp): operand
// checks, the per-code tables, cache blocking and packing, threads, and the reference
// (dot_general's model, per output) for whatever the kernels hand back.
//
// Blocking: the outputs are cut into blocks of MC x NC (each a work item, taken by the next
// free thread); a block's running state (one entry per output) stays in the thread's arrays
// while k is walked in chunks of KC: the chunk's A rows and B rows are packed (table reads of
// the codes) into panels of MR and NR, and the instruction set's kernel runs on every MR x NR
// tile of the block. The sizes keep a chunk's panels and the block's state within L2.
#include "softmx/gemm.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
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
#include "softmx/batch.hpp"
#include "softmx/convert.hpp"
#include "softmx/tensor_core.hpp"

namespace softmx {
namespace {

using namespace gemm_detail;

// ---- operands -------------------------------------------------------------------------------

std::string side_name(bool is_b) { return is_b ? "B" : "A"; }

/// x * y + z without wrapping, or false.
bool mul_add(std::size_t x, std::size_t y, std::size_t z, std::size_t& out) {
  std::size_t p;
  if (__builtin_mul_overflow(x, y, &p)) return false;
  return !__builtin_add_overflow(p, z, &out);
}

/// True when the operand's scales are in a block scale format other than E8M0 and the GEMM's
/// UE4M3 (GemmOperand::block_scale_format): the reference per output reads them.
bool any_scale_format(const GemmOperand& o) {
  return o.block_scale_format && o.block_scale_format->id != FormatId::e8m0;
}

void check_shape(const GemmOperand& o, bool is_b) {
  const std::string w = "gemm: operand " + side_name(is_b) + ": ";
  if (o.format.is_named() && !is_mx_element(o.format.id()))
    throw std::invalid_argument(w + std::string(o.format.name()) +
                                " is not an MX element format (e4m3, e5m2, e3m2, e2m3, e2m1, int8, or a runtime "
                                "format of at most 8 bits such as e1m2)");
  if (auto why = mx_element_reason(o.format)) throw std::invalid_argument(w + *why);
  if (o.rows == 0) throw std::invalid_argument(w + "rows is 0 (at least one vector)");
  if (o.k == 0) throw std::invalid_argument(w + "k is 0 (at least one element per vector)");
  if (o.block == 0) throw std::invalid_argument(w + "block is 0 (at least one element per block)");
  std::size_t last = 0;
  if (!mul_add(o.rows - 1, o.row_stride, 0, last) || !mul_add(o.k - 1, o.k_stride, last, last) || last >= o.codes.size())
    throw std::invalid_argument(w + "codes holds " + std::to_string(o.codes.size()) + " bytes; " +
                                std::to_string(o.rows) + " vectors of " + std::to_string(o.k) + " codes with strides " +
                                std::to_string(o.row_stride) + " (vector) and " + std::to_string(o.k_stride) +
                                " (element) need at least " + std::to_string(last + 1));
  std::size_t sb = 1;  // bytes per scale code
  if (any_scale_format(o)) {
    if (auto why = mx_scale_reason(*o.block_scale_format)) throw std::invalid_argument(w + "block_scale_format: " + *why);
    sb = scale_code_bytes(*o.block_scale_format);
  } else if (o.scale_format != FormatId::e8m0 && o.scale_format != FormatId::e4m3) {
    throw std::invalid_argument(w + "scale_format " + std::string(format(o.scale_format).name) +
                                " is not a block scale format (e8m0, or e4m3 for UE4M3; block_scale_format takes the "
                                "others)");
  }
  const std::size_t nb = o.blocks();
  std::size_t bytes = 0;
  if (!mul_add(o.rows - 1, o.scale_row_stride, 0, last) || !mul_add(nb - 1, o.scale_block_stride, last, last) ||
      !mul_add(last + 1, sb, 0, bytes) || bytes > o.scales.size())
    throw std::invalid_argument(w + "scales holds " + std::to_string(o.scales.size()) + " bytes; " +
                                std::to_string(o.rows) + " vectors of " + std::to_string(nb) + " blocks with strides " +
                                std::to_string(o.scale_row_stride) + " (vector) and " +
                                std::to_string(o.scale_block_stride) + " (block) need at least " +
                                std::to_string(last + 1) + (sb > 1 ? " codes of " + std::to_string(sb) + " bytes" : ""));
}

/// What the driver knows about one operand: its tables and, per vector, whether it holds a NaN
/// or Inf code or a NaN scale (its outputs go to the reference) and its scale codes' range.
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
};

Side make_side(const GemmOperand& o, bool is_b, bool flush) {
  Side s;
  s.op = &o;
  s.is_b = is_b;
  s.nb = o.blocks();
  s.tab = make_element_tables(o.format, flush);
  s.special.assign(o.rows, 0);
  s.smin.assign(o.rows, 255);
  s.smax.assign(o.rows, 0);
  if (any_scale_format(o)) s.sbytes = scale_code_bytes(*o.block_scale_format);
  const std::uint8_t mask = s.tab.code_mask;
  for (std::size_t r = 0; r < o.rows; ++r) {
    std::uint8_t all = 0;
    bool sp = false;
    for (std::size_t t = 0; t < o.k; ++t) {
      const std::uint8_t c = s.code(r, t);
      all |= c;
      sp |= s.tab.special[c];
    }
    if (all > mask)
      for (std::size_t t = 0; t < o.k; ++t)
        if (s.code(r, t) > mask)
          throw std::invalid_argument("gemm: operand " + side_name(is_b) + ": code " + std::to_string(s.code(r, t)) +
                                      " (vector " + std::to_string(r) + ", element " + std::to_string(t) +
                                      ") is out of range for " + std::string(o.format.name()));
    if (any_scale_format(o)) {  // the reference reads them; their range is checked here
      for (std::size_t b = 0; b < s.nb; ++b)
        if (const std::uint32_t x = s.scale_code(r, b); x > o.block_scale_format->code_mask())
          throw std::invalid_argument("gemm: operand " + side_name(is_b) + ": scale code " + std::to_string(x) +
                                      " (vector " + std::to_string(r) + ", block " + std::to_string(b) +
                                      ") is out of range for " + std::string(o.block_scale_format->name) + " (0.." +
                                      std::to_string(o.block_scale_format->code_mask()) + ")");
      s.special[r] = 1;
      s.smin[r] = s.smax[r] = 127;
      continue;
    }
    for (std::size_t b = 0; b < s.nb; ++b) {
      const std::uint8_t x = s.scale(r, b);
      if (o.scale_format == FormatId::e8m0 ? x == 0xFF : (x & 0x7F) == 0x7F) {
        sp = true;  // OCP MX 6.2: a NaN scale makes every element NaN (UE4M3: 0x7F, 0xFF)
        continue;
      }
      s.smin[r] = std::min<std::int32_t>(s.smin[r], x);
      s.smax[r] = std::max<std::int32_t>(s.smax[r], x);
    }
    s.special[r] = sp;
    if (s.smin[r] > s.smax[r]) s.smin[r] = s.smax[r] = 127;  // every scale NaN (special anyway)
  }
  int qmax = s.tab.parts[0].q;
  s.qmin = qmax;
  for (const Component& p : s.tab.parts) {
    s.qmin = std::min(s.qmin, p.q);
    qmax = std::max(qmax, p.q);
  }
  s.qspan = qmax - s.qmin;
  return s;
}

/// As dot_general() (dot.cpp's validate): with a runtime element, every product (element values
/// times scales 2^-127..2^127) and the sum of a vector's products must lie in the exact
/// accumulator's range, 2^-320 .. 2^430; a bias far from the default may leave it. The widest
/// block pair count times block length is the first block's (nb blocks of min(block, k)).
void check_runtime_range(const std::string& what, const GemmOperand& a, const GemmOperand& b) {
  const Format &fa = a.format, &fb = b.format;
  const std::size_t terms = a.blocks() * std::min(a.block, a.k);
  const int lo = fa.emin() - fa.man_bits + fb.emin() - fb.man_bits - 254;
  const int hi = element_emax(fa) + element_emax(fb) + 2 + 254 + static_cast<int>(std::bit_width(terms));
  if (lo < -320 || hi > 430)
    throw std::invalid_argument(what + ": the products of " + std::string(fa.name) + " and " + std::string(fb.name) +
                                " span 2^" + std::to_string(lo) + " to 2^" + std::to_string(hi) +
                                ", beyond the exact accumulator's 2^-320 to 2^430 (bias: choose one nearer the "
                                "default)");
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
  bool pairs = false;  // dot_pairs: output l is (l, l), at c[l]
  const TensorCoreModel* ue4m3 = nullptr;  // UE4M3 scales: the GST model that reads them
  // UE4M3 scales under exact or fp32-sequential: dot_general per output, each scale code c read
  // as the ue4m3 code c & 0x7F (as the GST models read it: 0x7F and 0xFF NaN).
  const Format* ue4m3_ref = nullptr;
  // GemmOperand::block_scale_format (any other scale format): dot_general per output with it.
  const Format* any_ref = nullptr;
  // mma_pairs: C of each pair (f32 codes), the accumulator before the first instruction; the
  // reference is then TensorCoreModel::mma (scaled: mma_scaled). Null for gemm / dot_pairs.
  const std::uint32_t* addend = nullptr;
  bool scaled = false;
};

/// Per-thread buffers for the reference's block lists.
struct RefScratch {
  std::vector<std::uint8_t> a, b;
  std::vector<BlockRef> ra, rb;
};

Result reference_output(const Problem& P, std::size_t i, std::size_t j, RefScratch& s) {
  s.a.resize(P.K);
  s.b.resize(P.K);
  for (std::size_t t = 0; t < P.K; ++t) {
    s.a[t] = P.a.code(i, t);
    s.b[t] = P.b.code(j, t);
  }
  s.ra.resize(P.nb);
  s.rb.resize(P.nb);
  for (std::size_t blk = 0; blk < P.nb; ++blk) {
    const std::size_t first = blk * P.block, n = std::min(P.block, P.K - first);
    s.ra[blk] = BlockRef{P.a.op->format.id(), P.a.scale(i, blk), std::span(s.a.data() + first, n), &P.a.op->format.format()};
    s.rb[blk] = BlockRef{P.b.op->format.id(), P.b.scale(j, blk), std::span(s.b.data() + first, n), &P.b.op->format.format()};
    if (P.ue4m3_ref) {
      s.ra[blk].scale &= 0x7F;
      s.rb[blk].scale &= 0x7F;
      s.ra[blk].scale_format = s.rb[blk].scale_format = P.ue4m3_ref;
    } else if (P.any_ref) {
      s.ra[blk].scale = P.a.scale_code(i, blk);
      s.rb[blk].scale = P.b.scale_code(j, blk);
      s.ra[blk].scale_format = s.rb[blk].scale_format = P.any_ref;
    }
  }
  if (P.addend) {  // mma_pairs: one mma per pair, C its addend (the flags are not used)
    const auto& tc = static_cast<const TensorCoreModel&>(*P.model);
    const std::uint32_t c = P.addend[P.pairs ? i : i * P.N + j];
    const FormatId fa = P.a.op->format.id(), fb = P.b.op->format.id();
    if (!P.scaled) return tc.mma(fa, s.a, fb, s.b, FormatId::f32, c);
    std::vector<std::uint8_t> sa(P.nb), sb(P.nb);
    for (std::size_t blk = 0; blk < P.nb; ++blk) {
      sa[blk] = P.a.scale(i, blk);
      sb[blk] = P.b.scale(j, blk);
    }
    return tc.mma_scaled(fa, s.a, fb, s.b, P.a.op->scale_format, P.block, sa, sb, FormatId::f32, c);
  }
  if (P.ue4m3) return P.ue4m3->dot_general_gst(s.ra, s.rb, FormatId::e4m3);
  return P.model->dot_general(s.ra, s.rb, P.ctx);
}

/// mma_pairs: C (f32 bits) as the tensor-core kernel's accumulator, kept * 2^qe with its sign
/// and kTcAccPresent in `state`; or kTcReference when the kernel does not take it: NaN, Inf or
/// a subnormal (the kernel's accumulator values are normal). `any_bits`: the model adds C as a
/// term of its first group (addend_in_group, first_group), which the kernel cuts at 2^(E - F)
/// from kept's own leading bit, so C may keep all 24 bits; otherwise (grid additions) C must lie
/// on the grid of p fraction bits.
void seed_tc_accumulator(std::uint32_t c, int p, bool any_bits, std::int32_t& kept, std::int32_t& qe,
                         std::uint32_t& state) {
  const std::uint32_t bexp = (c >> 23) & 0xFF, frac = c & 0x7FFFFF;
  const std::uint32_t sign = (c >> 31) ? kTcAccSign : 0;
  kept = 0;
  qe = 0;
  if (bexp == 0 && frac == 0) {
    state = kTcAccPresent | sign;
    return;
  }
  const int drop = any_bits ? 0 : 23 - p;  // bits of C's significand below the grid
  const std::uint32_t sig = frac | 0x800000u;
  if (bexp == 0xFF || bexp == 0 || drop < 0 || (drop > 0 && (sig & ((1u << drop) - 1)) != 0)) {
    state = kTcReference;
    return;
  }
  kept = static_cast<std::int32_t>(sig >> drop);
  qe = static_cast<int>(bexp) - 150 + drop;
  state = kTcAccPresent | sign;
}

/// Writes output (i, j) and ORs its flags into `any`.
void put(const Problem& P, std::size_t i, std::size_t j, Result r, Flags& any) {
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
bool fpu_default() {
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

Blocking blocking(const Problem& P, std::size_t mr, std::size_t nr, std::size_t mc, std::size_t nc, unsigned threads) {
  if (P.pairs) {  // blocks of pairs, several tiles each
    std::size_t pc = 16 * nr;
    while (pc > nr && (P.M + pc - 1) / pc < 2 * static_cast<std::size_t>(threads)) pc = (pc / 2 + nr - 1) / nr * nr;
    return Blocking{pc, pc, (P.M + pc - 1) / pc, 1};
  }
  mc = (mc + mr - 1) / mr * mr;
  nc = (nc + nr - 1) / nr * nr;
  // Smaller blocks when there are too few for the threads (never below one tile).
  auto count = [&] { return ((P.M + mc - 1) / mc) * ((P.N + nc - 1) / nc); };
  while (count() < 2 * static_cast<std::size_t>(threads)) {
    if (nc > nr && nc >= mc) nc = (nc / 2 + nr - 1) / nr * nr;
    else if (mc > mr) mc = (mc / 2 + mr - 1) / mr * mr;
    else if (nc > nr) nc = (nc / 2 + nr - 1) / nr * nr;
    else break;
  }
  return Blocking{mc, nc, (P.M + mc - 1) / mc, (P.N + nc - 1) / nc};
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

// ---- exact --------------------------------------------------------------------------------------

/// Unpacked of v * 2^unit (v != 0).
Unpacked unpacked_of(i128 v, int unit) {
  Unpacked u;
  u.cls = ValueClass::finite;
  u.sign = v < 0;
  const u128 m = v < 0 ? -static_cast<u128>(v) : static_cast<u128>(v);
  const std::uint64_t hi = static_cast<std::uint64_t>(m >> 64), lo = static_cast<std::uint64_t>(m);
  const int msb = hi ? 127 - std::countl_zero(hi) : 63 - std::countl_zero(lo);
  if (msb >= 63) {
    u.sig = static_cast<std::uint64_t>(m >> (msb - 63));
    u.sticky = msb > 63 && (m & ((u128{1} << (msb - 63)) - 1)) != 0;
  } else {
    u.sig = lo << (63 - msb);
  }
  u.exp = msb + unit;
  return u;
}

/// The exact sums of one block of outputs: packs the parts of A and B chunk by chunk and runs
/// the exact kernel; acc[(i - i0) * ldacc + (j - j0)] is the output's sum in units of
/// 2^unit(i, j) (exact_unit). Used by the exact model and for the tensor-core models' flags.
class ExactBlock {
 public:
  explicit ExactBlock(const Problem& P) : P_(P), mr_(P.kern->exact_mr), nr_(P.kern->exact_nr) {
    int pbits = 0;
    for (const Component& x : P.a.tab.parts)
      for (const Component& y : P.b.tab.parts) pbits = std::max(pbits, x.bits + y.bits);
    pair_bits_ = pbits;
    maxlen_ = std::size_t{1} << std::min(53 - pbits, 30);  // no partial sum of a segment reaches 2^53
    kc_ = 256;
  }

  /// Output (i, j)'s sum after run(i0, ..., j0, ...).
  i128 sum(std::size_t i, std::size_t j) const { return acc_[tiles_.at(i - i0_, j - j0_)]; }

  /// The output's sum is exact in 128 bits: its largest shift plus the widest product and the
  /// count of products stays below 2^125.
  bool fits(std::size_t i, std::size_t j) const {
    const int shift = (P_.a.smax[i] - P_.a.smin[i]) + (P_.b.smax[j] - P_.b.smin[j]) + P_.a.qspan + P_.b.qspan;
    return shift + pair_bits_ + static_cast<int>(std::bit_width(P_.K)) <= 124;
  }
  int unit(std::size_t i, std::size_t j) const {
    return (P_.a.smin[i] - 127) + (P_.b.smin[j] - 127) + P_.a.qmin + P_.b.qmin;
  }

  void run(std::size_t i0, std::size_t i1, std::size_t j0, std::size_t j1) {
    i0_ = i0;
    j0_ = j0;
    tiles_ = Tiles(P_.pairs, mr_, nr_, i1 - i0, j1 - j0);
    const Tiles& T = tiles_;
    acc_.assign(T.cells(), 0);
    const ExactFn fn = P_.pairs ? P_.kern->exact_pairs : P_.kern->exact;
    for (std::size_t ca = 0; ca < P_.a.tab.parts.size(); ++ca)
      for (std::size_t cb = 0; cb < P_.b.tab.parts.size(); ++cb)
        for (std::size_t t0 = 0; t0 < P_.K; t0 += kc_) {
          const std::size_t t1 = std::min(P_.K, t0 + kc_);
          // Segments: the chunk cut at block boundaries and at maxlen_.
          seg_.clear();
          for (std::size_t t = t0; t < t1;) {
            const std::size_t blk = t / P_.block;
            const std::size_t end = std::min({t1, (blk + 1) * P_.block, t + maxlen_});
            seg_.push_back({t, end, blk});
            t = end;
          }
          pack(P_.a, ca, i0, i1, t0, t1, T.mr, apack_, ra_);
          pack(P_.b, cb, j0, j1, t0, t1, T.nr, bpack_, rb_);
          const std::size_t len = t1 - t0, ns = seg_.size();
          segs_.resize(ns);
          T.each([&](std::size_t x, std::size_t y) {
            for (std::size_t s = 0; s < ns; ++s)
              segs_[s] = ExactSegment{static_cast<std::uint32_t>(seg_[s].end - seg_[s].begin),
                                      ra_.data() + (x * ns + s) * T.mr, rb_.data() + (y * ns + s) * T.nr};
            fn(ExactTile{apack_.data() + x * len * T.mr, bpack_.data() + y * len * T.nr, segs_.data(), ns,
                         acc_.data() + T.tile(x, y), T.ld});
          });
        }
  }

 private:
  struct Seg {
    std::size_t begin, end, blk;
  };

  /// Packs part `part` of rows r0..r1 (panels of w), elements t0..t1, as [panel][t][w], and
  /// each segment's shifts as [panel][segment][w].
  void pack(const Side& s, std::size_t part, std::size_t r0, std::size_t r1, std::size_t t0, std::size_t t1,
            std::size_t w, std::vector<double>& out, std::vector<std::int32_t>& shifts) const {
    const Component& c = s.tab.parts[part];
    const std::size_t panels = (r1 - r0 + w - 1) / w, len = t1 - t0, ns = seg_.size();
    out.assign(panels * len * w, 0.0);
    shifts.assign(panels * ns * w, 0);
    for (std::size_t p = 0; p < panels; ++p)
      for (std::size_t l = 0; l < w; ++l) {
        const std::size_t r = r0 + p * w + l;
        if (r >= r1) continue;
        double* o = out.data() + p * len * w + l;
        for (std::size_t t = t0; t < t1; ++t) o[(t - t0) * w] = c.n[s.code(r, t)];
        for (std::size_t x = 0; x < ns; ++x)
          shifts[(p * ns + x) * w + l] = (s.scale(r, seg_[x].blk) == 0xFF ? 0 : s.scale(r, seg_[x].blk) - s.smin[r]) +
                                         (c.q - s.qmin);
      }
  }

  const Problem& P_;
  std::size_t mr_, nr_;
  int pair_bits_ = 0;
  std::size_t maxlen_ = 0, kc_ = 0, i0_ = 0, j0_ = 0;
  Tiles tiles_{false, 1, 1, 0, 0};
  std::vector<i128> acc_;
  std::vector<Seg> seg_;
  std::vector<ExactSegment> segs_;
  std::vector<double> apack_, bpack_;
  std::vector<std::int32_t> ra_, rb_;
};

struct ExactWork {
  ExactWork(const Problem* p, Blocking b) : P(p), bl(b) {}
  const Problem* P;
  Blocking bl;
  RefScratch s;
  std::optional<ExactBlock> ex;
  void begin() { ex.emplace(*P); }
  void operator()(std::size_t w, Flags& any) {
    const Blocking::Range rg = bl.range(*P, w);  // (no structured bindings: lambdas capture these)
    const std::size_t i0 = rg.i0, i1 = rg.i1, j0 = rg.j0, j1 = rg.j1;
    ex->run(i0, i1, j0, j1);
    const Format& f32 = format(FormatId::f32);
    each_output(*P, i0, i1, j0, j1, [&](std::size_t i, std::size_t j) {
      const i128 v = ex->sum(i, j);
      if (P->a.special[i] || P->b.special[j] || !ex->fits(i, j) || v == 0)
        put(*P, i, j, reference_output(*P, i, j, s), any);  // specials, huge spreads, the sign of a zero
      else
        put(*P, i, j, round_pack(f32, unpacked_of(v, ex->unit(i, j)), P->ctx, ocp_dialect()), any);
    });
  }
};

// ---- fp32-sequential --------------------------------------------------------------------------

/// Whether the fp32-sequential kernel computes this problem (otherwise the reference). The
/// kernel needs (kernels.hpp) every element value exact in f32, every product of two exact and
/// normal (then every running block sum, a multiple of the products' quantum 2^(q_a + q_b), is
/// zero or normal: q_a + q_b >= -126), and no block sum reaching Inf or NaN (a NaN's exponent
/// field, moved by the block's scale, could look finite): block * max|a| * max|b| < 2^127.
/// Every named MX element format meets these (products 2^-32 .. 2^32); a runtime format of at
/// most 8 bits with a far bias, or e7m0, may not.
bool seq_kernel_fits(const Problem& P) {
  const ElementTables &ta = P.a.tab, &tb = P.b.tab;
  if (!ta.value_exact || !tb.value_exact) return false;
  if (P.a.qmin + P.b.qmin < -126) return false;
  return ta.max_abs * tb.max_abs * static_cast<double>(std::min(P.block, P.K)) < 0x1p127;
}

struct SeqWork {
  SeqWork(const Problem* p, Blocking b) : P(p), bl(b) {}
  const Problem* P;
  Blocking bl;
  RefScratch s;
  std::size_t kc = 256;
  std::vector<float> apack, bpack;
  std::vector<std::int32_t> xa, xb;
  std::vector<std::uint32_t> sum, acc, state;
  std::vector<SeqSegment> segs;
  struct Seg {
    std::size_t begin, end, blk;
  };
  std::vector<Seg> seg;
  bool fpu_ok = true;
  void begin() { fpu_ok = fpu_default(); }

  void pack(const Side& sd, std::size_t r0, std::size_t r1, std::size_t t0, std::size_t t1, std::size_t w,
            std::vector<float>& out, std::vector<std::int32_t>& x) const {
    const std::size_t panels = (r1 - r0 + w - 1) / w, len = t1 - t0, ns = seg.size();
    out.assign(panels * len * w, 0.0f);
    x.assign(panels * ns * w, 0);
    for (std::size_t p = 0; p < panels; ++p)
      for (std::size_t l = 0; l < w; ++l) {
        const std::size_t r = r0 + p * w + l;
        if (r >= r1) continue;
        float* o = out.data() + p * len * w + l;
        for (std::size_t t = t0; t < t1; ++t) o[(t - t0) * w] = sd.tab.value[sd.code(r, t)];
        for (std::size_t q = 0; q < ns; ++q) x[(p * ns + q) * w + l] = sd.scale(r, seg[q].blk) - 127;
      }
  }

  void operator()(std::size_t w, Flags& any) {
    const Blocking::Range rg = bl.range(*P, w);  // (no structured bindings: lambdas capture these)
    const std::size_t i0 = rg.i0, i1 = rg.i1, j0 = rg.j0, j1 = rg.j1;
    if (!fpu_ok) {
      each_output(*P, i0, i1, j0, j1, [&](std::size_t i, std::size_t j) { put(*P, i, j, reference_output(*P, i, j, s), any); });
      return;
    }
    const Kernels& K = *P->kern;
    const Tiles T(P->pairs, K.seq_mr, K.seq_nr, i1 - i0, j1 - j0);
    sum.assign(T.cells(), 0);
    acc.assign(T.cells(), 0);
    state.assign(T.cells(), 0);
    const SeqFn fn = (P->pairs ? K.seq_pairs : K.seq)[static_cast<int>(P->ctx.rounding)];
    for (std::size_t t0 = 0; t0 < P->K; t0 += kc) {
      const std::size_t t1 = std::min(P->K, t0 + kc);
      seg.clear();
      for (std::size_t t = t0; t < t1;) {
        const std::size_t blk = t / P->block;
        const std::size_t end = std::min(t1, (blk + 1) * P->block);
        seg.push_back({t, end, blk});
        t = end;
      }
      pack(P->a, i0, i1, t0, t1, T.mr, apack, xa);
      pack(P->b, j0, j1, t0, t1, T.nr, bpack, xb);
      const std::size_t len = t1 - t0, ns = seg.size();
      segs.resize(ns);
      T.each([&](std::size_t x, std::size_t y) {
        for (std::size_t q = 0; q < ns; ++q) {
          const bool ends = seg[q].end == std::min(P->K, (seg[q].blk + 1) * P->block);
          segs[q] = SeqSegment{static_cast<std::uint32_t>(seg[q].end - seg[q].begin), ends,
                               xa.data() + (x * ns + q) * T.mr, xb.data() + (y * ns + q) * T.nr};
        }
        const std::size_t at = T.tile(x, y);
        fn(SeqTile{apack.data() + x * len * T.mr, bpack.data() + y * len * T.nr, segs.data(), ns, sum.data() + at,
                   acc.data() + at, state.data() + at, T.ld});
      });
    }
    each_output(*P, i0, i1, j0, j1, [&](std::size_t i, std::size_t j) {
      const std::size_t at = T.at(i - i0, j - j0);
      if (P->a.special[i] || P->b.special[j] || (state[at] & kSeqReference))
        put(*P, i, j, reference_output(*P, i, j, s), any);
      else
        put(*P, i, j, Result{acc[at], static_cast<Flags>((state[at] & kSeqInexact) ? flag::inexact : 0)}, any);
    });
  }
};

// ---- tensor-core models -----------------------------------------------------------------------

/// The lanes the tensor-core kernel needs for this model and these formats: 32 or 64 bits, or 0
/// (no kernel: the reference). A group's sum is below G * T + 2^(F + 1) + G + 1, T the largest
/// product term in units of the quantum 2^(E - F): |N_a N_b| 2^(F - m_a - m_b) for the
/// operand-exponent reference, 2^(F + 1) for the product's own; 2^(F + 1) bounds the running
/// value's term, and each cut may round up by one unit.
int tc_lanes(const TensorCoreParams& p, const Side& a, const Side& b) {
  if (p.alignment_bits > 90 || p.scale_application == ScaleApplication::per_group) return 0;  // GST: gst_kernel_fits
  auto maxn = [](const Side& s) {
    std::int64_t m = 0;
    for (std::int32_t n : s.tab.tc_n) m = std::max<std::int64_t>(m, n < 0 ? -std::int64_t{n} : n);
    return m;
  };
  const int F = p.alignment_bits, c = F - (a.tab.man_bits + b.tab.man_bits);
  const i128 prod = static_cast<i128>(maxn(a)) * maxn(b);
  const i128 t = p.align_reference == AlignReference::product_exponent ? i128{1} << (F + 1)
                 : c >= 0                                              ? prod << c
                                                                       : (prod >> -c) + 1;
  const i128 g = p.group_size;
  const i128 bound = g * t + (i128{1} << (F + 1)) + g + 1;
  if (bound < (i128{1} << 31)) return 32;
  if (bound < (i128{1} << 62)) return 64;
  return 0;
}

struct TcWork {
  TcWork(const Problem* p, const TensorCoreParams* t, Blocking b, int l) : P(p), tp(t), bl(b), lanes(l) {}
  const Problem* P;
  const TensorCoreParams* tp;
  Blocking bl;
  int lanes;
  TcParams prm{};
  RefScratch s;
  std::optional<ExactBlock> ex;
  std::size_t kc = 0, ins = 0;
  bool fpu_ok = true;
  std::vector<std::int32_t> an, ae, bn, be, acc_kept, acc_qe, r_kept, r_qe;
  std::vector<std::uint8_t> as, bs;
  std::vector<std::uint32_t> state;
  std::vector<TcGroup> groups;
  std::vector<std::int64_t> pos;  // the chunk's positions in packed order: product k, or -1 (none)

  void begin() {
    ex.emplace(*P);
    fpu_ok = fpu_default();
    const std::size_t g = static_cast<std::size_t>(tp->group_size);
    ins = tp->product_order.empty() ? g : tp->product_order.size();  // the chunk's unit
    kc = std::max<std::size_t>(1, 256 / ins) * ins;
  }

  /// The positions and groups of the chunk of instructions starting at t0 .. t1 - 1
  /// (tensor_core.hpp steps 2-3): products permuted by product_order within each instruction;
  /// groups without a product left out.
  void layout(std::size_t t0, std::size_t t1) {
    pos.clear();
    groups.clear();
    const std::size_t g = static_cast<std::size_t>(tp->group_size), K = P->K;
    if (tp->product_order.empty()) {  // one instruction over all K products: k order
      for (std::size_t t = t0; t < t1; t += g) {
        const std::size_t e = std::min(t1, t + g);
        for (std::size_t k = t; k < e; ++k) pos.push_back(static_cast<std::int64_t>(k));
        groups.push_back(TcGroup{static_cast<std::uint32_t>(e - t), t == 0, e == K});
      }
      return;
    }
    const std::vector<int>& order = tp->product_order;
    for (std::size_t first = t0; first < t1; first += ins) {
      const std::size_t g0 = groups.size();
      for (std::size_t p0 = 0; p0 < ins; p0 += g) {
        std::size_t present = 0;
        for (std::size_t q = p0; q < p0 + g; ++q) present += first + static_cast<std::size_t>(order[q]) < K;
        if (!present) continue;  // no product in this group: skipped (step 2)
        for (std::size_t q = p0; q < p0 + g; ++q) {
          const std::size_t k = first + static_cast<std::size_t>(order[q]);
          pos.push_back(k < K ? static_cast<std::int64_t>(k) : -1);
        }
        groups.push_back(TcGroup{static_cast<std::uint32_t>(g), false, false});
      }
      groups[g0].starts = true;
      groups.back().ends = true;
    }
  }

  void pack(const Side& sd, std::size_t r0, std::size_t r1, std::size_t w, int lshift, std::vector<std::int32_t>& n,
            std::vector<std::int32_t>& e, std::vector<std::uint8_t>& sg) const {
    const std::size_t panels = (r1 - r0 + w - 1) / w, len = pos.size();
    n.assign(panels * len * w, 0);
    e.assign(panels * len * w, kZeroExponent);
    sg.assign(panels * len * w, kTcAbsent);
    for (std::size_t p = 0; p < panels; ++p)
      for (std::size_t l = 0; l < w; ++l) {
        const std::size_t r = r0 + p * w + l;
        const std::size_t base = p * len * w + l;
        for (std::size_t x = 0; x < len; ++x) {
          const std::size_t at = base + x * w;
          if (pos[x] < 0) continue;  // no product: n = 0, absent
          sg[at] = 0;
          if (r >= r1) continue;  // past the matrix: a +0 product
          const auto t = static_cast<std::size_t>(pos[x]);
          const std::uint8_t c = sd.code(r, t);
          n[at] = sd.tab.tc_n[c] * (std::int32_t{1} << lshift);
          sg[at] = sd.tab.sign[c];
          if (sd.tab.tc_n[c] != 0) e[at] = sd.tab.tc_e[c] + (sd.scale(r, t / P->block) - 127);
        }
      }
  }

  void operator()(std::size_t w, Flags& any) {
    const Blocking::Range rg = bl.range(*P, w);  // (no structured bindings: lambdas capture these)
    const std::size_t i0 = rg.i0, i1 = rg.i1, j0 = rg.j0, j1 = rg.j1;
    if (!fpu_ok) {
      each_output(*P, i0, i1, j0, j1, [&](std::size_t i, std::size_t j) { put(*P, i, j, reference_output(*P, i, j, s), any); });
      return;
    }
    ex->run(i0, i1, j0, j1);  // the exact sums, for the flags
    const Kernels& K = *P->kern;
    const Tiles T(P->pairs, K.tc_mr, K.tc_nr, i1 - i0, j1 - j0);
    for (auto* v : {&acc_kept, &acc_qe, &r_kept, &r_qe}) v->assign(T.cells(), 0);
    state.assign(T.cells(), 0);
    if (P->addend)  // mma_pairs: C is the accumulator before the first instruction
      each_output(*P, i0, i1, j0, j1, [&](std::size_t i, std::size_t j) {
        const std::size_t at = T.at(i - i0, j - j0);
        seed_tc_accumulator(P->addend[P->pairs ? i : i * P->N + j], prm.p, prm.addend_in_group && !prm.after,
                            acc_kept[at], acc_qe[at], state[at]);
      });
    const bool prodref = tp->align_reference == AlignReference::product_exponent;
    const TcFn fn = (P->pairs ? K.tc_pairs : K.tc)[prodref ? 1 : 0][tp->align_rounding == AlignRounding::nearest_even ? 1 : 0]
                                                   [lanes == 64 ? 1 : 0];
    const int lshift = prodref ? 0 : std::max(prm.c, 0);
    for (std::size_t t0 = 0; t0 < P->K; t0 += kc) {
      layout(t0, std::min(P->K, t0 + kc));
      pack(P->a, i0, i1, T.mr, lshift, an, ae, as);
      pack(P->b, j0, j1, T.nr, 0, bn, be, bs);
      const std::size_t len = pos.size();
      T.each([&](std::size_t x, std::size_t y) {
        const std::size_t ao = x * len * T.mr, bo = y * len * T.nr, at = T.tile(x, y);
        fn(TcTile{an.data() + ao, ae.data() + ao, as.data() + ao, bn.data() + bo, be.data() + bo, bs.data() + bo,
                  groups.data(), groups.size(), acc_kept.data() + at, acc_qe.data() + at, r_kept.data() + at,
                  r_qe.data() + at, state.data() + at, T.ld, &prm});
      });
    }
    each_output(*P, i0, i1, j0, j1, [&](std::size_t i, std::size_t j) {
      const std::size_t at = T.at(i - i0, j - j0);
      if (P->a.special[i] || P->b.special[j] || (state[at] & kTcReference) || !ex->fits(i, j))
        put(*P, i, j, reference_output(*P, i, j, s), any);
      else
        put(*P, i, j, finish(i, j, at), any);
    });
  }

  /// The accumulator as the f32 code, with the flags against the exact sum (tensor_core.hpp).
  Result finish(std::size_t i, std::size_t j, std::size_t at) const {
    const bool neg = state[at] & kTcAccSign;
    const auto k = static_cast<std::uint32_t>(acc_kept[at]);
    const i128 v = ex->sum(i, j);
    if (k == 0) {
      const std::uint32_t code = neg ? 0x80000000u : 0;
      return Result{code, static_cast<Flags>(v != 0 ? (flag::inexact | flag::underflow) : 0)};
    }
    const int msb = static_cast<int>(std::bit_width(k)) - 1;
    const int lead = acc_qe[at] + msb;
    const std::uint32_t mant = msb <= 23 ? k << (23 - msb) : k >> (msb - 23);  // kept = 2^24 at most: exact
    const std::uint32_t code = (neg ? 0x80000000u : 0) | static_cast<std::uint32_t>(lead + 127) << 23 | (mant & 0x7FFFFF);
    bool exact = false;
    if (v != 0) {
      const Unpacked u = unpacked_of(v, ex->unit(i, j));
      exact = !u.sticky && u.sign == neg && u.exp == lead && u.sig == (static_cast<std::uint64_t>(k) << (63 - msb));
    }
    return Result{code, static_cast<Flags>(exact ? 0 : flag::inexact)};
  }
};

// ---- GST-FDPA (blackwell-mxf4, blackwell-nvf4) -------------------------------------------------

/// Whether the GST kernel computes this problem (ScaleApplication::per_group; otherwise the
/// reference, which refuses what DotGeneral refuses). It needs E2M1-like operands of one part
/// each, whole groups (k a multiple of the block, the block a multiple of scale_group), the f32
/// grid with RZ (23 bits), and these bounds, with q_a + q_b the products' quantum (E2M1: -2):
///  - a group's sum S = sum N_a N_b over scale_group products, |S| <= G max|N_a| max|N_b| (E2M1:
///    16 * 12 * 12 = 2304 < 2^12), below 2^24, so that float multiply-adds are exact;
///  - in units of the quantum 2^(E - F) with E >= x_a + x_b, a group's cut term is at most
///    |S| 2^(F + q_a + q_b) (its offer is E's floor), C's at most 2^24 2^(F - 23) (C's exponent
///    is E's floor), so the instruction's sum is below
///    (group_size / G) * max|S| * 2^max(F + q_a + q_b, 0) + 2^(24 + max(F - 23, 0)); with the
///    named models' F = 35, 4 groups: 4 * 2304 * 2^33 + 2^36 < 2^47, far below the 2^62 that
///    64-bit lanes and flog2 take (UE4M3 scales: |S| times 15 * 15 and 2^-6, below 2^55).
bool gst_kernel_fits(const TensorCoreParams& p, const Problem& P) {
  if (p.scale_application != ScaleApplication::per_group || p.f32.fraction_bits != 23 || p.f32.mode != Rounding::rz ||
      !p.product_order.empty() || !p.addend_in_group || p.addend_stage != AddendStage::first_group)
    return false;
  const std::size_t G = static_cast<std::size_t>(p.scale_group), L = static_cast<std::size_t>(p.group_size);
  if (P.a.op->format != FormatId::e2m1 || P.b.op->format != FormatId::e2m1 || P.K % P.block != 0 ||
      P.block % G != 0 || G != 16 || L % G != 0 || L / G > 64 || p.alignment_bits > 200)
    return false;
  if (P.a.tab.parts.size() != 1 || P.b.tab.parts.size() != 1) return false;
  auto maxn = [](const Side& s) {
    double m = 0;
    for (double n : s.tab.parts[0].n) m = std::max(m, n < 0 ? -n : n);
    return static_cast<i128>(m);
  };
  const i128 smax = static_cast<i128>(G) * maxn(P.a) * maxn(P.b);
  if (smax >= (i128{1} << 24)) return false;
  // UE4M3: S n_a n_b with 4-bit significands (E2M1: 2304 * 225 < 2^19); the exact sum in 64-bit
  // lanes, each group's S n_a n_b shifted by x_a + x_b - 6 + 18 in 0 .. 28 (x = the e4m3
  // exponents, -6 .. 8), stays below 2^62 for k / 16 groups.
  const bool ue4m3 = P.a.op->scale_format == FormatId::e4m3;
  const i128 sn = ue4m3 ? smax * 15 * 15 : smax;
  if (ue4m3 && static_cast<i128>(P.K / G) * (sn << 28) >= (i128{1} << 62)) return false;
  const int pl = std::max(p.alignment_bits + P.a.tab.parts[0].q + P.b.tab.parts[0].q, 0);
  const int cl = std::max(p.alignment_bits - 23, 0);
  if (pl > 62 || cl > 36) return false;
  const i128 bound = static_cast<i128>(L / G) * (sn << pl) + (i128{1} << (24 + cl));
  return bound < (i128{1} << 62);
}

struct GstWork {
  GstWork(const Problem* p, const TensorCoreParams* t, Blocking b) : P(p), tp(t), bl(b) {}
  const Problem* P;
  const TensorCoreParams* tp;
  Blocking bl;
  GstParams prm{};
  RefScratch s;
  std::optional<ExactBlock> ex;
  std::size_t kc = 0;
  bool fpu_ok = true;
  std::vector<float> av, bv;
  std::vector<std::int32_t> am, ax, an, bm, bx, bn;
  std::vector<std::uint32_t> acc, state;
  std::vector<std::int64_t> exact;  // UE4M3: the exact sums, in units of 2^(q_a + q_b - xo)
  std::array<std::int32_t, 256> sn{}, sx{};  // per scale code: significand n and exponent x

  void begin() {
    if (!prm.exact) ex.emplace(*P);
    for (int c = 0; c < 256; ++c) {
      if (!P->ue4m3) {  // UE8M0: 2^(c - 127)
        sn[c] = 1;
        sx[c] = c - 127;
        continue;
      }
      // UE4M3: the e4m3 value of c & 0x7F = n * 2^(x - 3), x clamped at -6 (run_gst's
      // group_scale); NaN codes never reach the kernel (the row is special).
      const Unpacked u = unpack(format(FormatId::e4m3), static_cast<std::uint64_t>(c & 0x7F));
      if (u.cls != ValueClass::finite) continue;  // zero (n = 0) or NaN
      sx[c] = std::max(u.exp, -6);
      sn[c] = static_cast<std::int32_t>(u.sig >> (63 - 3 - (u.exp - sx[c])));
    }
    fpu_ok = fpu_default();
    const std::size_t L = static_cast<std::size_t>(tp->group_size);
    kc = std::max<std::size_t>(1, 256 / L) * L;  // whole instructions
  }

  /// Rows r0 .. r1 - 1 (panels of w, zeros past r1), elements t0 .. t1 - 1: the values as
  /// [panel][t][w], the group masks, scale exponents and significands as [panel][group][w].
  void pack(const Side& sd, std::size_t r0, std::size_t r1, std::size_t w, std::size_t t0, std::size_t t1,
            std::vector<float>& v, std::vector<std::int32_t>& m, std::vector<std::int32_t>& x,
            std::vector<std::int32_t>& ns) const {
    const std::size_t panels = (r1 - r0 + w - 1) / w, len = t1 - t0, ng = len / 16;
    v.assign(panels * len * w, 0.0f);
    m.assign(panels * ng * w, 0);
    x.assign(panels * ng * w, 0);
    ns.assign(panels * ng * w, 0);
    const Component& part = sd.tab.parts[0];
    for (std::size_t p = 0; p < panels; ++p)
      for (std::size_t l = 0; l < w; ++l) {
        const std::size_t r = r0 + p * w + l;
        if (r >= r1) continue;
        for (std::size_t gi = 0; gi < ng; ++gi) {
          std::uint32_t mask = 0;
          for (std::size_t q = 0; q < 16; ++q) {
            const std::size_t t = t0 + gi * 16 + q;
            const std::uint8_t c = sd.code(r, t);
            const double n = part.n[c];
            v[(p * len + gi * 16 + q) * w + l] = static_cast<float>(n);
            mask |= (n != 0 ? 1u : 0u) << q | static_cast<std::uint32_t>(sd.tab.sign[c]) << (16 + q);
          }
          m[(p * ng + gi) * w + l] = static_cast<std::int32_t>(mask);
          const std::uint8_t sc = sd.scale(r, (t0 + gi * 16) / P->block);
          x[(p * ng + gi) * w + l] = sx[sc];
          ns[(p * ng + gi) * w + l] = sn[sc];
        }
      }
  }

  void operator()(std::size_t w, Flags& any) {
    const Blocking::Range rg = bl.range(*P, w);  // (no structured bindings: lambdas capture these)
    const std::size_t i0 = rg.i0, i1 = rg.i1, j0 = rg.j0, j1 = rg.j1;
    if (!fpu_ok) {
      each_output(*P, i0, i1, j0, j1, [&](std::size_t i, std::size_t j) { put(*P, i, j, reference_output(*P, i, j, s), any); });
      return;
    }
    if (ex) ex->run(i0, i1, j0, j1);  // the exact sums, for the flags (UE8M0; UE4M3: the kernel's)
    const Kernels& K = *P->kern;
    const Tiles T(P->pairs, K.gst_mr, K.gst_nr, i1 - i0, j1 - j0);
    if (prm.exact) exact.assign(T.cells(), 0);
    acc.assign(T.cells(), 0);  // +0: no C (kernel_api.hpp)
    state.assign(T.cells(), 0);
    if (P->addend)  // mma_pairs: C is the first instruction's C (NaN and Inf: the reference)
      each_output(*P, i0, i1, j0, j1, [&](std::size_t i, std::size_t j) {
        const std::size_t at = T.at(i - i0, j - j0);
        const std::uint32_t c = P->addend[P->pairs ? i : i * P->N + j];
        acc[at] = c;
        if (((c >> 23) & 0xFF) == 0xFF) state[at] = kGstReference;
      });
    const GstFn fn = P->pairs ? K.gst_pairs : K.gst;
    for (std::size_t t0 = 0; t0 < P->K; t0 += kc) {
      const std::size_t t1 = std::min(P->K, t0 + kc), len = t1 - t0, ng = len / 16;
      pack(P->a, i0, i1, T.mr, t0, t1, av, am, ax, an);
      pack(P->b, j0, j1, T.nr, t0, t1, bv, bm, bx, bn);
      T.each([&](std::size_t x, std::size_t y) {
        const std::size_t ao = x * len * T.mr, bo = y * len * T.nr, ag = x * ng * T.mr, bg = y * ng * T.nr;
        const std::size_t at = T.tile(x, y);
        fn(GstTile{av.data() + ao, bv.data() + bo, am.data() + ag, ax.data() + ag, bm.data() + bg, bx.data() + bg,
                   an.data() + ag, bn.data() + bg, ng, acc.data() + at, state.data() + at,
                   prm.exact ? exact.data() + at : nullptr, T.ld, &prm});
      });
    }
    each_output(*P, i0, i1, j0, j1, [&](std::size_t i, std::size_t j) {
      const std::size_t at = T.at(i - i0, j - j0);
      if (P->a.special[i] || P->b.special[j] || (state[at] & kGstReference) || (ex && !ex->fits(i, j)))
        put(*P, i, j, reference_output(*P, i, j, s), any);
      else
        put(*P, i, j, finish(i, j, at), any);
    });
  }

  /// The f32 code with the flags against the exact sum (as run_gst: inexact when they differ,
  /// underflow too when the result is zero or subnormal).
  Result finish(std::size_t i, std::size_t j, std::size_t at) const {
    const std::uint32_t code = acc[at];
    const i128 v = ex ? ex->sum(i, j) : i128{exact[at]};
    const int unit = ex ? ex->unit(i, j) : P->a.tab.parts[0].q + P->b.tab.parts[0].q - prm.xo;
    const std::uint32_t mag = code & 0x7FFFFFFF;
    if (mag == 0) return Result{code, static_cast<Flags>(v != 0 ? (flag::inexact | flag::underflow) : 0)};
    const std::uint32_t bexp = mag >> 23;
    const std::uint32_t k = (mag & 0x7FFFFF) | (bexp ? 0x800000u : 0);
    const int msb = static_cast<int>(std::bit_width(k)) - 1;
    const int lead = static_cast<int>(std::max<std::uint32_t>(bexp, 1)) - 150 + msb;
    bool same = false;
    if (v != 0) {
      const Unpacked u = unpacked_of(v, unit);
      same = !u.sticky && u.sign == ((code >> 31) != 0) && u.exp == lead &&
              u.sig == (static_cast<std::uint64_t>(k) << (63 - msb));
    }
    if (same) return Result{code, 0};
    return Result{code, static_cast<Flags>(flag::inexact | (bexp == 0 ? flag::underflow : 0))};
  }
};

// ---- kernels by instruction set -----------------------------------------------------------------

const Kernels& kernels_for(GemmKernel k) {
  switch (k) {
    case GemmKernel::avx512: return kernels_avx512();
    case GemmKernel::avx2: return kernels_avx2();
    default: return kernels_portable();
  }
}

}  // namespace

std::optional<FormatId> gemm_scale_format(const ScaleFormat& sf) {
  if (sf.is_e8m0()) return FormatId::e8m0;
  if (sf == ScaleFormat(FormatId::e4m3) || sf == ScaleFormat(ue4m3_format())) return FormatId::e4m3;
  return std::nullopt;
}

GemmOperand with_scale_format(GemmOperand op, const ScaleFormat& sf) {
  if (const std::optional<FormatId> id = gemm_scale_format(sf)) {
    op.scale_format = *id;
    op.block_scale_format = nullptr;
  } else {
    op.block_scale_format = &sf.format();
  }
  return op;
}

const char* name(GemmKernel k) {
  switch (k) {
    case GemmKernel::reference: return "reference";
    case GemmKernel::portable: return "portable";
    case GemmKernel::avx2: return "avx2";
    case GemmKernel::avx512: return "avx512";
  }
  return "?";
}

bool gemm_kernel_supported(GemmKernel k) {
  switch (k) {
    case GemmKernel::reference:
    case GemmKernel::portable: return true;
    case GemmKernel::avx2: return isa_supported(Isa::avx2) && __builtin_cpu_supports("fma");
    case GemmKernel::avx512: return isa_supported(Isa::avx512) && __builtin_cpu_supports("fma");
  }
  return false;
}

std::span<const GemmKernel> supported_gemm_kernels() {
  static const std::vector<GemmKernel> v = [] {
    std::vector<GemmKernel> r;
    for (GemmKernel k : {GemmKernel::reference, GemmKernel::portable, GemmKernel::avx2, GemmKernel::avx512})
      if (gemm_kernel_supported(k)) r.push_back(k);
    return r;
  }();
  return v;
}

GemmKernel default_gemm_kernel() { return supported_gemm_kernels().back(); }

GemmOperand gemm_rows(const ElementFormat& format, std::size_t rows, std::size_t k, std::size_t block,
                      std::span<const std::uint8_t> codes, std::span<const std::uint8_t> scales) {
  GemmOperand o;
  o.format = format;
  o.rows = rows;
  o.k = k;
  o.block = block;
  o.codes = codes;
  o.row_stride = k;
  o.k_stride = 1;
  o.scales = scales;
  o.scale_row_stride = o.blocks();
  o.scale_block_stride = 1;
  return o;
}

GemmOperand gemm_columns(const ElementFormat& format, std::size_t k, std::size_t columns, std::size_t block,
                         std::span<const std::uint8_t> codes, std::span<const std::uint8_t> scales) {
  GemmOperand o;
  o.format = format;
  o.rows = columns;
  o.k = k;
  o.block = block;
  o.codes = codes;
  o.row_stride = 1;
  o.k_stride = columns;
  o.scales = scales;
  o.scale_row_stride = 1;
  o.scale_block_stride = columns;
  return o;
}

Flags gemm_detail::gemm_on(const Kernels* kern, bool pairs, const GemmOperand& a, const GemmOperand& b,
                           const GemmOptions& options, std::span<std::uint32_t> c, std::span<Flags> flags,
                           const MmaAddend* mma) {
  check_shape(a, false);
  check_shape(b, true);
  if (a.k != b.k)
    throw std::invalid_argument("gemm: A's vectors hold " + std::to_string(a.k) + " codes and B's " + std::to_string(b.k) +
                                "; they need the same k");
  if (a.block != b.block)
    throw std::invalid_argument("gemm: A's blocks hold " + std::to_string(a.block) + " codes and B's " +
                                std::to_string(b.block) + "; they need the same block size");
  std::size_t mn = 0;
  if (pairs) {
    if (a.rows != b.rows)
      throw std::invalid_argument("dot_pairs: A holds " + std::to_string(a.rows) + " vectors and B " +
                                  std::to_string(b.rows) + "; they need the same number (one per pair)");
    mn = a.rows;
  } else if (!mul_add(a.rows, b.rows, 0, mn)) {
    mn = ~std::size_t{0};
  }
  const std::string what = pairs ? "dot_pairs" : "gemm";
  const std::string shape = pairs ? std::to_string(mn) + " pairs" : "M x N = " + std::to_string(a.rows) + " x " + std::to_string(b.rows);
  if (c.size() < mn)
    throw std::invalid_argument(what + ": c holds " + std::to_string(c.size()) + " entries; " + shape + " needs " +
                                std::to_string(mn));
  if (!flags.empty() && flags.size() < mn)
    throw std::invalid_argument(what + ": flags holds " + std::to_string(flags.size()) + " entries; " + shape +
                                " needs " + std::to_string(mn) + " (or pass none)");
  const AccumulationModel& model = options.model ? *options.model : exact_accumulation();

  const auto* tc = dynamic_cast<const TensorCoreModel*>(&model);
  const bool exact_or_seq = &model == &exact_accumulation() || &model == &fp32_sequential_accumulation();
  if (any_scale_format(a) || any_scale_format(b)) {
    const std::string na = any_scale_format(a) ? std::string(a.block_scale_format->name) : std::string(format(a.scale_format).name);
    const std::string nb = any_scale_format(b) ? std::string(b.block_scale_format->name) : std::string(format(b.scale_format).name);
    if (!any_scale_format(a) || !any_scale_format(b) || !(*a.block_scale_format == *b.block_scale_format))
      throw std::invalid_argument(what + ": A's scales are " + na + " and B's " + nb + "; they need the same scale format");
    if (!exact_or_seq)
      throw std::invalid_argument(what + ": the accumulation model " + std::string(model.name()) + " reads E8M0 (or UE4M3) " +
                                  "block scales; scale format " + na + " takes exact or fp32-sequential");
    if (mma) throw std::invalid_argument(what + ": block_scale_format " + na + " is not a tensor-core scale format");
  } else if (a.scale_format != b.scale_format)
    throw std::invalid_argument(what + ": A's scales are " + std::string(format(a.scale_format).name) + " and B's " +
                                std::string(format(b.scale_format).name) + "; they need the same scale format");
  if (!any_scale_format(a) && a.scale_format == FormatId::e4m3 && !exact_or_seq &&
      !(tc && tc->params().scale_application == ScaleApplication::per_group))
    throw std::invalid_argument(what + ": UE4M3 (e4m3) scales need a model with per-group scales (" +
                                "blackwell-mxf4, blackwell-nvf4), or exact or fp32-sequential, not " +
                                std::string(model.name()));
  const bool runtime = !a.format.is_named() || !b.format.is_named();
  if (runtime && &model != &exact_accumulation() && &model != &fp32_sequential_accumulation())
    throw std::invalid_argument(what + ": the accumulation model " + std::string(model.name()) +
                                " models hardware for the named element formats; a runtime element (" +
                                std::string((a.format.is_named() ? b : a).format.name()) +
                                ") takes exact or fp32-sequential");
  // The kernels' accumulator range for runtime elements with E8M0 (or UE4M3) scales; any other
  // scale format goes to dot_general per output, which checks its own (wider) range.
  if (runtime && !any_scale_format(a)) check_runtime_range(what, a, b);
  Problem P;
  // GST (run_gst) reads every element as it is: flush_subnormal_inputs does not apply.
  const bool flush = tc && tc->params().flush_subnormal_inputs &&
                     tc->params().scale_application != ScaleApplication::per_group;
  P.a = make_side(a, false, flush);
  P.b = make_side(b, true, flush);
  P.M = a.rows;
  P.N = b.rows;
  P.K = a.k;
  P.block = a.block;
  P.nb = a.blocks();
  P.model = &model;
  // As dot_general(): the output is an f32, where by_destination means none (SEMANTICS 4.1).
  P.ctx = resolve(ocp_dialect(), FormatId::f32, options.out);
  P.c = c.data();
  P.flags = flags.empty() ? nullptr : flags.data();
  P.kern = kern;
  P.pairs = pairs;
  if (any_scale_format(a)) {
    P.any_ref = a.block_scale_format;
  } else if (a.scale_format == FormatId::e4m3) {
    P.ue4m3 = tc;
    if (exact_or_seq) {
      P.ue4m3_ref = &ue4m3_format();
    }
  }
  if (mma) {
    P.addend = mma->c.data();
    P.scaled = mma->scaled;
  }
  const unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());

  const bool is_exact = &model == &exact_accumulation();
  // fp32-sequential has kernels for every deterministic mode (rs: the reference, with ctx.rbits).
  const bool is_seq = &model == &fp32_sequential_accumulation() && options.out.rounding != Rounding::rs &&
                      seq_kernel_fits(P);
  const int lanes = tc ? tc_lanes(tc->params(), P.a, P.b) : 0;
  const bool is_gst = tc && gst_kernel_fits(tc->params(), P);
  // UE4M3 scales under exact or fp32-sequential: the kernels read E8M0 scales (powers of two);
  // the reference takes the scale format (BLOCKS.md 5).
  if (!P.kern || P.ue4m3_ref || P.any_ref || (!is_exact && !is_seq && !is_gst && lanes == 0))
    return parallel(threads, P.M, ReferenceWork(&P));
  if (is_gst) {
    const TensorCoreParams& tp = tc->params();
    GstWork w(&P, &tp, blocking(P, P.kern->gst_mr, P.kern->gst_nr, 64, 128, threads));
    w.prm.F = tp.alignment_bits;
    w.prm.gpi = tp.group_size / tp.scale_group;
    const int pq = tp.alignment_bits + P.a.tab.parts[0].q + P.b.tab.parts[0].q;  // F + q_a + q_b
    w.prm.pl = std::max(pq, 0);
    w.prm.pr = std::max(-pq, 0);
    w.prm.cl = std::max(tp.alignment_bits - 23, 0);
    w.prm.cr = std::max(23 - tp.alignment_bits, 0);
    w.prm.zexp = tp.zero_exponent ? *tp.zero_exponent : kZeroExponent;
    w.prm.exact = P.ue4m3 != nullptr;  // UE4M3: the kernel keeps the exact sums (ExactBlock reads E8M0)
    w.prm.qoff = P.ue4m3 ? -6 : 0;
    w.prm.xo = 18;
    return parallel(threads, w.bl.items(), w);
  }
  if (is_exact) {
    const Blocking bl = blocking(P, P.kern->exact_mr, P.kern->exact_nr, 64, 96, threads);
    return parallel(threads, bl.items(), ExactWork(&P, bl));
  }
  if (is_seq) {
    const Blocking bl = blocking(P, P.kern->seq_mr, P.kern->seq_nr, 64, 128, threads);
    return parallel(threads, bl.items(), SeqWork(&P, bl));
  }
  const TensorCoreParams& tp = tc->params();
  TcWork w(&P, &tp, blocking(P, P.kern->tc_mr, P.kern->tc_nr, 64, 128, threads), lanes);
  w.prm.F = tp.alignment_bits;
  w.prm.p = tp.f32.fraction_bits;
  w.prm.emin = -126;
  w.prm.emax = 127;
  w.prm.mode = tp.f32.mode;
  w.prm.addend_mode = tp.f32.addend_mode;
  w.prm.addend_in_group = tp.addend_in_group;
  w.prm.after = tp.addend_stage == AddendStage::after_products;
  const int mamb = a.format.format().man_bits + b.format.format().man_bits;
  w.prm.mamb = mamb;
  w.prm.c = tp.alignment_bits - mamb;
  w.prm.cr = std::max(-w.prm.c, 0);
  w.prm.zfloor = tp.zero_exponent ? *tp.zero_exponent : kZeroExponent;
  return parallel(threads, w.bl.items(), w);
}

Flags gemm(const GemmOperand& a, const GemmOperand& b, const GemmOptions& options, std::span<std::uint32_t> c,
           std::span<Flags> flags) {
  const GemmKernel kernel = options.kernel.value_or(default_gemm_kernel());
  if (!gemm_kernel_supported(kernel))
    throw std::invalid_argument(std::string("gemm: this CPU cannot run the ") + name(kernel) + " kernel");
  return gemm_detail::gemm_on(kernel == GemmKernel::reference ? nullptr : &kernels_for(kernel), false, a, b, options, c,
                              flags);
}

Flags dot_pairs(const GemmOperand& a, const GemmOperand& b, const GemmOptions& options, std::span<std::uint32_t> c,
                std::span<Flags> flags) {
  const GemmKernel kernel = options.kernel.value_or(default_gemm_kernel());
  if (!gemm_kernel_supported(kernel))
    throw std::invalid_argument(std::string("dot_pairs: this CPU cannot run the ") + name(kernel) + " kernel");
  return gemm_detail::gemm_on(kernel == GemmKernel::reference ? nullptr : &kernels_for(kernel), true, a, b, options, c,
                              flags);
}


void mma_pairs(const GemmOperand& a, const GemmOperand& b, const TensorCoreModel& model, bool scaled,
               std::span<const std::uint32_t> c, std::span<std::uint32_t> d, unsigned threads,
               std::optional<GemmKernel> kernel) {
  const std::size_t n = a.rows;
  if (c.size() < n || d.size() < n)
    throw std::invalid_argument("mma_pairs: C holds " + std::to_string(c.size()) + " and D " + std::to_string(d.size()) +
                                " codes; " + std::to_string(n) + " pairs need that many each");
  if (!a.format.is_named() || !b.format.is_named())
    throw std::invalid_argument("mma_pairs: the tensor-core models take the named element formats, not " +
                                std::string((a.format.is_named() ? b : a).format.name()));
  if (!scaled)  // one block of unit scales per vector: the products are the elements' own
    for (const GemmOperand* o : {&a, &b}) {
      if (o->block != o->k)
        throw std::invalid_argument("mma_pairs: an unscaled operand is one block of k = " + std::to_string(o->k) +
                                    " codes, not blocks of " + std::to_string(o->block));
      for (std::size_t r = 0; r < o->rows; ++r)
        if (o->scales.size() > r * o->scale_row_stride && o->scales[r * o->scale_row_stride] != 127)
          throw std::invalid_argument("mma_pairs: an unscaled operand's scale codes are 127 (1.0)");
    }
  // The model's own checks of the formats, scales and block, once, on a zero line.
  {
    const std::vector<std::uint8_t> za(a.k, 0), zb(b.k, 0);
    if (scaled) {
      const std::size_t nb = a.blocks();
      const std::vector<std::uint8_t> s1(nb, a.scale_format == FormatId::e4m3 ? 0x38 : 127);
      (void)model.mma_scaled(a.format.id(), za, b.format.id(), zb, a.scale_format, a.block, s1, s1, FormatId::f32, 0);
    } else {
      (void)model.mma(a.format.id(), za, b.format.id(), zb, FormatId::f32, 0);
    }
  }
  GemmOptions o;
  o.model = &model;
  o.threads = threads;
  const GemmKernel k = kernel.value_or(default_gemm_kernel());
  if (!gemm_kernel_supported(k))
    throw std::invalid_argument(std::string("mma_pairs: this CPU cannot run the ") + name(k) + " kernel");
  const gemm_detail::MmaAddend add{c, scaled};
  gemm_detail::gemm_on(k == GemmKernel::reference ? nullptr : &kernels_for(k), true, a, b, o, d, {},
                       &add);
}

}  // namespace softmx
