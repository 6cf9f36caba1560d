// emulator/vectors/report_classes.cpp: see report_data.hpp (and docs/REPORT.md): the numbers a
// report counts with: the class of each case against the destination's grid (CaseClassifier),
// ulp distances and their histograms, the domain grids and input bands. report_data.cpp collects
// them from verify's pass; report_json.cpp writes them.
#include "softmx/vectors/report_data.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>

#include "core/enum_names.hpp"
#include "softmx/batch.hpp"
#include "softmx/convert.hpp"
#include "softmx/describe.hpp"
#include "softmx/error.hpp"
#include "softmx/explain.hpp"
#include "softmx/sha256.hpp"
#include "softmx/text.hpp"
#include "softmx/version.hpp"
#include "softmx/vectors/candidates.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/report.hpp"
#include "softmx/vectors/table_diff.hpp"

namespace softmx::vec {
namespace {

using u64 = std::uint64_t;
__extension__ using i128 = __int128;

constexpr std::size_t idx(InputClass c) { return static_cast<std::size_t>(c); }

// ---- the class of a value against a destination's grid ----

/// What classing a value against a format needs: its grid's exponent range and precision, and
/// its largest finite magnitudes (the negative side of a two's complement format reaches one
/// step further: int8's -2).
struct Grid {
  int emin = 0, m = 0;
  bool subnormals = true, fixed = false;
  Unpacked max_pos, max_neg;
};

Grid grid_of(const Format& f) {
  Grid g;
  g.emin = f.emin();
  g.m = f.man_bits;
  g.subnormals = f.subnormals;
  g.fixed = f.fixed_point;
  g.max_pos = unpack(f, f.max_finite_magnitude());
  g.max_neg = f.sign == SignEncoding::twos_complement ? unpack(f, std::uint64_t{1} << (f.width - 1)) : g.max_pos;
  return g;
}

/// |x| > |m|, both finite (x may carry sticky bits).
bool above(const Unpacked& x, const Unpacked& m) {
  if (x.exp != m.exp) return x.exp > m.exp;
  if (x.sig != m.sig) return x.sig > m.sig;
  return x.sticky;
}

/// x (finite, exact) lies exactly halfway between two multiples of 2^q.
bool is_tie(const Unpacked& x, int q) {
  if (x.sticky) return false;
  const long d = static_cast<long>(x.exp) - q;
  if (d < -1 || d >= 63) return false;
  if (d == -1) return x.sig == std::uint64_t{1} << 63;
  const int hb = 62 - static_cast<int>(d);  // the bit worth 2^(q-1)
  const u64 mask = (std::uint64_t{1} << (hb + 1)) - 1;
  return (x.sig & mask) == std::uint64_t{1} << hb;
}

InputClass class_of_value(const Unpacked& u, const Grid& g) {
  switch (u.cls) {
    case ValueClass::zero: return InputClass::zero;
    case ValueClass::inf: return InputClass::inf;
    case ValueClass::nan: return InputClass::nan;
    case ValueClass::finite: break;
  }
  if (above(u, u.sign ? g.max_neg : g.max_pos)) return InputClass::overflow;
  const bool below = !g.fixed && u.exp < g.emin;
  if (below && !g.subnormals) return InputClass::subnormal;
  const int q = g.fixed || below ? g.emin - g.m : u.exp - g.m;
  if (is_tie(u, q)) return InputClass::tie;
  return below ? InputClass::subnormal : InputClass::normal;
}

/// The order in which a case with several elements takes its class: the rarest first.
int priority(InputClass c) {
  switch (c) {
    case InputClass::nan: return 0;
    case InputClass::inf: return 1;
    case InputClass::overflow: return 2;
    case InputClass::tie: return 3;
    case InputClass::subnormal: return 4;
    case InputClass::normal: return 5;
    case InputClass::zero: return 6;
  }
  return 7;
}

/// The number of V in [lo, hi] with V mod p == t (t < p).
u64 count_congruent(u64 lo, u64 hi, u64 t, u64 p) {
  auto upto = [&](u64 x) -> u64 { return x < t ? 0 : (x - t) / p + 1; };
  return upto(hi) - (lo == 0 ? 0 : upto(lo - 1));
}

std::string format_name(const Format& f) { return std::string(f.name.view()); }

}  // namespace

namespace {
constexpr softmx::detail::EnumName<InputClass> kInputClass[] = {
    {InputClass::normal, "normal"}, {InputClass::subnormal, "subnormal"}, {InputClass::overflow, "overflow"},
    {InputClass::zero, "zero"},     {InputClass::nan, "nan"},             {InputClass::inf, "inf"},
    {InputClass::tie, "tie"}};
}  // namespace

// The table's spellings are string literals, so data() is NUL-terminated.
const char* name(InputClass c) { return softmx::detail::enum_name(c, kInputClass).data(); }

// ---- CaseClassifier ----

CaseClassifier::CaseClassifier(const Header& h) : h_(h), layout_(line_layout(h)) {
  // convert, dequantize, quantize: the header's formats, each value classified against the
  // destination's values; dot and mma: the result's format (below).
  src_ = h.from;
  dst_ = h.to;
  const auto against = [this](const char* what, const char* how) {
    return std::string(what) + " against " + format_name(dst_) + "'s values" + how;
  };
  switch (h.operation) {
    case Operation::convert:
      basis_ = against("each input's exact value",
                       ": NaN, Inf, zero; overflow beyond its largest finite magnitude; tie exactly halfway between two "
                       "of its values; subnormal below its smallest normal value; normal the rest");
      break;
    case Operation::dequantize:
      basis_ = against("each element's value times 2^(SCALE - 127)", " (a NaN scale is nan), as for convert");
      break;
    case Operation::quantize:
      basis_ = against("each element divided by softmx's scale,", "; a block takes the first class any of its "
                       "elements has, in the order nan, inf, overflow, tie, subnormal, normal (a block of zeros is zero)");
      break;
    case Operation::dot:
    case Operation::mma:
      dst_ = *layout_.results[0].format;
      src_ = dst_;
      basis_ = std::string("nan or inf when an operand (element, scale") + (h.operation == Operation::mma ? ", C" : "") +
               ") is NaN or Inf; otherwise softmx's result: overflow (Inf" +
               (h.operation == Operation::dot ? std::string(", or the overflow flag") : std::string()) + "), zero, subnormal" +
               (h.operation == Operation::dot ? std::string(" (or the underflow flag)") : std::string()) +
               ", normal; ties are not told apart";
      break;
  }
}

InputClass CaseClassifier::classify_code(std::uint64_t code) const { return class_of_value(unpack(src_, code), grid_of(dst_)); }

InputClass CaseClassifier::classify(std::span<const std::uint64_t> operands, std::span<const std::uint64_t> want,
                                    Flags want_flags) const {
  switch (h_.operation) {
    case Operation::convert:
      return classify_code(operands[0]);
    case Operation::dequantize: {
      if (operands[0] == 0xFF) return InputClass::nan;
      Unpacked u = unpack(src_, operands[1]);
      if (u.cls == ValueClass::finite) u.exp += static_cast<int>(operands[0]) - 127;
      return class_of_value(u, grid_of(dst_));
    }
    case Operation::quantize: {
      if (want.empty() || want[0] == 0xFF) return InputClass::nan;
      const int shift = static_cast<int>(want[0]) - 127;
      const Grid g = grid_of(dst_);
      InputClass best = InputClass::zero;
      for (std::size_t i = 0; i < h_.block && i < operands.size(); ++i) {
        Unpacked u = unpack(src_, operands[i]);
        if (u.cls == ValueClass::finite) u.exp -= shift;
        const InputClass c = class_of_value(u, g);
        if (priority(c) < priority(best)) best = c;
      }
      return best;
    }
    case Operation::dot:
    case Operation::mma: {
      bool nan = false, inf = false;
      for (std::size_t i = 0; i < operands.size() && i < layout_.operands.size(); ++i) {
        const auto& f = layout_.operands[i].format;
        if (!f) continue;
        const ValueClass c = unpack(*f, operands[i]).cls;
        nan |= c == ValueClass::nan;
        inf |= c == ValueClass::inf;
      }
      if (nan) return InputClass::nan;
      if (inf) return InputClass::inf;
      const Unpacked r = unpack(dst_, want[0]);
      if (r.cls == ValueClass::inf || r.cls == ValueClass::nan || (want_flags & flag::overflow)) return InputClass::overflow;
      if (r.cls == ValueClass::zero) return InputClass::zero;
      if (r.exp < dst_.emin() || (want_flags & flag::underflow)) return InputClass::subnormal;
      return InputClass::normal;
    }
  }
  return InputClass::normal;
}

std::optional<ClassArray> CaseClassifier::count_codes_by_binades(std::uint64_t lo, std::uint64_t hi) const {
  const Format& s = src_;
  if (h_.operation != Operation::convert || s.sign != SignEncoding::magnitude || s.exp_bits < 1 || s.width > 64 || lo > hi)
    return std::nullopt;
  ClassArray out{};
  const Grid g = grid_of(dst_);
  const int ms = s.man_bits, es = s.exp_bits;
  const u64 emax_field = (u64{1} << es) - 1;
  const u64 all_ones = s.all_ones_magnitude();

  // Codes a..b of one binade e (value V * 2^qs, V from va up by one per code), one sign.
  auto segment = [&](bool neg, u64 a, u64 b, u64 va, int e, int qs) {
    const Unpacked& mx = neg ? g.max_neg : g.max_pos;
    const u64 n = b - a + 1;
    u64 n_ovf = 0;
    if (e > mx.exp) {
      n_ovf = n;
    } else if (e == mx.exp) {
      const int sh = 63 - (e - qs);  // e - qs: the value's bits below its leading one, < 63
      const u64 vmax = sh >= 64 ? 0 : mx.sig >> sh;
      const u64 vb = va + n - 1;
      if (vb > vmax) n_ovf = vb - std::max(vmax, va - 1);
    }
    out[idx(InputClass::overflow)] += n_ovf;
    const u64 m = n - n_ovf;  // the codes below the overflow, a..a+m-1
    if (m == 0) return;
    const bool below = !g.fixed && e < g.emin;
    if (below && !g.subnormals) {
      out[idx(InputClass::subnormal)] += m;
      return;
    }
    const int q = g.fixed || below ? g.emin - g.m : e - g.m;
    const int tq = q - 1 - qs;  // 2^(q-1) in units of 2^qs
    u64 ties = 0;
    if (tq >= 0 && tq < 63) {
      const u64 t = u64{1} << tq;
      if (tq + 1 >= 64) ties = va <= t && t <= va + m - 1;
      else ties = count_congruent(va, va + m - 1, t, u64{1} << (tq + 1));
    }
    out[idx(InputClass::tie)] += ties;
    out[idx(below ? InputClass::subnormal : InputClass::normal)] += m - ties;
  };

  // Magnitudes ml..mh of one sign.
  auto magnitudes = [&](bool neg, u64 ml, u64 mh) {
    for (u64 e_field = ml >> ms; e_field <= (mh >> ms); ++e_field) {
      u64 a = std::max(ml, e_field << ms), b = std::min(mh, ((e_field + 1) << ms) - 1);
      if (s.specials == Specials::ieee && e_field == emax_field) {
        if (a == e_field << ms) {
          ++out[idx(InputClass::inf)];
          ++a;
        }
        if (a <= b) out[idx(InputClass::nan)] += b - a + 1;
        continue;
      }
      if (s.specials == Specials::fn && b == all_ones) {
        ++out[idx(InputClass::nan)];
        if (a == b) continue;
        --b;
      }
      if (e_field == 0 && s.subnormals) {
        if (a == 0) {
          ++out[idx(neg && s.specials == Specials::fnuz ? InputClass::nan : InputClass::zero)];
          if (b == 0) continue;
          a = 1;
        }
        const int qs = s.emin() - ms;  // subnormal codes c are c * 2^qs
        while (a <= b) {
          const int j = 63 - std::countl_zero(a);
          const u64 end = std::min(b, (u64{2} << j) - 1);
          segment(neg, a, end, a, qs + j, qs);
          a = end + 1;
        }
      } else {
        const int e = static_cast<int>(e_field) - s.bias;
        segment(neg, a, b, (u64{1} << ms) + (a - (e_field << ms)), e, e - ms);
      }
    }
  };

  const u64 sign_bit = u64{1} << (s.width - 1);
  const u64 half_hi = sign_bit - 1;
  if (lo <= half_hi) magnitudes(false, lo, std::min(hi, half_hi));
  if (hi >= sign_bit) magnitudes(true, std::max(lo, sign_bit) - sign_bit, hi - sign_bit);
  return out;
}

ClassArray CaseClassifier::count_codes(std::uint64_t lo, std::uint64_t hi) const {
  if (src_.width > 16) {
    if (auto r = count_codes_by_binades(lo, hi)) return *r;
  }
  ClassArray out{};
  const Grid g = grid_of(dst_);
  for (u64 c = lo;; ++c) {
    ++out[idx(class_of_value(unpack(src_, c), g))];
    if (c == hi) break;
  }
  return out;
}

// ---- ulps ----

namespace {

/// A code's place among its format's values in increasing order (+0 and -0 both 0).
i128 ordinal(const Format& f, u64 code) {
  switch (f.sign) {
    case SignEncoding::magnitude: {
      const u64 sign_bit = u64{1} << (f.width - 1);
      const i128 mag = static_cast<i128>(code & (sign_bit - 1));
      return code & sign_bit ? -mag : mag;
    }
    case SignEncoding::twos_complement: {
      const u64 sign_bit = u64{1} << (f.width - 1);
      return code & sign_bit ? static_cast<i128>(code) - (static_cast<i128>(sign_bit) << 1) : static_cast<i128>(code);
    }
    case SignEncoding::none: break;
  }
  return static_cast<i128>(code);
}

}  // namespace

UlpDistance ulp_distance(const Format& f, std::uint64_t device, std::uint64_t softmx) {
  UlpDistance d;
  if (device == softmx) return d;
  const Unpacked a = unpack(f, device), b = unpack(f, softmx);
  if (a.cls == ValueClass::nan || b.cls == ValueClass::nan) {
    d.kind = UlpDistance::Kind::nan;
    return d;
  }
  if (a.cls == ValueClass::zero && b.cls == ValueClass::zero) {
    d.kind = UlpDistance::Kind::zero_sign;
    return d;
  }
  const i128 x = ordinal(f, device) - ordinal(f, softmx);
  d.kind = UlpDistance::Kind::ulps;
  d.negative = x < 0;
  d.magnitude = static_cast<u64>(x < 0 ? -x : x);
  return d;
}

std::string UlpDistance::text() const {
  switch (kind) {
    case Kind::same: return "same";
    case Kind::nan: return "NaN";
    case Kind::zero_sign: return "+0 vs -0";
    case Kind::ulps: break;
  }
  return std::string(negative ? "-" : "+") + std::to_string(magnitude) + (magnitude == 1 ? " ulp" : " ulps");
}

void UlpHistogram::add(const UlpDistance& d, std::uint64_t weight) {
  switch (d.kind) {
    case UlpDistance::Kind::same: return;
    case UlpDistance::Kind::nan: nan += weight; return;
    case UlpDistance::Kind::zero_sign: zero_sign += weight; return;
    case UlpDistance::Kind::ulps: break;
  }
  const int b = static_cast<int>(std::bit_width(d.magnitude));
  bins[d.negative ? -b : b] += weight;
}

std::uint64_t UlpHistogram::total() const {
  u64 t = nan + zero_sign;
  for (const auto& [k, v] : bins) t += v;
  return t;
}

// ---- grids and bands ----

void DomainGrid::resize(std::uint32_t x, std::uint32_t y) {
  nx = x;
  ny = y;
  checked.assign(static_cast<std::size_t>(x) * y, 0);
  failed.assign(static_cast<std::size_t>(x) * y, 0);
}

void DomainGrid::add(std::uint32_t x, std::uint32_t y, std::uint64_t c, std::uint64_t f) {
  const std::size_t i = static_cast<std::size_t>(y) * nx + x;
  checked[i] += c;
  failed[i] += f;
}

InputBand::InputBand(std::uint64_t f, std::uint64_t l, int d, std::uint32_t bins) : first(f), last(l), digits(d) {
  const u64 n = l - f;  // inputs - 1
  width = n / bins + 1;
  failed.assign(static_cast<std::size_t>(n / width + 1), 0);
}

void InputBand::add(std::uint64_t a, std::uint64_t b) {
  for (u64 i = (a - first) / width; i <= (b - first) / width; ++i) {
    const u64 lo = std::max(a, first + i * width);
    const u64 hi = std::min(b, first + i * width + (width - 1));
    failed[i] += hi - lo + 1;
  }
}

std::uint64_t InputBand::total() const {
  u64 t = 0;
  for (u64 v : failed) t += v;
  return t;
}

}  // namespace softmx::vec
