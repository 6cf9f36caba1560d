// emulator/vectors/generate.cpp: see generate.hpp.
//
// vectors/README.md section 6 describes every set built here, draw by draw: a change to what
// this file generates is a change to that section (and to the committed vectors' hashes).
#include "softmx/vectors/generate.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "softmx/block.hpp"
#include "softmx/convert.hpp"
#include "softmx/prng.hpp"
#include "softmx/vectors/input_digest.hpp"
#include "mma_scale_cases.hpp"

namespace softmx::vec {
namespace {

using u64 = std::uint64_t;
using Operands = std::vector<u64>;

// ---------------------------------------------------------------------------------------------
// Exact values, and the codes nearest to them.

/// The exact non-negative value m * 2^e (m = 0: zero). Every point the generator aims at is
/// one: a format's values, midpoints between neighbours, scale-rule thresholds.
struct Dyadic {
  u64 m = 0;
  int e = 0;
};

Dyadic times_pow2(Dyadic d, int by) { return {d.m, d.e + by}; }

/// `d` with sign `negative`, as the rounding core reads values.
Unpacked unpacked(Dyadic d, bool negative) {
  Unpacked u;
  u.sign = negative;
  if (d.m == 0) return u;  // a zero of that sign
  const int w = static_cast<int>(std::bit_width(d.m));
  u.cls = ValueClass::finite;
  u.exp = d.e + w - 1;
  u.sig = d.m << (64 - w);
  return u;
}

/// The value of magnitude code `mag` of `f`, continuing the binade pattern past the largest
/// finite code (e4m3 0x7F is 480, the virtual neighbour above 448; f16 0x7C00 is 2^16), so that
/// the midpoint above max finite and the overflow thresholds are points like any other.
/// Precondition: mag < 2^(f.width) (the exponent field may exceed the format's).
Dyadic magnitude_value(const Format& f, u64 mag) {
  const int m = f.man_bits;
  const u64 field = mag >> m, frac = mag & ((u64{1} << m) - 1);
  if (f.subnormals && field == 0) return {frac, f.emin() - m};
  return {(u64{1} << m) | frac, static_cast<int>(field) - f.bias - m};
}

/// (a + b) / 2, exactly. Precondition: the exponents differ by at most a few (neighbours).
Dyadic midpoint(Dyadic a, Dyadic b) {
  const int e = std::min(a.e, b.e);
  return {(a.m << (a.e - e)) + (b.m << (b.e - e)), e - 1};
}

/// u * t * 2^-shift for a finite u and t >= 1: the leading 64 bits kept, the rest folded into
/// sticky (all the rounding core needs).
Unpacked times(const Unpacked& u, u64 t, int shift, bool negate) {
  __extension__ using u128 = unsigned __int128;
  const u128 p = static_cast<u128>(u.sig) * t;
  const u64 hi = static_cast<u64>(p >> 64);
  const int w = hi ? 64 + static_cast<int>(std::bit_width(hi)) : 64;  // u.sig has bit 63 set
  Unpacked r = u;
  r.sign = u.sign != negate;
  r.sig = static_cast<u64>(p >> (w - 64));
  r.sticky = u.sticky || (w > 64 && (p & ((u128{1} << (w - 64)) - 1)) != 0);
  r.exp = u.exp - shift + (w - 64);
  return r;
}

/// The code of `f` nearest to `u` (rne) under saturation `sat`. Used to find the operands at
/// or next to a point, never to compute a result.
u64 nearest_code(const Format& f, const Unpacked& u, Saturation sat) {
  Context c;
  c.rounding = Rounding::rne;
  c.saturation = sat;
  return round_pack(f, u, c, ocp_dialect()).code;
}

// Codes of the IEEE host formats (f64 f32 f16 bf16): sign-magnitude with Inf and NaN.
u64 sign_bit(const Format& f) { return u64{1} << (f.width - 1); }
u64 inf_magnitude(const Format& f) { return ((u64{1} << f.exp_bits) - 1) << f.man_bits; }
u64 quiet_nan(const Format& f) { return inf_magnitude(f) | (u64{1} << (f.man_bits - 1)); }

/// The special and extreme codes of an IEEE host format: +0, +Inf, NaNs (quiet canonical, all
/// ones, signalling with payload 1, signalling with the high payload bit, quiet with payload 1,
/// quiet with the next bit), max finite, min normal, min subnormal, max subnormal; then the
/// same twelve negated.
std::vector<u64> special_codes(const Format& f) {
  const u64 inf = inf_magnitude(f), quiet = u64{1} << (f.man_bits - 1), frac = (u64{1} << f.man_bits) - 1;
  std::vector<u64> v = {0,         inf,   inf | quiet,          inf | frac, inf | 1,   inf | (quiet >> 1),
                        inf | quiet | 1, inf | quiet | (quiet >> 1), inf - 1, u64{1} << f.man_bits, 1, frac};
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) v.push_back(v[i] | sign_bit(f));
  return v;
}

// ---------------------------------------------------------------------------------------------
// The random stream.

/// The top `w` bits of the next draw (1 <= w <= 64): a uniform w-bit value. For w < 64 this is
/// exactly below(2^w).
u64 draw_bits(SplitMix64& rng, int w) {
  const u64 x = rng.next();
  return w >= 64 ? x : x >> (64 - w);
}

/// c + d - bias clamped to [0, hi]: a code moved by a drawn offset d in [0, 2 * bias].
u64 offset_code(u64 c, u64 d, u64 bias, u64 hi) {
  if (d < bias) return c < bias - d ? 0 : c - (bias - d);
  return std::min(c + (d - bias), hi);
}

/// An integer uniform in [lo, hi] (lo <= hi): lo + below(hi - lo + 1).
int draw_between(SplitMix64& rng, int lo, int hi) {
  return lo + static_cast<int>(rng.below(static_cast<u64>(hi - lo) + 1));
}

/// The fixed random values each level-1 rs input is paired with: 0 (truncates), 1, 2^(r-1) - 1
/// (rounds away above the half), 2^(r-1) (rounds away from the half up), 2^r - 1 (rounds
/// away whenever inexact); ascending, duplicates dropped (r = 1: 0 and 1).
std::vector<u64> fixed_rbits(int r) {
  const u64 max = r == 64 ? ~u64{0} : (u64{1} << r) - 1, half = u64{1} << (r - 1);
  std::vector<u64> v = {0, 1, half - 1, half, max};
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

/// Exponent of the largest finite value of `f` (e4m3 8, f32 127, int8 0, e8m0 127).
int max_exponent(const Format& f) { return static_cast<int>(f.max_finite_magnitude() >> f.man_bits) - f.bias; }

/// Exponent of the smallest non-zero value of `f` (f32 -149, e4m3 -9, e8m0 -127).
int min_exponent(const Format& f) { return f.subnormals ? f.emin() - f.man_bits : f.emin(); }

// ---------------------------------------------------------------------------------------------
// convert

/// Neighbouring source codes taken on either side of each boundary point.
constexpr int kNeighbours = 2;

/// The largest magnitude code of `dst`'s extended range: two binades above max finite.
u64 extended_top(const Format& dst) { return dst.max_finite_magnitude() + (u64{2} << dst.man_bits); }

/// The points where a conversion into `dst` may change its result: each magnitude code's value
/// from 0 up to extended_top() and the midpoint to the next code (every code for destinations of
/// at most 16 bits; for f32 and f64 four codes per binade: fractions 0, 1, half and all ones),
/// then a quarter, a half and three quarters of the smallest non-zero magnitude.
std::vector<Dyadic> boundary_points(const Format& dst) {
  std::vector<Dyadic> v;
  const u64 top = extended_top(dst);
  auto add = [&](u64 mag) {
    v.push_back(magnitude_value(dst, mag));
    if (mag < top) v.push_back(midpoint(magnitude_value(dst, mag), magnitude_value(dst, mag + 1)));
  };
  if (dst.width <= 16) {
    for (u64 mag = 0; mag <= top; ++mag) add(mag);
  } else {
    const int m = dst.man_bits;
    for (u64 field = 0; field <= (top >> m); ++field)
      for (u64 frac : {u64{0}, u64{1}, u64{1} << (m - 1), (u64{1} << m) - 1})
        if (const u64 mag = (field << m) | frac; mag <= top) add(mag);
  }
  const Dyadic low = magnitude_value(dst, dst.subnormals ? 1 : 0);
  v.push_back({low.m, low.e - 2});
  v.push_back({low.m, low.e - 1});
  v.push_back({3 * low.m, low.e - 2});
  return v;
}

/// Level 1 of convert from f32 or f64: the source's special codes, and for each boundary point
/// of `dst` within the source's range the source code nearest to it (rne) with kNeighbours
/// codes on either side, each with both signs; ascending, without duplicates.
std::vector<u64> convert_boundary_inputs(const Format& src, const Format& dst) {
  std::vector<u64> v = special_codes(src);
  const u64 inf = inf_magnitude(src);
  for (const Dyadic& p : boundary_points(dst)) {
    const u64 c = nearest_code(src, unpacked(p, false), Saturation::none);
    if (c >= inf) continue;  // beyond the source's range
    for (int d = -kNeighbours; d <= kNeighbours; ++d) {
      if (d < 0 && c < static_cast<u64>(-d)) continue;
      const u64 x = d < 0 ? c - static_cast<u64>(-d) : c + static_cast<u64>(d);
      if (x > inf) continue;
      v.push_back(x);
      v.push_back(x | sign_bit(src));
    }
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

/// One random input of convert from f32 or f64 (README 6, convert, "A random input"):
///   kind = below(4)
///   0: any bit pattern: the top `width` bits of one draw;
///   1: in and near the destination's range: sign = below(2), an exponent e uniform in
///      [min_exponent(dst) - 4, max_exponent(dst) + 3] within the source's exponents, a
///      significand next() | 2^63, rounded to the source (rne, saturating);
///   2: near a midpoint: sign, mag = below(top) (top = extended_top(dst)), the source code c
///      nearest to the midpoint of mag and mag + 1, then c + below(65) - 32 within [0, Inf];
///   3: near a destination value: the same with the value of mag = below(top + 1).
class ConvertDraw {
 public:
  ConvertDraw(const Format& src, const Format& dst)
      : src_(src),
        dst_(dst),
        lo_(std::max(min_exponent(dst) - 4, min_exponent(src))),
        hi_(std::min(max_exponent(dst) + 3, max_exponent(src))),
        top_(extended_top(dst)) {}

  u64 operator()(SplitMix64& rng) const {
    const u64 kind = rng.below(4);
    if (kind == 0) return draw_bits(rng, src_.width);
    const bool negative = rng.below(2) != 0;
    u64 mag = 0;
    if (kind == 1) {
      Unpacked u;
      u.cls = ValueClass::finite;
      u.exp = draw_between(rng, lo_, hi_);
      u.sig = rng.next() | (u64{1} << 63);
      mag = nearest_code(src_, u, Saturation::finite);
    } else {
      Dyadic p;
      if (kind == 2) {
        const u64 m = rng.below(top_);
        p = midpoint(magnitude_value(dst_, m), magnitude_value(dst_, m + 1));
      } else {
        p = magnitude_value(dst_, rng.below(top_ + 1));
      }
      const u64 c = nearest_code(src_, unpacked(p, false), Saturation::finite);
      mag = offset_code(c, rng.below(65), 32, inf_magnitude(src_));  // c - 32 .. c + 32
    }
    return mag | (negative ? sign_bit(src_) : 0);
  }

 private:
  const Format& src_;
  const Format& dst_;
  int lo_, hi_;
  u64 top_;
};

void convert_cases(const Header& h, u64 random, std::uint64_t seed, const CaseSink& emit) {
  const Format& src = format(h.from);
  const bool rs = h.ctx.rounding == Rounding::rs;
  const int r = h.ctx.rbits_width;
  const std::vector<u64> rset = rs ? fixed_rbits(r) : std::vector<u64>{};
  std::array<u64, 2> ops{};
  const std::size_t n_ops = rs ? 2 : 1;
  auto emit_input = [&](u64 x) {
    ops[0] = x;
    if (!rs) {
      emit(std::span<const u64>(ops.data(), 1));
      return;
    }
    for (u64 R : rset) {
      ops[1] = R;
      emit(std::span<const u64>(ops.data(), 2));
    }
  };
  if (src.width <= 16) {
    for (u64 x = 0; x <= src.code_mask(); ++x) emit_input(x);
  } else {
    for (u64 x : convert_boundary_inputs(src, format(h.to))) emit_input(x);
  }
  if (random == 0) return;
  SplitMix64 rng(seed);
  const ConvertDraw draw(src, format(h.to));
  for (u64 i = 0; i < random; ++i) {
    ops[0] = src.width <= 16 ? draw_bits(rng, src.width) : draw(rng);
    if (rs) ops[1] = draw_bits(rng, r);
    emit(std::span<const u64>(ops.data(), n_ops));
  }
}

// ---------------------------------------------------------------------------------------------
// dequantize: every scale x every code.

void dequantize_cases(const Header& h, const CaseSink& emit) {
  const u64 codes = format(h.from).code_mask();
  std::array<u64, 2> ops{};
  for (u64 s = 0; s <= 0xFF; ++s)
    for (u64 c = 0; c <= codes; ++c) {
      ops = {s, c};
      emit(ops);
    }
}

// ---------------------------------------------------------------------------------------------
// quantize

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

// ---------------------------------------------------------------------------------------------
// dot

/// One dot case: n block pairs, each SA, A_1..A_k, SB, B_1..B_k (the line's operand order).
/// Starts neutral: scales 0x7F (2^0), every code +0.
class DotCase {
 public:
  DotCase(std::size_t k, std::size_t n) : k_(k), n_(n), ops_(n * (2 * k + 2), 0) {
    for (std::size_t j = 0; j < n; ++j) sa(j) = sb(j) = 0x7F;
  }
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

/// The codes of one element format that dot cases use, read from its descriptor (a named MX
/// element or a runtime one: e1m2, e4m3fnuz, int4, e3m4, ...).
struct ElementCodes {
  explicit ElementCodes(const Format& fm) : f(fm) {}
  const Format& f;
  u64 one() const { return nearest_code(f, unpacked({1, 0}, false), Saturation::finite); }
  u64 max() const { return f.max_finite_magnitude(); }
  u64 neg(u64 c) const {
    return f.sign == SignEncoding::twos_complement ? (f.code_mask() + 1 - c) & f.code_mask() : c ^ (u64{1} << (f.width - 1));
  }
  /// -0, or +0 where the format has no -0 (two's complement, fnuz: its -0 code is the NaN).
  u64 neg_zero() const { return f.has_negative_zero() ? neg(0) : 0; }
  bool has_nan() const { return f.has_nan(); }
  bool has_inf() const { return f.has_inf(); }
  /// The quiet NaN (e4m3 0x7F, e5m2 0x7E, e4m3fnuz 0x80: the sign bit alone); precondition
  /// has_nan().
  u64 nan() const {
    if (f.specials == Specials::fnuz) return u64{1} << (f.width - 1);
    return has_inf() ? max() + 1 + (f.man_bits ? u64{1} << (f.man_bits - 1) : 0) : f.all_ones_magnitude();
  }
  /// e5m2's Inf 0x7C and signalling NaN 0x7D; precondition has_inf().
  u64 inf() const { return max() + 1; }
  u64 snan() const { return max() + 2; }
};

/// Builds dot cases of one header (README 6, "dot").
class DotCases {
 public:
  explicit DotCases(const Header& h) : k_(h.block), n_(h.blocks), a_(h.from), b_(h.to) {}

  /// Level 1: the structured cases, in order, duplicates dropped.
  std::vector<Operands> level1() {
    zeros();
    products();
    scale_extremes();
    cancellation();
    specials();
    return std::move(out_);
  }

  /// One random case (README 6, dot, "A random case").
  Operands random(SplitMix64& rng) const {
    DotCase c = neutral();
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

 private:
  DotCase neutral() const { return DotCase(k_, n_); }
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

  std::size_t k_, n_;
  ElementCodes a_, b_;
  std::vector<Operands> out_;
  std::set<Operands> seen_;
};

/// Level 1's cases, then `random` draws from the stream of `seed` (dot and mma: section 6).
template <class Cases>
void level1_then_random(const Header& h, u64 random, std::uint64_t seed, const CaseSink& emit) {
  Cases cases(h);
  for (const Operands& c : cases.level1()) emit(c);
  SplitMix64 rng(seed);
  for (u64 i = 0; i < random; ++i) emit(cases.random(rng));
}

void dot_cases(const Header& h, u64 random, std::uint64_t seed, const CaseSink& emit) {
  level1_then_random<DotCases>(h, random, seed, emit);
}

// ---------------------------------------------------------------------------------------------
// mma

/// Builds mma cases of one header (README 6, "mma"): K products A_i * B_i and an addend C in
/// the accumulator format. Every case is A_1..A_K B_1..B_K C (C dropped when addend = no).
class MmaCases {
 public:
  explicit MmaCases(const Header& h)
      : k_(h.block), a_(h.from), b_(h.to), acc_(format(h.accumulator)), addend_(h.addend) {}

  std::vector<Operands> level1() {
    const u64 one_a = a_.one(), one_b = b_.one(), max_a = a_.max(), max_b = b_.max();
    // 1. zeros.
    add(neutral());
    {
      Case c = neutral();
      for (auto& x : c.a) x = a_.neg_zero();
      c.c = acc_neg(0);
      add(c);
      Case alt = neutral();
      for (std::size_t i = 1; i < k_; i += 2) alt.a[i] = a_.neg_zero();
      add(alt);
    }
    // 2. single products, first and last.
    {
      Case c = neutral();
      c.a[0] = one_a, c.b[0] = one_b;
      add(c);
      Case d = neutral();
      d.a[k_ - 1] = max_a, d.b[k_ - 1] = max_b;
      add(d);
    }
    // 3. the alignment ladder: C = 1 (or A_1 * B_1 = 1) and every other product 2^-d.
    for (int d = 0; d <= 24; ++d) {
      Case c = neutral();
      for (std::size_t i = 0; i < k_; ++i) set_pow2_product(c, i, -d);
      c.c = acc_code(1, 0, false);
      add(c);
      Case e = neutral();
      for (std::size_t i = 1; i < k_; ++i) set_pow2_product(e, i, -d);
      e.a[0] = one_a, e.b[0] = one_b;
      add(e);
    }
    // 4. the carry ladder: K products 1 * 1 and C = 2^-j; max * max with C = 0 and C = 1.
    for (int j = 0; j <= 24; ++j) {
      Case c = neutral().fill(one_a, one_b);
      c.c = acc_code(1, -j, false);
      add(c);
    }
    add(neutral().fill(max_a, max_b));
    {
      Case c = neutral().fill(max_a, max_b);
      c.c = acc_code(1, 0, false);
      add(c);
    }
    // 5. a large and a tiny product (code 1, the smallest subnormal), alone and with C = 1.
    if (k_ >= 2) {
      Case c = neutral();
      c.a[0] = max_a, c.b[0] = max_b, c.a[1] = 1, c.b[1] = 1;
      add(c);
      c.c = acc_code(1, 0, false);
      add(c);
    }
    // 6. the direction of the cut: C = 1 and one product -1.5 * 2^-d.
    for (int d = 10; d <= 16; ++d) {
      Case c = neutral();
      c.a[0] = a_.neg(nearest_code(a_.f, unpacked({3, -(d / 2) - 1}, false), Saturation::finite));
      c.b[0] = nearest_code(b_.f, unpacked({1, -(d - d / 2)}, false), Saturation::finite);
      c.c = acc_code(1, 0, false);
      add(c);
    }
    // 7. cancellation: +-max alternating times 1 with C = 0 and C = 2^-20; max*max + 1 - max*max.
    {
      Case c = neutral();
      for (std::size_t i = 0; i < k_; ++i) c.a[i] = i % 2 ? a_.neg(max_a) : max_a, c.b[i] = one_b;
      add(c);
      c.c = acc_code(1, -20, false);
      add(c);
      if (k_ >= 3) {
        Case e = neutral();
        e.a[0] = max_a, e.b[0] = max_b, e.a[1] = one_a, e.b[1] = one_b, e.a[2] = a_.neg(max_a), e.b[2] = max_b;
        add(e);
      }
    }
    // 8. subnormal elements: every subnormal magnitude of A times 1 and times itself (in B's
    // format: the code nearest to it); C the accumulator's smallest subnormal.
    if (a_.f.subnormals)
      for (u64 s = 1; s < (u64{1} << a_.f.man_bits); ++s) {
        Case c = neutral();
        c.a[0] = s, c.b[0] = one_b;
        add(c);
        c.b[0] = s <= b_.max() ? s : one_b;
        c.c = 1;
        add(c);
      }
    {
      Case c = neutral();
      c.c = 1;
      add(c);
      c.a[0] = 1, c.b[0] = 1;
      add(c);
    }
    // 9. accumulator extremes: +-max finite with max * max products, Inf, -Inf and NaN.
    {
      const u64 amax = acc_.max_finite_magnitude();
      for (u64 cc : {amax, acc_neg(amax)}) {
        Case c = neutral().fill(max_a, max_b);
        c.c = cc;
        add(c);
      }
      for (u64 cc : {amax + 1, acc_neg(amax + 1), acc_.all_ones_magnitude()}) {
        Case c = neutral().fill(one_a, one_b);
        c.c = cc;
        add(c);
      }
    }
    // 10. ties of the accumulator's rounding: C = 1 and one or three products of half an ulp
    // of 1 (f32 2^-24, f16 2^-11).
    for (std::size_t n : {std::size_t{1}, std::size_t{3}}) {
      Case c = neutral();
      for (std::size_t i = 0; i < n && i < k_; ++i) set_pow2_product(c, i, -(acc_.man_bits + 1));
      c.c = acc_code(1, 0, false);
      add(c);
    }
    // 11. the order of additions: max * max at k = 0, its negation at k = K/2, 1 * 1 at k = 1
    // and at k = K/2 - 1 (a split into halves rounds in between).
    if (k_ >= 4) {
      for (std::size_t at : {std::size_t{1}, k_ / 2 - 1}) {
        Case c = neutral();
        c.a[0] = max_a, c.b[0] = max_b, c.a[k_ / 2] = a_.neg(max_a), c.b[k_ / 2] = max_b;
        c.a[at] = one_a, c.b[at] = one_b;
        add(c);
      }
    }
    // 12. specials: NaN elements, Inf, Inf * 0, Inf - Inf.
    if (a_.has_nan()) {
      Case c = neutral().fill(one_a, one_b);
      c.a[0] = a_.nan();
      add(c);
    }
    if (b_.has_nan()) {
      Case c = neutral().fill(one_a, one_b);
      c.b[k_ - 1] = b_.nan();
      add(c);
    }
    if (a_.has_inf()) {
      Case c = neutral().fill(one_a, one_b);
      c.a[0] = a_.inf();
      add(c);
      Case z = neutral();
      z.a[0] = a_.inf();
      add(z);
      if (k_ >= 2) {
        c.a[1] = a_.neg(a_.inf());
        add(c);
      }
    }
    // 13. (K >= 17) fused sums of 16 chained: products 1..16 of 2^-d each (d = 10..16) and
    // product 17 one x one, C = +0. One fused sum of 32 aligns all to product 17's E, and at
    // F = 13 each 2^-14 truncates to 0; groups of 16 (Ada) sum the small ones first, exactly.
    if (k_ >= 17)
      for (int d = 10; d <= 16; ++d) {
        Case c = neutral();
        for (std::size_t i = 0; i < 16; ++i) set_pow2_product(c, i, -d);
        c.a[16] = one_a, c.b[16] = one_b;
        add(c);
      }
    return std::move(out_);
  }

  /// One random case (README 6, mma, "A random case").
  Operands random(SplitMix64& rng) const {
    Case c = neutral();
    const u64 kind = rng.below(4);
    auto finite = [&](const ElementCodes& e) {
      const u64 mag = rng.below(e.max() + 1);
      return rng.below(2) ? e.neg(mag) : mag;
    };
    auto band = [&](const ElementCodes& e, int top) {
      const bool neg = rng.below(2);
      const int ex = top - static_cast<int>(rng.below(4));
      const u64 g = rng.next() | (u64{1} << 63);
      return nearest_code(e.f, unpacked({g, ex - 63}, neg), Saturation::finite);
    };
    const int top = -6 + static_cast<int>(rng.below(15));
    const std::size_t half = (k_ + 1) / 2;
    for (std::size_t i = 0; i < k_; ++i) {
      switch (kind) {
        case 0: c.a[i] = draw_bits(rng, a_.f.width), c.b[i] = draw_bits(rng, b_.f.width); break;
        case 1: c.a[i] = finite(a_), c.b[i] = finite(b_); break;
        case 2:
          if (i < half) c.a[i] = finite(a_), c.b[i] = finite(b_);
          else c.a[i] = a_.neg(c.a[i - half]), c.b[i] = c.b[i - half];
          break;
        default: c.a[i] = band(a_, top), c.b[i] = band(b_, top); break;
      }
    }
    // C: any bits (kind 0), else a finite value of 2^-40 .. 2^24 (f16: its whole range), or for
    // kind 3 near the products' magnitude 2^(2 top).
    if (kind == 0) {
      c.c = draw_bits(rng, acc_.width);
    } else {
      const bool neg = rng.below(2);
      const u64 g = rng.next() | (u64{1} << 63);
      const int lo = std::max(-40, acc_.emin() - acc_.man_bits), hi = std::min(24, static_cast<int>(acc_.bias));
      const int e = kind == 3 ? 2 * top + 4 - static_cast<int>(rng.below(9))
                              : lo + static_cast<int>(rng.below(static_cast<u64>(hi - lo + 1)));
      c.c = nearest_code(acc_, unpacked({g, e - 63}, neg), Saturation::finite);
    }
    return c.operands(addend_);
  }

 private:
  struct Case {
    std::vector<u64> a, b;
    u64 c = 0;
    Case& fill(u64 x, u64 y) {
      std::fill(a.begin(), a.end(), x);
      std::fill(b.begin(), b.end(), y);
      return *this;
    }
    Operands operands(bool addend) const {
      Operands o(a);
      o.insert(o.end(), b.begin(), b.end());
      if (addend) o.push_back(c);
      return o;
    }
  };

  Case neutral() const { return Case{std::vector<u64>(k_, 0), std::vector<u64>(k_, 0), 0}; }
  void add(const Case& c) {
    Operands o = c.operands(addend_);
    if (seen_.insert(o).second) out_.push_back(std::move(o));
  }
  u64 acc_neg(u64 code) const { return code ^ (u64{1} << (acc_.width - 1)); }
  u64 acc_code(u64 m, int e, bool neg) const { return nearest_code(acc_, unpacked({m, e}, neg), Saturation::finite); }
  /// A_i * B_i = 2^e as nearly as the formats allow: A_i the code nearest to 2^ceil(e/2), B_i
  /// to 2^(e - ceil(e/2)).
  void set_pow2_product(Case& c, std::size_t i, int e) const {
    const int ea = e >= 0 ? (e + 1) / 2 : -((-e) / 2);
    c.a[i] = nearest_code(a_.f, unpacked({1, ea}, false), Saturation::finite);
    c.b[i] = nearest_code(b_.f, unpacked({1, e - ea}, false), Saturation::finite);
  }

  std::size_t k_;
  ElementCodes a_, b_;
  const Format& acc_;
  bool addend_;
  std::vector<Operands> out_;
  std::set<Operands> seen_;
};

/// mma cases (README 6, "mma"); block-scaled (README 6, "Block-scaled mma"): level 1's element
/// cases with every scale 1, then the scale probes (mma_scale_cases.hpp), duplicates dropped;
/// then the random element cases of the same stream as unscaled files, each with scales drawn
/// from the second stream SplitMix64(seed ^ kMmaScaleStreamSalt).
void mma_cases(const Header& h, u64 random, std::uint64_t seed, const CaseSink& emit) {
  if (h.scale_format == MmaScaleFormat::none) return level1_then_random<MmaCases>(h, random, seed, emit);
  const std::size_t k = h.block, n = h.block / h.scale_block;
  MmaCases cases(h);  // the element columns A B [C]; the scales go between B and C
  auto with_scales = [&](const Operands& plain, const std::vector<u64>& sa, const std::vector<u64>& sb) {
    Operands o(plain.begin(), plain.begin() + static_cast<std::ptrdiff_t>(2 * k));
    o.insert(o.end(), sa.begin(), sa.end());
    o.insert(o.end(), sb.begin(), sb.end());
    if (h.addend) o.push_back(plain[2 * k]);
    return o;
  };
  const std::vector<u64> ones(n, detail::mma_scale_one(h.scale_format));
  std::set<Operands> seen;
  for (const Operands& plain : cases.level1()) {
    Operands o = with_scales(plain, ones, ones);
    if (seen.insert(o).second) emit(o);
  }
  for (const Operands& o : detail::mma_scale_probes(h))
    if (seen.insert(o).second) emit(o);
  SplitMix64 rng(seed), scale_rng(seed ^ kMmaScaleStreamSalt);
  std::vector<u64> sa, sb;
  for (u64 i = 0; i < random; ++i) {
    const Operands plain = cases.random(rng);
    detail::mma_random_scales(h, scale_rng, sa, sb);
    emit(with_scales(plain, sa, sb));  // random cases are never dropped: the count is the count asked
  }
}

}  // namespace

MmaShapeDefaults mma_shape_defaults(const TensorCoreModel& model) {
  const TensorCoreParams& p = model.params();
  MmaShapeDefaults d;
  d.block = static_cast<std::uint32_t>(std::max(32, p.group_size));
  if (p.scale_application == ScaleApplication::none) return d;
  // The instruction each block-scaled model names (docs/TENSOR_CORES.md 7): UE8M0 per 32
  // products (the MX formats), except NVFP4's UE4M3 per 16.
  const bool nvf4 = model.name() == "blackwell-nvf4";
  d.scale_format = nvf4 ? MmaScaleFormat::ue4m3 : MmaScaleFormat::ue8m0;
  d.scale_block = nvf4 ? 16 : 32;
  return d;
}

std::uint64_t random_count(const Header& h, const GenOptions& o) {
  if (o.level < 2 || exhaustive(h)) return 0;
  if (o.count) return *o.count;
  switch (h.operation) {
    case Operation::convert: return kDefaultConvertRandom;
    case Operation::quantize: return kDefaultQuantizeRandom;
    case Operation::dot: return kDefaultDotRandom;
    case Operation::mma: return kDefaultMmaRandom;
    case Operation::dequantize: break;
  }
  return 0;
}

void for_each_case(const Header& h, const GenOptions& o, const CaseSink& emit) {
  const u64 random = random_count(h, o);
  switch (h.operation) {
    case Operation::convert: return convert_cases(h, random, o.seed, emit);
    case Operation::quantize: return quantize_cases(h, random, o.seed, emit);
    case Operation::dequantize: return dequantize_cases(h, emit);
    case Operation::dot: return dot_cases(h, random, o.seed, emit);
    case Operation::mma: return mma_cases(h, random, o.seed, emit);
  }
}

void for_each_written_case(const Evaluator& ev, const GenOptions& o, const CaseSink& emit) {
  const Header& h = ev.header();
  // Only quantize can refuse a case, and only under a dialect that raises on a NaN element of
  // a format without NaN (BlockQuantizer: nan_to_finite = error); write_vectors() leaves such
  // blocks out. Elsewhere nothing needs evaluating.
  const bool may_refuse = h.operation == Operation::quantize &&
                          h.dialect_ref().nan_to_finite == NanToFinite::error && !format(h.to).has_nan();
  if (!may_refuse) return for_each_case(h, o, emit);
  std::vector<std::uint64_t> results(ev.layout().results.size());
  for_each_case(h, o, [&](std::span<const std::uint64_t> ops) {
    if (ev.try_evaluate(ops, results)) emit(ops);
  });
}

CaseSummary summarize_cases(const Evaluator& ev, const GenOptions& o) {
  InputDigest d(ev.layout());
  for_each_written_case(ev, o, [&](std::span<const std::uint64_t> ops) { d.add(ops); });
  return CaseSummary{d.count(), d.hex()};
}

std::uint64_t record_cases(Header& h, const std::function<void(const CaseSink&)>& each) {
  if (h.layout != Layout::cases) throw std::logic_error("record_cases: a run table has no cases or inputs-sha256");
  const LineLayout layout = line_layout(h);
  InputDigest d(layout);
  each([&](std::span<const std::uint64_t> ops) {
    if (ops.size() != layout.operands.size())
      throw std::logic_error("record_cases: " + std::to_string(ops.size()) + " operands, the layout has " +
                             std::to_string(layout.operands.size()));
    d.add(ops);
  });
  h.cases = d.count();
  h.inputs_sha256 = d.hex();
  return d.count();
}

namespace {

// A lower bound of the bytes gen writes, known at once (the exact count needs the pass over
// every case that the header's `cases` and `inputs-sha256` come from): the random cases of
// level 2 times the length of a line. Every data line of a file has the same length: the
// fixed-width hex fields of the layout (operands; results and the 2-digit flags unless
// --inputs-only), a space between two fields (none with --export readmemh) and a newline. The
// header and the level-1 cases are left out, and so are the random cases where the dialect may
// refuse one (for_each_written_case: quantize into a format without NaN under a dialect that
// raises on a NaN element), which would not be written.
std::uint64_t written_bytes_at_least(const Evaluator& ev, const GenOptions& o, const WriteOptions& w) {
  const Header& h = ev.header();
  if (h.operation == Operation::quantize && h.dialect_ref().nan_to_finite == NanToFinite::error && !format(h.to).has_nan())
    return 0;
  const LineLayout& l = ev.layout();
  std::uint64_t digits = 0, fields = 0;
  auto add = [&](int d) {
    digits += static_cast<std::uint64_t>(d);
    ++fields;
  };
  for (const Field& f : l.operands) add(f.digits);
  if (!w.inputs_only) {
    for (const Field& f : l.results) add(f.digits);
    if (l.flags) add(2);
  }
  if (fields == 0) return 0;
  const std::uint64_t line = digits + (w.readmemh ? 0 : fields - 1) + 1;
  // At most kMaxCount (10^9) lines of at most about 25 MB each (dot: two sides of 1024 blocks
  // of 4096 codes): below 2^55, no overflow.
  return random_count(h, o) * line;
}

}  // namespace

std::uint64_t write_vectors(const Evaluator& ev, const GenOptions& o, const WriteOptions& w, OutputFile& out) {
  // Fail now, not after the pass over every case, when the file system or `ulimit -f` cannot
  // take what is sure to be written (a full disk was reported only after that pass: minutes for
  // --count 10^9). Here, so that the CLI and Python both check it.
  out.require_space(written_bytes_at_least(ev, o, w));
  Header h = ev.header();
  h.level = std::to_string(o.level);
  h.seed = o.seed;
  h.generator = std::string(kGeneratorName);
  auto header = [&] { return w.readmemh ? header_text_commented(h, "// ") : header_text(h); };
  // The header lines before `cases` are written, and flushed, before the long pass below: an
  // output that cannot be written at all (a full device, a closed pipe, a used-up quota) fails
  // at once instead of after the pass over every case.
  std::string& text = out.text();
  h.cases = 0;
  const std::string before_cases = [&] {
    const std::string t = header();
    return t.substr(0, t.find(w.readmemh ? "\n// cases = " : "\ncases = ") + 1);
  }();
  text += before_cases;
  out.flush();
  // The header says how many cases follow and what they are, so that a results file cut short
  // or shuffled is caught (README 3, "Completeness").
  const CaseSummary summary = summarize_cases(ev, o);
  h.cases = summary.cases;
  h.inputs_sha256 = summary.sha256;
  const LineLayout& layout = ev.layout();
  const std::string full = header();
  if (full.compare(0, before_cases.size(), before_cases) != 0)
    throw std::logic_error("write_vectors: the header's lines before `cases` changed with the summary");
  text.append(full, before_cases.size());
  text += w.readmemh ? "// " : "# ";
  text += w.inputs_only ? layout.operand_columns() : layout.columns();
  text += '\n';
  out.chunk();

  // Only quantize can refuse a case (a dialect that raises on a NaN element: gfloat); such
  // blocks are left out, so an inputs file lists exactly the cases of the full file.
  const bool may_refuse = h.operation == Operation::quantize;
  const bool separate = !w.readmemh;
  std::vector<std::uint64_t> results(layout.results.size());
  std::uint64_t written = 0;
  auto line = [&](std::span<const std::uint64_t> ops, std::span<const std::uint64_t> res, Flags flags) {
    bool first = true;
    auto field = [&](std::uint64_t v, int digits) {
      if (separate && !first) text += ' ';
      first = false;
      append_hex(text, v, digits);
    };
    for (std::size_t i = 0; i < ops.size(); ++i) field(ops[i], layout.operands[i].digits);
    if (!w.inputs_only) {
      for (std::size_t i = 0; i < res.size(); ++i) field(res[i], layout.results[i].digits);
      if (layout.flags) field(flags, 2);
    }
    text += '\n';
    out.chunk();
    ++written;
  };
  // dot and mma: the cases are computed in batches by softmx::dot_pairs / mma_pairs (the
  // batched kernels, the same results as one evaluate() per case), then written in order.
  if ((h.operation == Operation::dot || h.operation == Operation::mma) && !w.inputs_only) {
    const std::size_t per = layout.operands.size();
    // About 4 Mi codes per batch (an mma header has no blocks: one vector of k per side).
    const std::size_t codes = std::size_t{h.block} * std::max<std::size_t>(h.blocks, 1);
    const std::size_t batch = std::clamp<std::size_t>((std::size_t{1} << 22) / codes, 1, 4096);
    std::vector<std::uint64_t> ops, res;
    std::vector<Flags> fl;
    auto flush = [&] {
      const std::size_t n = ops.size() / per;
      if (n == 0) return;
      res.resize(n);
      fl.resize(n);
      if (h.operation == Operation::dot) ev.evaluate_dots(ops, n, res, fl);
      else ev.evaluate_mmas(ops, n, res);  // mma lines carry no flags
      for (std::size_t l = 0; l < n; ++l) line(std::span(ops.data() + l * per, per), std::span(res.data() + l, 1), fl[l]);
      ops.clear();
    };
    for_each_case(h, o, [&](std::span<const std::uint64_t> c) {
      ops.insert(ops.end(), c.begin(), c.end());
      if (ops.size() / per == batch) flush();
    });
    flush();
    return written;
  }
  for_each_case(h, o, [&](std::span<const std::uint64_t> ops) {
    Flags flags = 0;
    if (!w.inputs_only || may_refuse) {
      try {
        flags = ev.evaluate(ops, results);
      } catch (const std::invalid_argument&) {
        if (!may_refuse) throw;
        return;
      }
    }
    line(ops, results, flags);
  });
  if (written != summary.cases)
    throw std::logic_error("write_vectors: wrote " + std::to_string(written) + " cases, the header says " +
                           std::to_string(summary.cases));
  return written;
}

}  // namespace softmx::vec
