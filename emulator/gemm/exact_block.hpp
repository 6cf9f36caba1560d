// emulator/gemm/exact_block.hpp: the exact sums of a block of outputs (ExactBlock), which the
// exact model's driver rounds and the tensor-core and GST drivers compare with for the flags,
// and the exact helpers they share (internal).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "dot/wide_accumulator.hpp"
#include "gemm/driver.hpp"

namespace softmx::gemm_detail {

/// Adds v * 2^unit exactly to w (|v| < 2^127; unit within the accumulator's range, as every
/// exact kernel's unit is: the products' own, check_runtime_range).
inline void add_exact_sum(detail::WideAccumulator& w, i128 v, int unit) {
  const bool neg = v < 0;
  const u128 m = neg ? -static_cast<u128>(v) : static_cast<u128>(v);
  w.add(neg, static_cast<std::uint64_t>(m), unit);
  w.add(neg, static_cast<std::uint64_t>(m >> 64), unit + 64);
}

/// Adds a finite value (zero: nothing) exactly to w.
inline void add_exact_value(detail::WideAccumulator& w, const Unpacked& u) {
  if (u.cls != ValueClass::finite) return;
  const int tz = std::countr_zero(u.sig);
  w.add(u.sign, u.sig >> tz, u.exp - 63 + tz);
}

/// Unpacked of v * 2^unit (v != 0).
inline Unpacked unpacked_of(i128 v, int unit) {
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
    pair_bits_ = pbits + P.a.sbits + P.b.sbits;  // scale significands folded in (exact_scales_fit)
    pbits = pair_bits_;
    // No partial sum of a segment reaches 2^51 (each product is below 2^pbits): the kernel's
    // lanes hold them exactly on top of 1.5 * 2^52 (exact_tile.hpp).
    maxlen_ = std::size_t{1} << std::min(51 - pbits, 30);
    kc_ = 256;
  }

  /// Output (i, j)'s sum after run(i0, ..., j0, ...).
  i128 sum(std::size_t i, std::size_t j) const {
    const std::size_t at = tiles_.at(i - i0_, j - j0_);
    if (narrow_) return static_cast<i128>(static_cast<std::int64_t>(lo_[at]));
    return static_cast<i128>((static_cast<u128>(static_cast<std::uint64_t>(hi_[at])) << 64) | lo_[at]);
  }

  /// Whether the last run() kept one int64 per output (narrow()); then narrow_row(i)[j - j0] is
  /// output (i, j)'s sum as an int64's bits (not in pairs mode).
  bool is_narrow() const { return narrow_; }
  const std::uint64_t* narrow_row(std::size_t i) const { return lo_.data() + tiles_.at(i - i0_, 0); }

  /// The output's sum is exact in 128 bits: its largest shift plus the widest product and the
  /// count of products stays below 2^125.
  bool fits(std::size_t i, std::size_t j) const {
    const int shift = (P_.a.smax[i] - P_.a.smin[i]) + (P_.b.smax[j] - P_.b.smin[j]) + P_.a.qspan + P_.b.qspan;
    return shift + pair_bits_ + static_cast<int>(std::bit_width(P_.K)) <= 124;
  }
  int unit(std::size_t i, std::size_t j) const {
    return (P_.a.smin[i] - 127) + (P_.b.smin[j] - 127) + P_.a.qmin + P_.b.qmin;
  }

  /// Whether every output of rows i0..i1-1 and columns j0..j1-1 has its whole sum below 2^62
  /// in magnitude, in any order of its additions: each product term |N_a N_b| 2^sh is below
  /// 2^(pair_bits + sh), sh (ra + rb, the shift kernel_api.hpp's ExactSegment gives it) is at
  /// most the spread of the row's scales plus its parts' quantum spread, the same of the
  /// column's (fits()'s shift), and there are K terms: pair_bits + shift + bit_width(K) <= 62
  /// bounds every partial sum by K 2^(pair_bits + shift) <= 2^62. Then the kernel keeps one int64
  /// per output instead of two words (exact_narrow). In pairs mode, only the pairs (l, l).
  bool narrow(std::size_t i0, std::size_t i1, std::size_t j0, std::size_t j1) const {
    auto spread = [](const Side& s, std::size_t r0, std::size_t r1) {
      int m = 0;
      for (std::size_t r = r0; r < r1; ++r) m = std::max(m, s.smax[r] - s.smin[r]);
      return m + s.qspan;
    };
    int shift;
    if (P_.pairs) {
      shift = 0;
      for (std::size_t l = i0; l < i1; ++l)
        shift = std::max(shift, (P_.a.smax[l] - P_.a.smin[l]) + (P_.b.smax[l] - P_.b.smin[l]));
      shift += P_.a.qspan + P_.b.qspan;
    } else {
      shift = spread(P_.a, i0, i1) + spread(P_.b, j0, j1);
    }
    return pair_bits_ + shift + static_cast<int>(std::bit_width(P_.K)) <= 62;
  }

  void run(std::size_t i0, std::size_t i1, std::size_t j0, std::size_t j1) {
    i0_ = i0;
    j0_ = j0;
    tiles_ = Tiles(P_.pairs, mr_, nr_, i1 - i0, j1 - j0);
    const Tiles& T = tiles_;
    narrow_ = narrow(i0, i1, j0, j1);
    lo_.assign(T.cells(), 0);
    if (!narrow_) hi_.assign(T.cells(), 0);
    else if (hi_.size() < T.cells()) hi_.resize(T.cells());  // (not read: a valid pointer for the tile)
    const ExactFn fn = P_.pairs ? (narrow_ ? P_.kern->exact_pairs_narrow : P_.kern->exact_pairs)
                                : (narrow_ ? P_.kern->exact_narrow : P_.kern->exact);
    // A's panels over the whole of k are kept for the next run() with the same rows (a thread
    // takes the blocks of one row range in turn, Blocking), where they fit in kKeepA bytes:
    // then each A element is packed once per row range instead of once per block.
    const std::size_t na = P_.a.tab.parts.size(), nchunks = (P_.K + kc_ - 1) / kc_;
    const bool keep = na * nchunks * T.pa * T.mr * kc_ * sizeof(double) <= kKeepA;
    const bool kept = keep && a_kept_ && a_i0_ == i0 && a_i1_ == i1;
    apack_.resize(keep ? na * nchunks : 1);
    ra_.resize(apack_.size());
    a_kept_ = keep;
    a_i0_ = i0;
    a_i1_ = i1;
    for (std::size_t ca = 0; ca < na; ++ca)
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
          const std::size_t slot = keep ? ca * nchunks + t0 / kc_ : 0;
          const std::vector<double>& apack = apack_[slot];
          const std::vector<std::int32_t>& ra = ra_[slot];
          if (!kept && (!keep || cb == 0))  // kept: packed by an earlier run() or part of B
            pack(P_.a, ca, i0, i1, t0, t1, T.mr, apack_[slot], ra_[slot]);
          pack(P_.b, cb, j0, j1, t0, t1, T.nr, bpack_, rb_);
          const std::size_t len = t1 - t0, ns = seg_.size();
          segs_.resize(ns);
          T.each([&](std::size_t x, std::size_t y) {
            for (std::size_t s = 0; s < ns; ++s)
              segs_[s] = ExactSegment{static_cast<std::uint32_t>(seg_[s].end - seg_[s].begin),
                                      ra.data() + (x * ns + s) * T.mr, rb_.data() + (y * ns + s) * T.nr};
            fn(ExactTile{apack.data() + x * len * T.mr, bpack_.data() + y * len * T.nr, segs_.data(), ns,
                         lo_.data() + T.tile(x, y), hi_.data() + T.tile(x, y), T.ld});
          });
        }
  }

 private:
  struct Seg {
    std::size_t begin, end, blk;
  };

  /// Packs part `part` of rows r0..r1 (panels of w, pack_panel), elements t0..t1, as
  /// [panel][t][w], and each segment's shifts as [panel][segment][w]. Lanes past r1 hold zeros.
  void pack(const Side& s, std::size_t part, std::size_t r0, std::size_t r1, std::size_t t0, std::size_t t1,
            std::size_t w, std::vector<double>& out, std::vector<std::int32_t>& shifts) const {
    const Component& c = s.tab.parts[part];
    const std::size_t panels = (r1 - r0 + w - 1) / w, len = t1 - t0, ns = seg_.size();
    out.resize(panels * len * w);
    shifts.assign(panels * ns * w, 0);
    for (std::size_t p = 0; p < panels; ++p) {
      const std::size_t lanes = std::min(w, r1 - (r0 + p * w));
      double* o = out.data() + p * len * w;
      pack_panel(*s.op, c.n, r0 + p * w, lanes, t0, len, w, o);
      for (std::size_t l = 0; l < lanes; ++l) {
        const std::size_t r = r0 + p * w + l;
        for (std::size_t x = 0; x < ns; ++x)
          shifts[(p * ns + x) * w + l] = (s.scale_exp(r, seg_[x].blk) - s.smin[r]) + (c.q - s.qmin);
      }
      // Non-E8M0 scales: each element times its block's scale significand (|n| < 2^20 times
      // |ssig| < 2^sbits: exact in double, exact_scales_fit).
      if (!s.ssig.empty())
        for (std::size_t x = 0; x < ns; ++x)
          for (std::size_t l = 0; l < lanes; ++l) {
            const double m = s.ssig[(r0 + p * w + l) * s.nb + seg_[x].blk];
            for (std::size_t t = seg_[x].begin - t0; t < seg_[x].end - t0; ++t) o[t * w + l] *= m;
          }
    }
  }

  const Problem& P_;
  std::size_t mr_, nr_;
  int pair_bits_ = 0;
  std::size_t maxlen_ = 0, kc_ = 0, i0_ = 0, j0_ = 0;
  bool narrow_ = false;
  Tiles tiles_{false, 1, 1, 0, 0};
  std::vector<std::uint64_t> lo_;  // the outputs' 128-bit sums: low words
  std::vector<std::int64_t> hi_;   // high words
  std::vector<Seg> seg_;
  std::vector<ExactSegment> segs_;
  // A's packed panels and shifts, per (part, chunk) where kept (run()), else one slot.
  std::vector<std::vector<double>> apack_;
  std::vector<std::vector<std::int32_t>> ra_;
  bool a_kept_ = false;
  std::size_t a_i0_ = 0, a_i1_ = 0;
  static constexpr std::size_t kKeepA = std::size_t{8} << 20;
  std::vector<double> bpack_;
  std::vector<std::int32_t> rb_;
};
}  // namespace softmx::gemm_detail
