// emulator/vectors/generate_mma.cpp: the cases of mma files (README 6, "mma" and "Block-scaled mma"),
// and the shape defaults of each tensor-core model (mma_shape_defaults).
#include "generate_cases.hpp"

#include "mma_scale_cases.hpp"

namespace softmx::vec::gen_detail {
namespace {

/// Builds mma cases of one header (README 6, "mma"): K products A_i * B_i and an addend C in
/// the accumulator format. Every case is A_1..A_K B_1..B_K C (C dropped when addend = no).
class MmaCases {
 public:
  explicit MmaCases(const Header& h)
      : k_(h.block), a_(h.from), b_(h.to), acc_(format(h.accumulator)), addend_(h.addend) {}

  std::vector<Operands> level1() {
    const u64 one_a = a_.one(), one_b = b_.one(), max_a = a_.max(), max_b = b_.max();
    // 1. zeros. The second case, every product -0 (A -0, B +0) with C = -0, is the probe of
    // the sign of an all -0 sum (docs/TENSOR_CORES.md 5): -0 under IEEE 754 6.3 (softmx),
    // +0 where the sum starts from +0 (MMA-Sim's torch sum, fdpa.py:79).
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
    // 14. (f16 accumulator) chained steps with specials (docs/TENSOR_CORES.md 5): A_1 * B_1 =
    // max * max, which overflows f16 in the first fused sum when max_A * max_B >= 2^16 (e4m3,
    // e5m2); then C = -Inf, added after the products by mma.sync's HMMA emulation (+Inf + -Inf
    // = NaN) and a term of the first fused sum elsewhere (-Inf); then, when A or B has Inf, C =
    // +0 and product j = -Inf * one for j = 2 (the same fused sum everywhere: -Inf), 3 (the
    // second HMMA step of hopper-fp8-mma), 17 (Ada's second group of 16) and 33 (the second
    // instruction when K = 64), j <= K: each model gives NaN where its step structure lets the
    // overflowed +Inf meet the -Inf, -Inf where one fused sum holds both. An f32 accumulator
    // cannot overflow from FP8 products, so f32 files do not have these.
    if (acc_.width == 16) {
      Case c = neutral();
      c.a[0] = max_a, c.b[0] = max_b;
      c.c = acc_neg(acc_.max_finite_magnitude() + 1);  // -Inf
      add(c);
      if (a_.has_inf() || b_.has_inf())
        for (std::size_t j : {std::size_t{2}, std::size_t{3}, std::size_t{17}, std::size_t{33}}) {
          if (j > k_) continue;
          Case d = neutral();
          d.a[0] = max_a, d.b[0] = max_b;
          if (a_.has_inf()) d.a[j - 1] = a_.neg(a_.inf()), d.b[j - 1] = one_b;
          else d.a[j - 1] = one_a, d.b[j - 1] = b_.neg(b_.inf());
          add(d);
        }
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

}  // namespace

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

}  // namespace softmx::vec::gen_detail

namespace softmx::vec {

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

}  // namespace softmx::vec
