// emulator/vectors/mma_scale_cases.cpp: see mma_scale_cases.hpp.
//
// vectors/README.md 6 ("Block-scaled mma") describes these cases; a change here changes every
// block-scaled gen and capture file made from now on (test_cuda_mma_capture pins digests).
#include "mma_scale_cases.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <set>
#include <string>

#include "softmx/convert.hpp"
#include "softmx/format.hpp"

namespace softmx::vec::detail {
namespace {

using u64 = std::uint64_t;

/// One probe: elements, scales and C.
struct MmaCase {
  std::vector<std::uint8_t> a, b;    ///< k codes each
  std::vector<std::uint8_t> sa, sb;  ///< n scale codes each
  std::uint32_t c = 0;               ///< a code of the accumulator (+0 when the header has no addend)
};

/// The codes of one element format, by value (exact conversion to f64, OCP semantics).
struct Elems {
  explicit Elems(FormatId id) : f(format(id)) {
    const u64 n = f.code_mask() + 1;
    value.resize(n);
    for (u64 c = 0; c < n; ++c) {
      const Result r = convert(id, FormatId::f64, c, Context{});
      value[c] = std::bit_cast<double>(r.code);
    }
  }
  const Format& f;
  std::vector<double> value;

  std::uint8_t neg(std::uint8_t c) const {
    const u64 m = f.code_mask();
    return static_cast<std::uint8_t>(f.sign == SignEncoding::twos_complement ? (m + 1 - c) & m
                                                                               : c ^ (u64{1} << (f.width - 1)));
  }
  std::uint8_t max() const { return static_cast<std::uint8_t>(f.max_finite_magnitude()); }
  std::uint8_t one() const { return pow2(0); }
  /// The code of 2^e, clamped to the smallest subnormal and the largest finite (every power of
  /// two between those two is a code of these formats). Exact comparisons only: no libm.
  std::uint8_t pow2(int e) const {
    const double want = std::ldexp(1.0, e);
    if (want <= value[1]) return 1;
    std::uint8_t best = max();
    for (u64 c = 1; c <= f.max_finite_magnitude(); ++c)
      if (value[c] == want) best = static_cast<std::uint8_t>(c);
    return best;
  }
};

/// The codes of the accumulator (f32 or f16).
struct Acc {
  explicit Acc(FormatId id) : f16(id == FormatId::f16) {}
  bool f16;
  std::uint32_t sign() const { return f16 ? 0x8000u : 0x80000000u; }
  std::uint32_t neg(std::uint32_t c) const { return c ^ sign(); }
  std::uint32_t max() const { return f16 ? 0x7BFFu : 0x7F7FFFFFu; }
  /// 2^e, gradual underflow below the smallest normal; clamped to the format's range.
  std::uint32_t pow2(int e) const {
    const int bias = f16 ? 15 : 127, man = f16 ? 10 : 23;
    if (e > bias) e = bias;
    if (e >= 1 - bias) return static_cast<std::uint32_t>(e + bias) << man;
    const int shift = e - (1 - bias) + man;
    return shift < 0 ? 1u : 1u << shift;
  }
  std::uint32_t one() const { return pow2(0); }
};

/// The scale codes of a scale format.
struct Scales {
  explicit Scales(MmaScaleFormat f) : ue4m3(f == MmaScaleFormat::ue4m3) {}
  bool ue4m3;
  std::uint8_t one() const { return ue4m3 ? 0x38 : 0x7F; }
  std::uint8_t nan() const { return ue4m3 ? 0x7F : 0xFF; }
  /// UE8M0: 2^-127 (code 0, the smallest); UE4M3: zero.
  std::uint8_t zero() const { return 0x00; }
  std::uint8_t max() const { return ue4m3 ? 0x7E : 0xFE; }
  /// 2^e, clamped to the format's finite range (UE4M3: 2^-9 .. 2^8).
  std::uint8_t pow2(int e) const {
    if (!ue4m3) return static_cast<std::uint8_t>(std::clamp(e + 127, 0, 254));
    if (e >= -6) return static_cast<std::uint8_t>((std::min(e, 8) + 7) << 3);
    return static_cast<std::uint8_t>(1u << std::max(e + 9, 0));  // 2^-7 0x04, 2^-8 0x02, 2^-9 0x01
  }
};

/// The scale probes (mma_scale_probes(), level 1 of a block-scaled mma). Every probe starts
/// from all elements +0, every scale 1 and C = +0. The research note's case numbers
/// (docs/research/blackwell-mma.md section 9) name the feature each probe is aimed at.
class ScaleProbes {
 public:
  explicit ScaleProbes(const Header& h)
      : k_(static_cast<int>(h.block)), block_(static_cast<int>(h.scale_block)), addend_(h.addend), a_(h.from), b_(h.to),
        acc_(h.accumulator), sc_(h.scale_format), n_(k_ / block_) {}

  std::vector<MmaCase> build() {
    nan_scales();
    zero_scales();
    alignment();
    overflow();
    block_boundaries();
    groups();
    if (sc_.ue4m3) ue4m3_codes();
    signed_zeros();
    return std::move(out_);
  }

 private:
  // Probes that set products 0 and 1 are built two wide even when K = 1; add() cuts them back
  // to K (K >= 2 is unaffected).
  MmaCase neutral() const {
    MmaCase c;
    c.a.assign(std::max(k_, 2), 0);
    c.b.assign(std::max(k_, 2), 0);
    c.sa.assign(n_, sc_.one());
    c.sb.assign(n_, sc_.one());
    return c;
  }
  MmaCase ones() const {
    MmaCase c = neutral();
    std::fill(c.a.begin(), c.a.end(), a_.one());
    std::fill(c.b.begin(), c.b.end(), b_.one());
    return c;
  }
  void add(MmaCase c) {
    c.a.resize(k_);
    c.b.resize(k_);
    if (!addend_) c.c = 0;
    out_.push_back(std::move(c));
  }
  int block_of(int k) const { return k / block_; }

  // 1. NaN scales poison every product of their block, zero products included (cases 9, 24).
  void nan_scales() {
    MmaCase c = ones();
    c.sa[0] = sc_.nan();
    c.c = acc_.one();
    add(c);
    MmaCase z = neutral();  // zero elements, NaN scale: NaN or C?
    z.sa[0] = sc_.nan();
    z.c = acc_.one();
    add(z);
    MmaCase b = ones();
    b.sb[n_ - 1] = sc_.nan();
    add(b);
    MmaCase both = ones();
    std::fill(both.sa.begin(), both.sa.end(), sc_.nan());
    std::fill(both.sb.begin(), both.sb.end(), sc_.nan());
    add(both);
    if (n_ >= 2) {  // the NaN on a block whose elements are all zero, the other blocks 1 x 1
      MmaCase d = ones();
      for (int k = (n_ - 1) * block_; k < k_; ++k) d.a[k] = 0, d.b[k] = 0;
      d.sa[n_ - 1] = sc_.nan();
      d.c = acc_.one();
      add(d);
    }
    if (sc_.ue4m3) {  // 0xFF: NaN once the sign bit is dropped (case 24b)
      MmaCase e = ones();
      e.sa[0] = 0xFF;
      add(e);
    }
  }

  // 2. Zero and tiny scales against the zero-term exponent (cases 7, 8, 16, 22, 26).
  void zero_scales() {
    for (std::uint32_t cc : {0u, acc_.one(), 1u}) {
      MmaCase c = ones();
      std::fill(c.sa.begin(), c.sa.end(), sc_.zero());
      c.c = cc;
      add(c);
    }
    MmaCase m = neutral();
    std::fill(m.a.begin(), m.a.end(), a_.max());
    std::fill(m.b.begin(), m.b.end(), b_.max());
    std::fill(m.sa.begin(), m.sa.end(), sc_.zero());
    std::fill(m.sb.begin(), m.sb.end(), sc_.zero());
    add(m);
    if (!sc_.ue4m3) {
      // A = [1, -tiny], B = [1, tiny]: 1 x 1 scaled to about 2^-149 and a tiny negative product
      // that a floor of the reference at e_zero keeps out of the cut (case 7), with SB the
      // ladder 2^-30 .. 2^-10.
      for (int e = -30; e <= -10; ++e) {
        MmaCase c = neutral();
        c.a[0] = a_.one(), c.b[0] = b_.one();
        c.a[1] = a_.neg(1), c.b[1] = 1;
        std::fill(c.sa.begin(), c.sa.end(), sc_.zero());
        std::fill(c.sb.begin(), c.sb.end(), sc_.pow2(e));
        add(c);
      }
      // The same pair in two blocks with their own scales (case 26: the GST floor -139).
      if (n_ >= 2) {
        for (int e = -52; e <= -40; ++e) {
          MmaCase c = neutral();
          c.a[0] = a_.one(), c.b[0] = b_.one();
          const int k2 = block_;
          c.a[k2] = a_.neg(a_.pow2(-1)), c.b[k2] = b_.pow2(-1);
          std::fill(c.sa.begin(), c.sa.end(), sc_.zero());
          c.sb[0] = sc_.pow2(-22);
          c.sb[1] = sc_.pow2(e);
          add(c);
        }
      }
    } else {
      MmaCase c = ones();  // a zero scale: a group of value 0 (case 22)
      c.sa[0] = sc_.zero();
      c.c = acc_.one();
      add(c);
    }
  }

  // 3. The alignment width through the scales (cases 1-3, 18).
  void alignment() {
    const int lowest = sc_.ue4m3 ? -9 : -40;
    for (int d = 0; -d >= lowest; ++d) {  // every product 2^-d against C = 1
      MmaCase c = ones();
      std::fill(c.sa.begin(), c.sa.end(), sc_.pow2(-d));
      c.c = acc_.one();
      add(c);
    }
    for (int d = 0; -d >= lowest; d += 3) {  // one product, the scale on B's side
      MmaCase c = neutral();
      c.a[0] = a_.one(), c.b[0] = b_.one();
      c.sb[0] = sc_.pow2(-d);
      c.c = acc_.one();
      add(c);
    }
    // Cancelling halves of max x max against a tiny C: E from the large terms, C cut F bits
    // below (case 18).
    for (int j = 10; j <= 50; j += 2) {
      MmaCase c = neutral();
      for (int k = 0; k < k_; ++k) {
        c.a[k] = k < k_ / 2 ? a_.max() : a_.neg(a_.max());
        c.b[k] = b_.max();
      }
      c.c = acc_.pow2(-j);
      add(c);
    }
  }

  // 4. Overflow through the scales (cases 13, 14).
  void overflow() {
    MmaCase m = neutral();
    m.a[0] = a_.max(), m.b[0] = b_.max();
    std::fill(m.sa.begin(), m.sa.end(), sc_.max());
    std::fill(m.sb.begin(), m.sb.end(), sc_.max());
    add(m);
    if (!sc_.ue4m3 && !acc_.f16) {
      for (int e : {103, 104}) {  // FLT_MAX + 2^103 truncates to FLT_MAX; + 2^104 = 2^128 is Inf
        MmaCase c = neutral();
        c.a[0] = a_.one(), c.b[0] = b_.one();
        c.sa[0] = sc_.pow2(e);
        c.c = acc_.max();
        add(c);
      }
    }
  }

  // 5. Which scale covers which product, at every block boundary (case 27).
  void block_boundaries() {
    for (int j = 1; j < n_; ++j) {
      const int at = j * block_;
      MmaCase c = neutral();
      c.a[at - 1] = a_.one(), c.b[at - 1] = b_.one();
      c.a[at] = a_.one(), c.b[at] = b_.one();
      c.sa[j - 1] = sc_.pow2(-1);
      add(c);
    }
    for (int j = 0; j < n_; ++j) {
      MmaCase first = neutral(), last = neutral();
      first.a[j * block_] = a_.one(), first.b[j * block_] = b_.one();
      first.sa[j] = sc_.pow2(3);
      add(first);
      const int end = (j + 1) * block_ - 1;
      last.a[end] = a_.one(), last.b[end] = b_.one();
      last.sb[j] = sc_.pow2(-2);
      add(last);
    }
  }

  // 6. Groups of 16 products (the FP4 kinds sum groups exactly, then align: cases 19-21).
  void groups() {
    const std::uint8_t big = sc_.ue4m3 ? sc_.max() : sc_.pow2(20);
    MmaCase c = neutral();  // a group that cancels keeps its exponent (case 20)
    c.a[0] = a_.max(), c.b[0] = b_.max(), c.a[1] = a_.neg(a_.max()), c.b[1] = b_.max();
    c.sa[0] = c.sb[0] = big;
    c.c = acc_.one();
    add(c);
    MmaCase z = neutral();  // an all-zero group with large scales (case 21)
    std::fill(z.sa.begin(), z.sa.end(), big);
    std::fill(z.sb.begin(), z.sb.end(), big);
    z.c = acc_.one();
    add(z);
    if (k_ >= 32) {  // cancellation across groups 0 and 1 against a tiny C (case 19)
      for (int j = 10; j <= 40; j += 5) {
        MmaCase x = neutral();
        x.a[0] = a_.max(), x.b[0] = b_.max(), x.a[16] = a_.neg(a_.max()), x.b[16] = b_.max();
        x.a[1] = a_.one(), x.b[1] = b_.one();
        x.c = acc_.pow2(-j);
        add(x);
      }
    }
  }

  // 7. UE4M3 codes: the sign bit, subnormal scales, negative zero (cases 23, 25).
  void ue4m3_codes() {
    for (int side = 0; side < 3; ++side) {
      MmaCase c = neutral();
      c.a[0] = a_.one(), c.b[0] = b_.one();
      if (side != 1) c.sa[0] = 0xB8;
      if (side != 0) c.sb[0] = 0xB8;
      add(c);
    }
    for (std::uint8_t code = 0x01; code <= 0x08; ++code) {
      MmaCase c = neutral();
      c.a[0] = a_.one(), c.b[0] = b_.one();
      c.sa[0] = code;
      add(c);
    }
    for (std::uint32_t cc : {acc_.pow2(-42), acc_.pow2(-41)}) {  // a cancelled group at scale 2^-9
      MmaCase c = neutral();
      c.a[0] = a_.one(), c.b[0] = b_.one(), c.a[1] = a_.neg(a_.one()), c.b[1] = b_.one();
      c.sa[0] = 0x01;
      c.c = cc;
      add(c);
    }
    MmaCase nz = ones();
    nz.sa[0] = 0x80;
    nz.c = acc_.one();
    add(nz);
  }

  // 8. Signed zeros (case 16; fpy's "all -0 sums to -0").
  void signed_zeros() {
    for (bool zero_scale : {false, true}) {
      MmaCase c = neutral();
      std::fill(c.a.begin(), c.a.end(), a_.neg(0));
      if (zero_scale) std::fill(c.sa.begin(), c.sa.end(), sc_.zero());
      c.c = acc_.neg(0);
      add(c);
    }
    MmaCase t = neutral();  // -1 x 1 scaled far below f32, the other products -0, C = -0
    std::fill(t.a.begin(), t.a.end(), a_.neg(0));
    t.a[0] = a_.neg(a_.one()), t.b[0] = b_.one();
    std::fill(t.sa.begin(), t.sa.end(), sc_.zero());
    std::fill(t.sb.begin(), t.sb.end(), sc_.zero());
    t.c = acc_.neg(0);
    add(t);
  }

  int k_, block_;
  bool addend_;
  Elems a_, b_;
  Acc acc_;
  Scales sc_;
  int n_;
  std::vector<MmaCase> out_;
};

/// The level-2 scales of one random case (mma_random_scales()).
void random_scales(const Header& h, SplitMix64& rng, std::vector<u64>& sa, std::vector<u64>& sb) {
  const bool ue4m3 = h.scale_format == MmaScaleFormat::ue4m3;
  const u64 kind = rng.below(4);
  auto near_one = [&]() -> std::uint8_t {
    if (!ue4m3) return static_cast<std::uint8_t>(0x6B + rng.below(41));
    const u64 e = rng.below(7);  // exponent -3 .. 3: field 4 .. 10
    return static_cast<std::uint8_t>(((e + 4) << 3) | rng.below(8));
  };
  auto draw = [&]() -> std::uint8_t {
    switch (kind) {
      case 0: return static_cast<std::uint8_t>(rng.below(256));
      case 1: return near_one();
      default: return static_cast<std::uint8_t>(rng.below(ue4m3 ? 0x7F : 0xFF));
    }
  };
  const std::size_t n = h.block / h.scale_block;
  sa.assign(n, 0);
  sb.assign(n, 0);
  if (kind == 2) {
    const std::uint8_t x = near_one(), y = near_one();
    std::fill(sa.begin(), sa.end(), x);
    std::fill(sb.begin(), sb.end(), y);
    return;
  }
  for (auto& x : sa) x = draw();
  for (auto& y : sb) y = draw();
}

}  // namespace

std::uint8_t mma_scale_one(MmaScaleFormat f) { return Scales(f).one(); }

std::vector<std::vector<u64>> mma_scale_probes(const Header& h) {
  std::vector<std::vector<u64>> out;
  std::set<std::vector<u64>> seen;
  for (const MmaCase& c : ScaleProbes(h).build()) {
    std::vector<u64> v;
    v.reserve(2 * c.a.size() + 2 * c.sa.size() + 1);
    for (const std::vector<std::uint8_t>* part : {&c.a, &c.b, &c.sa, &c.sb}) v.insert(v.end(), part->begin(), part->end());
    if (h.addend) v.push_back(c.c);
    if (seen.insert(v).second) out.push_back(std::move(v));
  }
  return out;
}

void mma_random_scales(const Header& h, SplitMix64& rng, std::vector<u64>& sa, std::vector<u64>& sb) {
  random_scales(h, rng, sa, sb);
}

}  // namespace softmx::vec::detail
