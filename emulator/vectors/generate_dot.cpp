// emulator/vectors/generate_dot.cpp: the cases of dot files (README 6, "dot"): block pairs, their
// scales and the addend C.
#include "generate_cases.hpp"

namespace softmx::vec::gen_detail {
namespace {

/// One dot case: n block pairs, each SA, A_1..A_k, SB, B_1..B_k (the line's operand order),
/// then C when the file has an addend. Starts neutral: scales 0x7F (2^0), every code +0, C = +0.
class DotCase {
 public:
  DotCase(std::size_t k, std::size_t n, bool addend = false)
      : k_(k), n_(n), ops_(n * (2 * k + 2) + (addend ? 1 : 0), 0) {
    for (std::size_t j = 0; j < n; ++j) sa(j) = sb(j) = 0x7F;
  }
  /// C (precondition: the case has an addend).
  u64& c() { return ops_.back(); }
  u64& sa(std::size_t j) { return ops_[j * (2 * k_ + 2)]; }
  u64& a(std::size_t j, std::size_t i) { return ops_[j * (2 * k_ + 2) + 1 + i]; }
  u64& sb(std::size_t j) { return ops_[j * (2 * k_ + 2) + 1 + k_]; }
  u64& b(std::size_t j, std::size_t i) { return ops_[j * (2 * k_ + 2) + 2 + k_ + i]; }
  /// Sets both scales of every pair.
  DotCase& scales(u64 s_a, u64 s_b) {
    for (std::size_t j = 0; j < n_; ++j) sa(j) = s_a, sb(j) = s_b;
    return *this;
  }
  /// Sets every element of A (and of B) in every pair.
  DotCase& fill(u64 ca, u64 cb) {
    for (std::size_t j = 0; j < n_; ++j)
      for (std::size_t i = 0; i < k_; ++i) a(j, i) = ca, b(j, i) = cb;
    return *this;
  }
  const Operands& operands() const { return ops_; }

 private:
  std::size_t k_, n_;
  Operands ops_;
};

/// XORed into the seed for the stream of a dot file's level-2 addends C (README 6, dot), so that
/// the A and B operands of a seed are the same with and without C.
constexpr std::uint64_t kDotAddendStreamSalt = 0xADDE4DC0ADDE4DC0ull;

/// Builds dot cases of one header (README 6, "dot").
class DotCases {
 public:
  explicit DotCases(const Header& h)
      : k_(h.block), n_(h.blocks), a_(h.from), b_(h.to), h_(h), d_(format(h.dot_to)), addend_(h.dot_addend) {}

  /// Level 1: the structured cases, in order, duplicates dropped. Items 1-8 are the cases of a
  /// file without C (with C = +0 when it has one); 9 (a destination other than f32) and 10 (C)
  /// come after them, so that an f32 file without C is what it was before either existed.
  std::vector<Operands> level1() {
    zeros();
    products();
    scale_extremes();
    cancellation();
    specials();
    if (d_.id != FormatId::f32) destination();
    if (addend_) addends();
    return std::move(out_);
  }

  /// One random case (README 6, dot, "A random case"), its C (addend files) drawn from
  /// `c_rng`, the second stream, after the pairs.
  Operands random(SplitMix64& rng, SplitMix64& c_rng) const {
    Operands o = random_pairs(rng);
    if (addend_) o.push_back(random_addend(o, c_rng));
    return o;
  }

 private:
  /// The block pairs of one random case (README 6, dot, the table).
  Operands random_pairs(SplitMix64& rng) const {
    DotCase c(k_, n_);  // the pairs alone
    const u64 kind = rng.below(3);
    const std::size_t half = (k_ + 1) / 2;
    for (std::size_t j = 0; j < n_; ++j) {
      auto near_one = [&] { return 0x7F - 20 + rng.below(41); };
      if (kind == 2) {
        c.sa(j) = near_one();
        c.sb(j) = near_one();
        for (std::size_t i = 0; i < half; ++i) {
          c.a(j, i) = draw_bits(rng, a_.f.width);
          c.b(j, i) = draw_bits(rng, b_.f.width);
        }
        for (std::size_t i = half; i < k_; ++i) {
          c.a(j, i) = a_.neg(c.a(j, i - half));
          c.b(j, i) = c.b(j, i - half);
        }
        continue;
      }
      c.sa(j) = kind == 0 ? rng.below(256) : near_one();
      for (std::size_t i = 0; i < k_; ++i) c.a(j, i) = draw_bits(rng, a_.f.width);
      c.sb(j) = kind == 0 ? rng.below(256) : near_one();
      for (std::size_t i = 0; i < k_; ++i) c.b(j, i) = draw_bits(rng, b_.f.width);
    }
    return c.operands();
  }

  /// C of one random case (README 6, dot, "C"): kind = below(4); 0 any bits of D; 1 near -S, S
  /// the case's exact sum (pairs: the case's operands without C) rounded into D; 2 anywhere in
  /// D's range; 3 around S's exponent, from far above to far below it.
  u64 random_addend(const Operands& pairs, SplitMix64& rng) const {
    const u64 kind = rng.below(4);
    if (kind == 0) return draw_bits(rng, d_.width);
    const Unpacked sum = exact_sum(pairs);
    const bool finite = sum.cls == ValueClass::finite;
    if (kind == 1) {
      const u64 d = rng.below(5);
      if (!finite) return 0;  // S zero, NaN or Inf: C = +0 (the draw is still made)
      Unpacked neg = sum;
      neg.sign = !sum.sign;
      const u64 c = nearest_code(d_, neg, Saturation::finite);
      const u64 sign = c & sign_bit(d_), mag = c & ~sign_bit(d_);
      return sign | offset_code(mag, d, 2, d_.max_finite_magnitude());
    }
    const bool neg = rng.below(2);
    const int e = kind == 2 ? draw_between(rng, d_.emin() - d_.man_bits, static_cast<int>(d_.bias))
                            : (finite ? sum.exp : 0) + d_.man_bits + 3 - static_cast<int>(rng.below(2 * d_.man_bits + 7));
    const u64 g = rng.next() | (u64{1} << 63);
    return nearest_code(d_, unpacked({g, e - 63}, neg), Saturation::finite);
  }

  /// The exact sum of a case's products (no C) rounded rne into D, saturating: softmx's exact
  /// model, to aim C at it (never a result: those are computed separately).
  Unpacked exact_sum(const Operands& pairs) const {
    std::vector<std::uint8_t> codes(2 * k_ * n_);
    std::vector<BlockRef> a(n_), b(n_);
    for (std::size_t j = 0; j < n_; ++j) {
      const std::size_t base = j * (2 * k_ + 2);
      for (std::size_t i = 0; i < k_; ++i) {
        codes[2 * k_ * j + i] = static_cast<std::uint8_t>(pairs[base + 1 + i]);
        codes[2 * k_ * j + k_ + i] = static_cast<std::uint8_t>(pairs[base + 2 + k_ + i]);
      }
      a[j] = BlockRef{h_.from, static_cast<std::uint32_t>(pairs[base]), {codes.data() + 2 * k_ * j, k_}, &h_.from};
      b[j] = BlockRef{h_.to, static_cast<std::uint32_t>(pairs[base + 1 + k_]), {codes.data() + 2 * k_ * j + k_, k_},
                      &h_.to};
    }
    Context c;
    c.saturation = Saturation::finite;
    return unpack(d_, dot_general(a, b, DotDestination{d_.id, std::nullopt}, c).code);
  }

  DotCase neutral() const { return DotCase(k_, n_, addend_); }
  void add(const DotCase& c) {
    if (seen_.insert(c.operands()).second) out_.push_back(c.operands());
  }

  /// All zero; all A -0 (every product -0); A alternating +0 / -0.
  void zeros() {
    add(neutral());
    add(neutral().fill(a_.neg_zero(), 0));
    DotCase alt = neutral();
    for (std::size_t j = 0; j < n_; ++j)
      for (std::size_t i = 1; i < k_; i += 2) alt.a(j, i) = a_.neg_zero();
    add(alt);
  }

  /// One non-zero product first (1 x 1) and last (max x max); every product max x max and
  /// min subnormal x min subnormal (the element code 1) under several scales; a mixed ramp.
  void products() {
    DotCase first = neutral();
    first.a(0, 0) = a_.one();
    first.b(0, 0) = b_.one();
    add(first);
    DotCase last = neutral();
    last.a(n_ - 1, k_ - 1) = a_.max();
    last.b(n_ - 1, k_ - 1) = b_.max();
    add(last);
    for (auto [sa, sb] : {std::pair<u64, u64>{0x7F, 0x7F}, {0xFE, 0xFE}, {0xFE, 0x7F}, {0x00, 0x00}})
      add(neutral().fill(a_.max(), b_.max()).scales(sa, sb));
    for (auto [sa, sb] : {std::pair<u64, u64>{0x7F, 0x7F}, {0x00, 0x00}, {0x00, 0x7F}})
      add(neutral().fill(1, 1).scales(sa, sb));
    // A ramp: A_i = magnitude 1 + (i mod max), signs + + - - ...; B_i = magnitude max - (i mod max).
    for (auto [sa, sb] : {std::pair<u64, u64>{0x7F, 0x7F}, {0x82, 0x76}}) {
      DotCase ramp = neutral().scales(sa, sb);
      for (std::size_t j = 0; j < n_; ++j)
        for (std::size_t i = 0; i < k_; ++i) {
          const u64 ma = 1 + (i + j) % a_.max(), mb = b_.max() - (i + j) % b_.max();
          ramp.a(j, i) = (i / 2) % 2 ? a_.neg(ma) : ma;
          ramp.b(j, i) = mb;
        }
      add(ramp);
    }
    // max x max plus min x min: the exact sum needs more than 24 bits (inexact in f32).
    if (k_ >= 2) {
      DotCase wide = neutral();
      wide.a(0, 0) = a_.max(), wide.b(0, 0) = b_.max();
      wide.a(0, 1) = 1, wide.b(0, 1) = 1;
      add(wide);
    }
  }

  /// Ones under the extreme scales: 2^-254, 2^0, 2^254, f32's boundaries 2^127 and 2^128,
  /// results in f32's subnormals (2^-140) and below them (2^-152).
  void scale_extremes() {
    for (auto [sa, sb] : {std::pair<u64, u64>{0x00, 0xFE}, {0xFE, 0xFE}, {0xFE, 0x7F}, {0xFE, 0x80}, {0x7F - 70, 0x7F - 70},
                          {0x7F - 76, 0x7F - 76}, {0x7F - 75, 0x7F - 75}})
      add(neutral().fill(a_.one(), b_.one()).scales(sa, sb));
    DotCase single = neutral().scales(0xFE, 0x80);
    single.a(0, 0) = a_.one();
    single.b(0, 0) = b_.one();
    add(single);
  }

  /// Products that cancel: max x (+-1) alternating, pairs alternating in sign, and sums whose
  /// exact value survives only in exact accumulation (x + tiny - x).
  void cancellation() {
    DotCase alt = neutral();
    for (std::size_t j = 0; j < n_; ++j)
      for (std::size_t i = 0; i < k_; ++i) {
        alt.a(j, i) = i % 2 ? a_.neg(a_.max()) : a_.max();
        alt.b(j, i) = b_.one();
      }
    add(alt);
    if (n_ >= 2) {
      DotCase pairs = neutral().fill(a_.max(), b_.max());
      for (std::size_t j = 1; j < n_; j += 2)
        for (std::size_t i = 0; i < k_; ++i) pairs.a(j, i) = a_.neg(a_.max());
      add(pairs);
    }
    if (k_ >= 3) {  // within a block: max*max, min*min, -max*max
      DotCase c = neutral();
      c.a(0, 0) = a_.max(), c.b(0, 0) = b_.max();
      c.a(0, 1) = 1, c.b(0, 1) = 1;
      c.a(0, 2) = a_.neg(a_.max()), c.b(0, 2) = b_.max();
      add(c);
    }
    if (n_ >= 3) {  // across pairs: big (scales 2^40 each), tiny (2^-40 each), -big
      DotCase c = neutral();
      c.sa(0) = c.sb(0) = c.sa(2) = c.sb(2) = 0x7F + 40;
      c.sa(1) = c.sb(1) = 0x7F - 40;
      c.a(0, 0) = a_.max(), c.b(0, 0) = b_.max();
      c.a(1, 0) = a_.one(), c.b(1, 0) = b_.one();
      c.a(2, 0) = a_.neg(a_.max()), c.b(2, 0) = b_.max();
      add(c);
    }
  }

  /// NaN and Inf elements, NaN scales.
  void specials() {
    if (a_.has_nan()) add(with_a0(neutral().fill(a_.one(), b_.one()), a_.nan()));
    if (b_.has_nan()) {
      DotCase c = neutral().fill(a_.one(), b_.one());
      c.b(n_ - 1, k_ - 1) = b_.nan();
      add(c);
    }
    if (a_.has_inf()) {
      add(with_a0(neutral().fill(a_.one(), b_.one()), a_.inf()));  // +Inf
      add(with_a0(neutral(), a_.inf()));                          // Inf x 0: NaN, invalid
      add(with_a0(neutral().fill(a_.one(), b_.one()), a_.snan()));  // signalling NaN: invalid
      DotCase c = with_a0(neutral().fill(a_.one(), b_.one()).scales(0x00, 0x00), a_.inf());
      add(c);  // Inf x 2^-254 stays Inf
      if (k_ >= 2) {
        DotCase d = with_a0(neutral().fill(a_.one(), b_.one()), a_.inf());
        d.a(0, 1) = a_.neg(a_.inf());  // Inf - Inf: NaN, invalid
        add(d);
      }
    }
    if (b_.has_inf()) {
      DotCase c = neutral().fill(a_.one(), b_.one());
      c.b(0, 0) = b_.inf();
      add(c);
      DotCase d = neutral();
      d.b(0, 0) = b_.inf();
      add(d);
    }
    DotCase nan_a = neutral().fill(a_.one(), b_.one());
    nan_a.sa(0) = 0xFF;
    add(nan_a);
    DotCase nan_b = neutral();
    nan_b.sb(n_ - 1) = 0xFF;
    add(nan_b);
    add(neutral().fill(a_.one(), b_.one()).scales(0xFF, 0xFF));
  }

  static DotCase with_a0(DotCase c, u64 code) {
    c.a(0, 0) = code;
    return c;
  }

  /// The code of D nearest to (-1)^neg * m * 2^e (saturating).
  u64 d_code(u64 m, int e, bool neg) const { return nearest_code(d_, unpacked({m, e}, neg), Saturation::finite); }
  u64 d_neg(u64 code) const { return code ^ sign_bit(d_); }
  /// The scales that make pair j's products their elements times 2^e: SA = 2^ceil(e/2), SB =
  /// 2^(e - ceil(e/2)) (|e| <= 254).
  static void scale_by(DotCase& c, std::size_t j, int e) {
    const int ea = e >= 0 ? (e + 1) / 2 : -((-e) / 2);
    c.sa(j) = static_cast<u64>(0x7F + ea);
    c.sb(j) = static_cast<u64>(0x7F + e - ea);
  }
  /// A_j.i * B_j.i = 2^e as nearly as the element formats allow: A the code nearest to
  /// 2^ceil(e/2), B to 2^(e - ceil(e/2)).
  void pow2_product(DotCase& c, std::size_t j, std::size_t i, int e) const {
    const int ea = e >= 0 ? (e + 1) / 2 : -((-e) / 2);
    c.a(j, i) = nearest_code(a_.f, unpacked({1, ea}, false), Saturation::finite);
    c.b(j, i) = nearest_code(b_.f, unpacked({1, e - ea}, false), Saturation::finite);
  }

  /// (D not f32) D's own boundaries (README 6, dot, item 9): one product one x one scaled to
  /// 2^e for D's overflow threshold and largest binade, its smallest normal, its subnormals and
  /// the ties below its smallest subnormal; then ties of D's precision: 1 + 2^-(m+1) and
  /// 1 + 2^-m + 2^-(m+1) (m: D's fraction bits), as products one x one and 2^-m, 2^-(m+1) of
  /// pair 0 (k >= 3), the small ones as nearly as the elements allow.
  void destination() {
    const int m = d_.man_bits, emin = d_.emin(), emax = static_cast<int>(d_.bias), etiny = emin - m;
    for (int e : {emax + 1, emax, emin, emin - 1, etiny, etiny - 1, etiny - 2}) {
      DotCase c = neutral();
      c.a(0, 0) = a_.one(), c.b(0, 0) = b_.one();
      scale_by(c, 0, e);
      add(c);
    }
    if (k_ >= 3) {
      DotCase c = neutral();
      c.a(0, 0) = a_.one(), c.b(0, 0) = b_.one();
      pow2_product(c, 0, 1, -(m + 1));
      add(c);
      pow2_product(c, 0, 2, -m);
      add(c);
    }
  }

  /// (addend = yes) C probes (README 6, dot, item 10). S is the sum of the products without C.
  void addends() {
    const u64 one = d_code(1, 0, false), inf = d_.max_finite_magnitude() + 1, dmax = d_.max_finite_magnitude();
    // Signed zeros: every product -0 with C = -0 (-0) and +0 (+0, rd -0); every product +0
    // with C = -0.
    for (u64 cz : {d_neg(0), u64{0}}) {
      DotCase c = neutral().fill(a_.neg_zero(), 0);
      c.c() = cz;
      add(c);
    }
    {
      DotCase c = neutral();
      c.c() = d_neg(0);
      add(c);
    }
    // C alone (every product +0): 1, -1, D's extremes.
    for (u64 cc : {one, d_neg(one), dmax, u64{1}, d_.subnormals ? (u64{1} << d_.man_bits) - 1 : u64{1}, d_neg(1)}) {
      DotCase c = neutral();
      c.c() = cc;
      add(c);
    }
    // C that cancels S = k n (all one x one): -S exactly (+0, rd -0), and its neighbours in D.
    const u64 s_code = d_code(static_cast<u64>(k_) * n_, 0, false);
    for (u64 cc : {d_neg(s_code), d_neg(s_code + 1), d_neg(s_code - 1)}) {
      DotCase c = neutral().fill(a_.one(), b_.one());
      c.c() = cc;
      add(c);
    }
    // x + tiny - x with C: (k >= 2) A_0.0 x B_0.0 = max x max and A_0.1 x B_0.1 = min x min,
    // C = -(max_A max_B) (the D code nearest to it): exact keeps min x min, an fp32 sum of the
    // block loses it.
    if (k_ >= 2) {
      DotCase c = neutral();
      c.a(0, 0) = a_.max(), c.b(0, 0) = b_.max();
      c.a(0, 1) = 1, c.b(0, 1) = 1;
      const Unpacked mm = exact_sum(c.operands());
      Unpacked neg = mm;
      neg.sign = true;
      c.c() = mm.cls == ValueClass::finite ? nearest_code(d_, neg, Saturation::finite) : 0;
      add(c);
    }
    // C far above S (MXDOTP's accumulator bypass): one product one x one (S = 1) with C =
    // 2^(m+1), 2^(m+2), 2^(m+3) (S half an ulp of C, a quarter, an eighth) and the negatives;
    // all max x max with C = +max and -max of D.
    const int m = d_.man_bits;
    for (int e : {m + 1, m + 2, m + 3})
      for (bool neg : {false, true}) {
        DotCase c = neutral();
        c.a(0, 0) = a_.one(), c.b(0, 0) = b_.one();
        c.c() = d_code(1, e, neg);
        add(c);
      }
    for (u64 cc : {dmax, d_neg(dmax)}) {
      DotCase c = neutral().fill(a_.max(), b_.max());
      c.c() = cc;
      add(c);
    }
    // C far below S: S = 1 (one x one) with C = 2^-(m+1) (a tie), 3 * 2^-(m+2) (above it),
    // 2^-(m+2), -2^-(m+1), and D's smallest subnormal, positive and negative.
    for (u64 cc : {d_code(1, -(m + 1), false), d_code(3, -(m + 2), false), d_code(1, -(m + 2), false),
                   d_code(1, -(m + 1), true), u64{1}, d_neg(1)}) {
      DotCase c = neutral();
      c.a(0, 0) = a_.one(), c.b(0, 0) = b_.one();
      c.c() = cc;
      add(c);
    }
    // C subnormal with tiny products: all min x min under scales (00, 00) (far below f32's
    // subnormals) with C = code 1 and -code 1.
    for (u64 cc : {u64{1}, d_neg(1)}) {
      DotCase c = neutral().fill(1, 1).scales(0x00, 0x00);
      c.c() = cc;
      add(c);
    }
    // NaN and Inf C: all one x one with C = +Inf, -Inf, the canonical quiet NaN, the NaN with
    // every fraction bit set, the signalling NaN with payload 1, -qNaN; +Inf with every product
    // +0; -Inf with all max x max under scales (FE, FE) (the products' sum overflows); and, when
    // A has Inf, +Inf products (A_0.0 = +Inf) with C = -Inf (NaN, invalid) and C = +Inf.
    const u64 qnan = quiet_nan(d_);
    for (u64 cc : {inf, d_neg(inf), qnan, inf | ((u64{1} << d_.man_bits) - 1), inf | 1, d_neg(qnan)}) {
      DotCase c = neutral().fill(a_.one(), b_.one());
      c.c() = cc;
      add(c);
    }
    {
      DotCase c = neutral();
      c.c() = inf;
      add(c);
      DotCase d = neutral().fill(a_.max(), b_.max()).scales(0xFE, 0xFE);
      d.c() = d_neg(inf);
      add(d);
    }
    if (a_.has_inf())
      for (u64 cc : {d_neg(inf), inf}) {
        DotCase c = with_a0(neutral().fill(a_.one(), b_.one()), a_.inf());
        c.c() = cc;
        add(c);
      }
    // C with a NaN scale (the NaN decides) and with cancelling products (C alone remains).
    {
      DotCase c = neutral().fill(a_.one(), b_.one());
      c.sa(0) = 0xFF;
      c.c() = one;
      add(c);
      DotCase alt = neutral();
      for (std::size_t j = 0; j < n_; ++j)
        for (std::size_t i = 0; i < k_; ++i) {
          alt.a(j, i) = i % 2 ? a_.neg(a_.max()) : a_.max();
          alt.b(j, i) = b_.one();
        }
      alt.c() = one;
      add(alt);
    }
  }

  std::size_t k_, n_;
  ElementCodes a_, b_;
  const Header& h_;
  const Format& d_;  // the destination: the format of OUT and C
  bool addend_;
  std::vector<Operands> out_;
  std::set<Operands> seen_;
};

}  // namespace

/// Level 1, then `random` cases: their pairs from the stream of `seed` (the same as a file
/// without C), their C (addend = yes) from SplitMix64(seed ^ kDotAddendStreamSalt).
void dot_cases(const Header& h, u64 random, std::uint64_t seed, const CaseSink& emit) {
  DotCases cases(h);
  for (const Operands& c : cases.level1()) emit(c);
  SplitMix64 rng(seed), c_rng(seed ^ kDotAddendStreamSalt);
  for (u64 i = 0; i < random; ++i) emit(cases.random(rng, c_rng));
}

}  // namespace softmx::vec::gen_detail
