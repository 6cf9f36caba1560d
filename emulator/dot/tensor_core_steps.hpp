// emulator/dot/tensor_core_steps.hpp: the tensor-core model's values and steps (internal):
// decoded operands and products, the accumulator grid and its rounding, the exact additions,
// and the operand checks, shared by the instruction chains of tensor_core.cpp (Evaluation,
// run_mma) and the GST-FDPA models' runs (tensor_core_gst.cpp). Exact integer arithmetic
// throughout (tensor_core.cpp's opening comment).
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "dot/tensor_core_dot.hpp"
#include "dot/wide_accumulator.hpp"
#include "softmx/tensor_core.hpp"

namespace softmx::detail::tc {

using detail::WideAccumulator;

/// A decoded element or accumulator value. finite: (-1)^sign * n * 2^q with e = q + m the
/// exponent clamped to the format's emin (the operand-exponent convention of the header).
struct Operand {
  ValueClass cls = ValueClass::zero;
  bool sign = false;
  bool signalling = false;
  std::uint64_t n = 0;
  int q = 0;
  int e = 0;
};

inline Operand decode(const Format& f, std::uint64_t code, bool flush_subnormals) {
  const Unpacked u = unpack(f, code);
  Operand o;
  o.cls = u.cls;
  o.sign = u.sign;
  o.signalling = u.cls == ValueClass::nan && !u.nan_quiet;
  if (u.cls != ValueClass::finite) return o;
  const int emin = f.emin();
  if (u.exp < emin && flush_subnormals) {
    o.cls = ValueClass::zero;
    return o;
  }
  const int e = std::max<int>(u.exp, emin);
  // sig holds the value's bits from bit 63 down; the significand integer N has its unit bit
  // at position 63 - m for a normal value and (e - u.exp) places further left of the leading
  // bit for a subnormal one. The shift is at most 63 for every format softmx has (the
  // smallest subnormal's leading bit is m places below emin).
  const int shift = 63 - f.man_bits + (e - u.exp);
  o.n = u.sig >> shift;
  o.q = e - f.man_bits;
  o.e = e;
  return o;
}

/// One product A_k * B_k (scaled), classified.
struct Product {
  ValueClass cls = ValueClass::zero;  // zero, finite, inf, nan
  bool neg = false;
  bool signalling = false;
  std::uint64_t n = 0;
  int q = 0;
  int ae = 0;  // alignment exponent
};

/// The accumulator grid: fraction bits, exponent range and mode of f32/f16 accumulation.
struct Grid {
  const Format* f = nullptr;
  int p = 23;
  Rounding mode = Rounding::rz;
  int emin = -126, emax = 127;
  bool flush = false;
  std::uint64_t nan_code = 0;
};

/// A value on the grid: zero, finite kept * 2^qe, or Inf.
struct GridValue {
  ValueClass cls = ValueClass::zero;
  bool sign = false;
  std::uint64_t kept = 0;
  int qe = 0;
};

inline int lead_exp(std::uint64_t kept, int qe) { return static_cast<int>(std::bit_width(kept)) - 1 + qe; }

/// Rounds the exact non-zero value u onto the grid (header step 5). Sets overflow when Inf
/// was reached.
inline GridValue round_to_grid(const Unpacked& u, const Grid& g, bool& overflow) {
  GridValue r;
  r.sign = u.sign;
  const int qe = std::max<int>(u.exp, g.emin) - g.p;
  const int d = 63 - (u.exp - qe);  // bits of sig below the quantum: >= 63 - p >= 40
  std::uint64_t kept = 0;
  bool half = false, rest = false;
  if (d >= 65) {
    rest = true;  // the whole value lies below half a quantum
  } else if (d == 64) {
    half = true;  // sig's bit 63 is the half-quantum bit
    rest = (u.sig << 1) != 0 || u.sticky;
  } else {
    kept = u.sig >> d;
    const std::uint64_t rem = u.sig & ((std::uint64_t{1} << d) - 1);
    half = (rem >> (d - 1)) & 1;
    rest = (rem & ((std::uint64_t{1} << (d - 1)) - 1)) != 0 || u.sticky;
  }
  const bool inexact = half || rest;
  bool up = false;
  switch (g.mode) {
    case Rounding::rz: break;
    case Rounding::rne: up = half && (rest || (kept & 1)); break;
    case Rounding::rna: up = half; break;
    case Rounding::ru: up = !u.sign && inexact; break;
    case Rounding::rd: up = u.sign && inexact; break;
    case Rounding::ro:
      if (inexact) kept |= 1;
      break;
    case Rounding::rs: break;  // rejected by the constructor
  }
  kept += up;
  r.qe = qe;
  r.kept = kept;
  if (kept == 0) return r;  // rounded to zero, sign kept
  if (lead_exp(kept, qe) > g.emax) {
    overflow = true;
    r.cls = ValueClass::inf;
    return r;
  }
  if (g.flush && lead_exp(kept, qe) < g.emin) {
    r.kept = 0;
    return r;
  }
  r.cls = ValueClass::finite;
  return r;
}

/// The accumulator code of a grid value (exact: every grid value is a value of the format).
inline std::uint32_t encode(const GridValue& v, const Grid& g) {
  Unpacked u;
  u.sign = v.sign;
  if (v.cls == ValueClass::inf) u.cls = ValueClass::inf;
  else if (v.cls == ValueClass::finite) {
    const int w = static_cast<int>(std::bit_width(v.kept));
    u.cls = ValueClass::finite;
    u.exp = lead_exp(v.kept, v.qe);
    u.sig = v.kept << (64 - w);
  }
  Context exact;  // nothing is rounded; saturation none so that Inf stays Inf
  exact.saturation = Saturation::none;
  return static_cast<std::uint32_t>(round_pack(*g.f, u, exact, ocp_dialect()).code);
}

/// The accumulator after a group as the next group's addend term: its exponent e is clamped to
/// the grid's emin, as it would be were it read back as C.
inline Operand operand_of(const GridValue& v, const Grid& g) {
  Operand o;
  o.cls = v.cls;
  o.sign = v.sign;
  if (v.cls == ValueClass::finite) {
    o.n = v.kept;
    o.q = v.qe;
    o.e = std::max(lead_exp(o.n, o.q), g.emin);
  }
  return o;
}

/// The flags of the accumulator value `v` against `exact`, the exact sum it stands for: overflow
/// and inexact when v is Inf; otherwise inexact when they differ, with underflow when v is zero
/// or below the grid's smallest normal exponent g.emin (tininess after rounding to the grid).
inline Flags rounding_flags(const GridValue& v, const WideAccumulator& exact, const Grid& g) {
  if (v.cls == ValueClass::inf) return static_cast<Flags>(flag::overflow | flag::inexact);
  WideAccumulator diff = exact;
  if (v.kept) diff.add(!v.sign, v.kept, v.qe);
  if (diff.is_zero()) return 0;
  if (v.kept == 0 || lead_exp(v.kept, v.qe) < g.emin) return static_cast<Flags>(flag::inexact | flag::underflow);
  return flag::inexact;
}

inline void add_exact(WideAccumulator& acc, bool neg, std::uint64_t n, int q) {
  if (n) acc.add(neg, n, q);
}

/// Which zeros a group's zero terms are, for the sign of an exact zero sum.
struct ZeroSigns {
  bool all_negative = true, all_positive = true;
  void see(bool negative) { (negative ? all_positive : all_negative) = false; }
};

/// The product of two decoded operands, scaled by 2^x; NaN/Inf/zero classified (header).
inline Product product(const Operand& a, const Operand& b, int x, AlignReference ref) {
  Product pr;
  pr.neg = a.sign != b.sign;
  pr.signalling = a.signalling || b.signalling;
  if (a.cls == ValueClass::nan || b.cls == ValueClass::nan) {
    pr.cls = ValueClass::nan;
  } else if (a.cls == ValueClass::inf || b.cls == ValueClass::inf) {
    pr.cls = (a.cls == ValueClass::zero || b.cls == ValueClass::zero) ? ValueClass::nan : ValueClass::inf;
    if (pr.cls == ValueClass::nan) pr.signalling = true;  // Inf * 0: invalid, as a signalling NaN is
  } else if (a.cls == ValueClass::zero || b.cls == ValueClass::zero) {
    pr.cls = ValueClass::zero;
  } else {
    pr.cls = ValueClass::finite;
    pr.n = a.n * b.n;
    pr.q = a.q + b.q + x;
    pr.ae = ref == AlignReference::operand_exponents ? a.e + b.e + x : lead_exp(pr.n, pr.q);
  }
  return pr;
}

inline void check_codes(FormatId f, std::span<const std::uint8_t> codes, const char* side) {
  if (!is_mx_element(f))
    throw std::invalid_argument(std::string("mma: ") + side + " format " + std::string(format(f).name) +
                                " is not an MX element format (e4m3 e5m2 e3m2 e2m3 e2m1 int8)");
  for (std::size_t i = 0; i < codes.size(); ++i)
    if (codes[i] > format(f).code_mask())
      throw std::invalid_argument(std::string("mma: ") + side + "[" + std::to_string(i) + "] = " + std::to_string(codes[i]) +
                                  " is out of range for " + std::string(format(f).name));
}

/// The scales of a block-scaled mma, or none (scale_block 0).
struct MmaScales {
  FormatId format = FormatId::e8m0;
  std::size_t block = 0;
  std::span<const std::uint8_t> a, b;
};

/// GST-FDPA (docs/research/blackwell-mma.md 4; MMA-Sim fdpa.py:199-227) over a.size() products
/// in runs of group_size, C first, each run's RZ result the next run's C. Products of group g
/// (scale_group each) use scales sa/sb[(g * scale_group) / block]. has_c false (DotGeneral): C
/// is +0 and takes no part in the sign of a zero result.
///
/// trace, when not null, receives one TensorCoreTraceGroup per run (header of tensor_core.hpp):
/// C (or the previous run's result) as the term of index -1, then each scale group with a
/// non-zero scaled sum as one term of index = its first product and count = its products, in k
/// order; the run's E and quantum E - F, each term's cut, the exact sum of the cut terms and the
/// run's result code. Specials (a NaN scale, a NaN or Inf C) set trace->special and record no
/// run. Recording only reads what the computation produced: the result is the same either way,
/// and nothing is allocated for it when trace is null.
Result run_gst(const TensorCoreParams& p, FormatId fa, std::span<const std::uint8_t> a, FormatId fb,
               std::span<const std::uint8_t> b, const MmaScales& sc, std::uint32_t c_code, bool has_c,
               TensorCoreTrace* trace = nullptr);

}  // namespace softmx::detail::tc
