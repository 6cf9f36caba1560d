// emulator/vectors/generate_convert.cpp: the cases of convert files (README 6, "convert"): boundary points of the
// destination, their neighbouring source codes, and random draws.
#include "generate_cases.hpp"

namespace softmx::vec::gen_detail {
namespace {

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

}  // namespace

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

}  // namespace softmx::vec::gen_detail
