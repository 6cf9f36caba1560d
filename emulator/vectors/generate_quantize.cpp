// emulator/vectors/generate_quantize.cpp: the blocks of quantize files (README 6, "quantize").
#include "generate_cases.hpp"

namespace softmx::vec::gen_detail {
namespace {

/// The intended scale exponents of the level-1 amax scan: around E8M0's minimum 2^-127 (and
/// below it, where the scale clamps), around 1, and around its maximum 2^127 (and above it:
/// scale_overflow, f64 sources only).
constexpr int kScanScales[] = {-140, -130, -128, -127, -126, -20, -1, 0, 1, 20, 126, 127, 128, 140};

/// Builds quantize blocks of one source and element format (README 6, "quantize").
class QuantizeBlocks {
 public:
  /// `element`: a named MX element or a runtime descriptor (mx_element_reason accepts it); every
  /// point below is read from its descriptor, so a runtime element gets the same structure.
  QuantizeBlocks(const Format& src, const Format& element, std::size_t k)
      : s_(src),
        e_(element),
        k_(k),
        emax_(element_emax(element)),
        scale_lo_(std::max(-140, min_exponent(s_) - emax_)),
        scale_hi_(std::min(140, max_exponent(s_) - emax_)) {}

  /// Level 1: the structured blocks, in order, duplicates dropped.
  std::vector<Operands> level1() {
    zero_blocks();
    special_blocks();
    extreme_blocks();
    scan_blocks();
    shape_blocks();
    add(tie_block(0));
    add(tie_block(-135));
    return std::move(out_);
  }

  /// One random block (README 6, quantize, "A random block").
  Operands random(SplitMix64& rng) const {
    Operands b(k_);
    switch (rng.below(4)) {
      case 0:
        for (u64& x : b) x = draw_bits(rng, s_.width);
        break;
      case 1: {
        const int top = draw_between(rng, std::max(-150, min_exponent(s_)), std::min(140, max_exponent(s_)));
        for (u64& x : b) x = filler(rng, top);
        break;
      }
      case 2: {
        const int s = draw_between(rng, scale_lo_, scale_hi_);
        const Dyadic a = anchors(s)[rng.below(5)];
        const u64 delta = rng.below(5);  // -2 .. +2 codes
        const std::size_t j = rng.below(k_);
        const u64 c = nearest_code(s_, unpacked(a, false), Saturation::finite);
        for (u64& x : b) x = filler(rng, unpacked(a, false).exp);
        b[j] = offset_code(c, delta, 2, s_.max_finite_magnitude());
        break;
      }
      default: {
        const int s = draw_between(rng, scale_lo_, scale_hi_);
        const u64 max_mag = e_.max_finite_magnitude();
        for (u64& x : b) {
          const u64 mag = rng.below(max_mag + 1);
          const bool half = rng.below(2) != 0, negative = rng.below(2) != 0;
          const Dyadic v = half ? midpoint(magnitude_value(e_, mag), magnitude_value(e_, mag + 1)) : magnitude_value(e_, mag);
          x = code(unpacked(times_pow2(v, s), negative));
        }
        break;
      }
    }
    return b;
  }

 private:
  /// The source code nearest to u (rne, saturating).
  u64 code(const Unpacked& u) const { return nearest_code(s_, u, Saturation::finite); }

  /// A random element below 2^(top + 1): sign = below(2), exponent top - below(13), significand
  /// next() | 2^63, rounded to the source.
  u64 filler(SplitMix64& rng, int top) const {
    Unpacked u;
    u.cls = ValueClass::finite;
    u.sign = rng.below(2) != 0;
    u.exp = top - static_cast<int>(rng.below(13));
    u.sig = rng.next() | (u64{1} << 63);
    return code(u);
  }

  /// The amax values that separate the scale rules at intended scale 2^s: 2^(emax + s) (every
  /// rule agrees), max_E * 2^s (rceil's threshold), the midpoint above max_E times 2^s (the
  /// element overflow threshold under floor), (2 - 2^-(m_E + 1)) * 2^(emax + s) (even's carry
  /// tie), 2^(emax + s + 1) (below it ceil and floor differ most).
  std::array<Dyadic, 5> anchors(int s) const {
    const int m = e_.man_bits;
    const u64 top = e_.max_finite_magnitude();
    return {Dyadic{1, emax_ + s}, times_pow2(magnitude_value(e_, top), s),
            times_pow2(midpoint(magnitude_value(e_, top), magnitude_value(e_, top + 1)), s),
            Dyadic{(u64{1} << (m + 2)) - 1, emax_ + s - m - 1}, Dyadic{1, emax_ + s + 1}};
  }

  /// The positive source code nearest to `a`, or 0 when `a` is beyond the source's range (it
  /// rounds to 0 or overflows).
  u64 anchor_code(Dyadic a) const {
    const u64 c = nearest_code(s_, unpacked(a, false), Saturation::none);
    return c >= inf_magnitude(s_) ? 0 : c;
  }

  void add(Operands b) {
    if (seen_.insert(b).second) out_.push_back(std::move(b));
  }

  /// c, then (-1)^i * c * floor(65536 (k - i) / k) / 65536: falling magnitudes, alternating signs.
  Operands lin(u64 c) const {
    Operands b(k_, c);
    const Unpacked u = unpack(s_, c);
    for (std::size_t i = 1; i < k_; ++i) b[i] = code(times(u, (u64{65536} * (k_ - i)) / k_, 16, i % 2 != 0));
    return b;
  }
  /// c, then (-1)^i * c * (8 + i mod 8) * 2^-(i + 3): a geometric fall into the element's
  /// subnormals and below.
  Operands geo(u64 c) const {
    Operands b(k_, c);
    const Unpacked u = unpack(s_, c);
    for (std::size_t i = 1; i < k_; ++i) b[i] = code(times(u, 8 + i % 8, static_cast<int>(i) + 3, i % 2 != 0));
    return b;
  }
  /// c, then +0, -0, +0, ...
  Operands single(u64 c) const {
    Operands b(k_, 0);
    b[0] = c;
    for (std::size_t i = 2; i < k_; i += 2) b[i] = sign_bit(s_);
    return b;
  }
  Operands negated(Operands b) const {
    for (u64& x : b) x ^= sign_bit(s_);
    return b;
  }
  static Operands with(Operands b, std::size_t i, u64 v) {
    b[i] = v;
    return b;
  }

  void zero_blocks() {
    add(Operands(k_, 0));
    add(Operands(k_, sign_bit(s_)));
    Operands alt(k_, 0);
    for (std::size_t i = 1; i < k_; i += 2) alt[i] = sign_bit(s_);
    add(alt);
  }

  /// NaN and Inf in a block of lin(2^emax).
  void special_blocks() {
    const u64 inf = inf_magnitude(s_), qnan = quiet_nan(s_), snan = inf | 1, neg = sign_bit(s_);
    const Operands base = lin(anchor_code(anchors(0)[0]));
    const std::size_t last = k_ - 1;
    add(with(base, 0, qnan));
    add(with(base, last, qnan | neg));
    add(with(base, 0, snan));
    add(with(base, 0, inf));
    add(with(base, last, inf | neg));
    add(with(with(base, 0, inf), std::min<std::size_t>(1, last), qnan));
    add(Operands(k_, qnan));
    add(Operands(k_, inf));
    add(with(Operands(k_, 0), 0, qnan));
    add(with(Operands(k_, 0), 0, inf));
  }

  /// The source's largest and smallest values.
  void extreme_blocks() {
    const u64 max = inf_magnitude(s_) - 1, min_normal = u64{1} << s_.man_bits;
    add(Operands(k_, max));
    add(lin(max));
    add(single(max));
    add(Operands(k_, 1));
    add(single(1));
    add(lin(min_normal));
  }

  /// lin(c - 1), lin(c), lin(c + 1) for each anchor's code c at each scan scale.
  void scan_blocks() {
    for (int s : kScanScales)
      for (const Dyadic& a : anchors(s)) {
        const u64 c = anchor_code(a);
        if (c == 0) continue;
        if (c > 1) add(lin(c - 1));
        add(lin(c));
        if (c + 1 < inf_magnitude(s_)) add(lin(c + 1));
      }
  }

  /// Other shapes around the anchors at scale 2^0.
  void shape_blocks() {
    for (const Dyadic& a : anchors(0)) {
      const u64 c = anchor_code(a);
      if (c == 0) continue;
      add(geo(c));
      add(Operands(k_, c));
      add(single(c));
      add(negated(lin(c)));
    }
  }

  /// max_E * 2^s, then (-1)^i times the midpoint between the element magnitudes m_i and
  /// m_i + 1 times 2^s, m_i = (i - 1) * max_mag / max(k - 2, 1): element ties, from the one
  /// above zero to the one above max_E.
  Operands tie_block(int s) const {
    const u64 max_mag = e_.max_finite_magnitude();
    Operands b(k_);
    b[0] = code(unpacked(times_pow2(magnitude_value(e_, max_mag), s), false));
    const u64 span = k_ > 2 ? k_ - 2 : 1;
    for (std::size_t i = 1; i < k_; ++i) {
      const u64 m = (static_cast<u64>(i - 1) * max_mag) / span;
      const Dyadic tie = midpoint(magnitude_value(e_, m), magnitude_value(e_, m + 1));
      b[i] = code(unpacked(times_pow2(tie, s), i % 2 != 0));
    }
    return b;
  }

  const Format& s_;
  const Format& e_;
  std::size_t k_;
  int emax_;
  int scale_lo_, scale_hi_;  ///< random blocks' scales: [-140, 140] within the source's range
  std::vector<Operands> out_;
  std::set<Operands> seen_;
};

}  // namespace

void quantize_cases(const Header& h, u64 random, std::uint64_t seed, const CaseSink& emit) {
  const std::size_t k = h.block;
  const bool rs = h.ctx.rounding == Rounding::rs;
  QuantizeBlocks blocks(h.from, h.to, k);
  SplitMix64 rng(seed);
  Operands ops;
  auto emit_block = [&](const Operands& b) {
    ops = b;
    if (rs)
      for (std::size_t i = 0; i < k; ++i) ops.push_back(draw_bits(rng, h.ctx.rbits_width));
    emit(ops);
  };
  for (const Operands& b : blocks.level1()) emit_block(b);
  for (u64 i = 0; i < random; ++i) emit_block(blocks.random(rng));
}

}  // namespace softmx::vec::gen_detail
