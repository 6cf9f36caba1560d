// tools/softmx/cmd_explain.cpp: `softmx explain`, the anatomy of one conversion.
//
//   softmx explain --to DST [options] VALUE           VALUE decimal or hex float, taken exactly
//   softmx explain --from SRC --to DST [options] HEX  HEX a raw code of SRC
//
// Prints the input's exact value and bit fields, the destination's two representable
// neighbours (codes and exact values), the distance to each in units of the last place, whether
// it is a tie, and the result under every rounding mode, both saturations and every dialect,
// each with its flags; and, for stochastic rounding, the exact probability of rounding away.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "describe.hpp"
#include "softmx/convert.hpp"
#include "softmx/exact.hpp"

namespace softmx::cli {
namespace {

struct Input {
  std::string label;      // how the user gave it
  Unpacked u;             // exact (sticky only for a decimal that is not dyadic)
  ExactValue exact;       // the exact value
  std::optional<std::uint64_t> code;  // when given as a code of --from
};

Input read_input(const ConversionOptions& o, const std::string& text) {
  Input in;
  if (o.from) {
    const Format& src = format(*o.from);
    in.code = parse_code(src, text, "VALUE");
    in.u = unpack(src, *in.code);
    in.exact = in.u.cls == ValueClass::nan ? ExactValue{ValueClass::nan, in.u.sign, in.u.nan_quiet, {}} : from_unpacked(in.u);
    in.label = std::string(src.name) + " " + hex(*in.code, src.hex_digits());
  } else {
    std::string err;
    auto v = parse_exact(text, &err);
    if (!v) throw UsageError("VALUE \"" + text + "\": " + err);
    in.exact = *v;
    in.u = to_unpacked(*v);
    in.label = text + " (decimal, taken exactly)";
  }
  return in;
}

std::string pow2_text(long e) { return "2^" + std::to_string(e); }

/// The value a magnitude code would have if the format's binade pattern continued past its
/// largest finite code (e4m3 0x7F -> 480, e5m2 0x7C -> 65536, e8m0 0xFF -> 2^128).
Rational virtual_value(const Format& f, std::uint64_t mag) {
  const std::uint64_t e = mag >> f.man_bits;
  const std::uint64_t frac = mag & ((std::uint64_t{1} << f.man_bits) - 1);
  if (f.subnormals && e == 0) return dyadic(BigInt(frac), f.emin() - f.man_bits);
  return dyadic(BigInt((std::uint64_t{1} << f.man_bits) | frac), static_cast<long>(e) - f.bias - f.man_bits);
}

std::uint64_t inf_code(const Format& f) { return ((std::uint64_t{1} << f.exp_bits) - 1) << f.man_bits; }

std::string describe_format(const Format& f) {
  std::string s = std::string(f.name) + ": ";
  if (f.sign == SignEncoding::twos_complement) {
    s += "8-bit two's complement with an implicit 2^-" + std::to_string(f.man_bits) + " (MXINT8)";
  } else {
    s += f.sign == SignEncoding::magnitude ? "sign, " : "no sign, ";
    s += std::to_string(f.exp_bits) + "-bit exponent (bias " + std::to_string(f.bias) + "), " +
         std::to_string(f.man_bits) + "-bit fraction";
  }
  const std::uint64_t maxc = f.max_finite_magnitude();
  s += "; max finite " + value_text(f, maxc) + " (" + hex(maxc, f.hex_digits()) + ")";
  if (f.fixed_point) {
    s += "; step " + pow2_text(-f.man_bits) + "; 80 decodes as -2";
  } else {
    s += "; min normal " + pow2_text(f.emin());
    if (f.subnormals) s += ", min subnormal " + pow2_text(f.emin() - f.man_bits);
  }
  if (!f.has_zero()) s += "; no zero";
  if (f.has_inf()) s += "; Inf " + hex(inf_code(f), f.hex_digits());
  else if (f.sign != SignEncoding::none || f.has_nan()) s += "; no Inf";
  if (f.specials == Specials::fn) s += "; NaN " + hex(f.all_ones_magnitude(), f.hex_digits());
  if (f.specials == Specials::ieee) s += "; NaN exponent all ones, fraction non-zero";
  if (!f.has_nan()) s += "; no NaN";
  return s;
}

// One result in a table cell: code, value (shortened with ~), raised flag letters.
std::string cell(const Format& dst, const Result& r) {
  std::string v = value_text(dst, r.code);
  if (v.size() > 9) v = v.substr(0, 8) + "~";
  std::string flags;
  for (char c : flags_letters(r.flags))
    if (c != '.') flags += c;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s %-9s %s", hex(r.code, dst.hex_digits()).c_str(), v.c_str(), flags.c_str());
  return buf;
}

constexpr int kCell = 19;

}  // namespace

int cmd_explain(int argc, char** argv) {
  const Args a = parse_args("explain", argc, argv, 2, {"from", "to", "round", "sat", "dialect", "rbits", "tininess"});
  const ConversionOptions o = conversion_options(a, true);
  if (a.positionals.size() != 1)
    throw UsageError("expected exactly one VALUE (a decimal, or a raw code with --from), got " +
                     std::to_string(a.positionals.size()));
  const Format& dst = format(o.to);
  const Input in = read_input(o, a.positionals[0]);

  std::printf("input        %s\n", in.label.c_str());
  std::printf("  exact      %s\n", to_string(in.exact, 60).c_str());
  if (in.code) {
    const Format& src = format(*o.from);
    std::printf("  fields     %s   [%s]\n", fields_text(src, *in.code).c_str(), testfloat_text(src, *in.code).c_str());
  }
  if (in.u.cls == ValueClass::finite) {
    std::printf("  binary     %s\n", binary_text(in.u, dst.man_bits).c_str());
    std::printf("  hex float  %s\n", hexfloat_text(in.u).c_str());
  }
  std::printf("destination %s\n", describe_format(dst).c_str());

  // ---- neighbours, in magnitude ----
  std::optional<Rational> frac_ulps;  // the discarded fraction f in [0,1), for rs
  if (in.u.cls == ValueClass::finite) {
    const Rational x = in.exact.magnitude;
    Unpacked mag = in.u;
    mag.sign = false;
    Context rz;
    rz.rounding = Rounding::rz;
    rz.saturation = Saturation::finite;
    const bool below_min = !dst.has_zero() && x < virtual_value(dst, 0);
    if (in.u.sign && !dst.is_signed())
      std::printf("neighbours   (the input is negative and %s has no sign; the magnitude's neighbours follow)\n",
                  std::string(dst.name).c_str());
    else if (in.u.sign)
      std::printf("neighbours   (of the magnitude; the input is negative)\n");
    else
      std::printf("neighbours\n");
    if (below_min) {
      std::printf("  toward 0   none: %s has no zero and nothing below %s\n", std::string(dst.name).c_str(),
                  value_text(dst, 0).c_str());
      std::printf("  away       %s = %s\n", hex(0, dst.hex_digits()).c_str(), value_text(dst, 0).c_str());
    } else {
      const std::uint64_t lo = round_pack(dst, mag, rz, ocp_dialect()).code;
      const Rational lo_v = virtual_value(dst, lo);
      if (lo_v == x) {
        std::printf("  exact      %s = %s  [%s]: representable, every mode gives it\n", hex(lo, dst.hex_digits()).c_str(),
                    value_text(dst, lo).c_str(), testfloat_text(dst, lo).c_str());
        frac_ulps = Rational(0);
      } else {
        const std::uint64_t hi = lo + 1;
        const Rational hi_v = virtual_value(dst, hi);
        std::printf("  toward 0   %s = %s  [%s]\n", hex(lo, dst.hex_digits()).c_str(), value_text(dst, lo).c_str(),
                    testfloat_text(dst, lo).c_str());
        if (hi <= dst.max_finite_magnitude()) {
          std::printf("  away       %s = %s  [%s]\n", hex(hi, dst.hex_digits()).c_str(), value_text(dst, hi).c_str(),
                      testfloat_text(dst, hi).c_str());
        } else {
          std::printf("  away       none: %s would be %s, beyond max finite %s (overflow)\n",
                      hex(hi, dst.hex_digits()).c_str(), to_decimal(hi_v).c_str(),
                      value_text(dst, dst.max_finite_magnitude()).c_str());
        }
        const Rational gap = hi_v - lo_v;
        if (x > hi_v) {
          std::printf("  spacing    %s; the input lies beyond even that: it overflows in every mode that rounds up\n",
                      to_decimal(gap).c_str());
        } else {
          const Rational d_lo = (x - lo_v) / gap;
          const Rational d_hi = (hi_v - x) / gap;
          frac_ulps = d_lo;
          std::printf("  spacing    1 ulp = %s\n", to_decimal(gap).c_str());
          std::printf("  distance   %s ulp from %s, %s ulp from %s: %s\n", to_decimal(d_lo).c_str(),
                      hex(lo, dst.hex_digits()).c_str(), to_decimal(d_hi).c_str(), hex(hi, dst.hex_digits()).c_str(),
                      d_lo == d_hi ? "a TIE (exactly halfway)" : (d_lo < d_hi ? "nearer toward zero" : "nearer away from zero"));
        }
      }
    }
  } else {
    std::printf("neighbours   none: the input is %s\n", to_string(in.exact).c_str());
  }

  // ---- results table ----
  std::printf("results      (tininess %s rounding; * marks the options given)\n",
              o.ctx.tininess == Tininess::after_rounding ? "after" : "before");
  std::printf("  %-4s %-7s", "mode", "sat");
  for (const Dialect& d : all_dialects()) std::printf(" %-*s", kCell, std::string(d.name).c_str());
  std::printf("\n");
  std::vector<std::string> notes;
  for (Rounding r : kDeterministicRoundings) {
    for (Saturation s : {Saturation::finite, Saturation::none}) {
      Context c = o.ctx;
      c.rounding = r;
      c.saturation = s;
      const bool given = r == o.ctx.rounding && s == o.ctx.saturation;
      std::printf("%s %-4s %-7s", given ? "*" : " ", std::string(name(r)).c_str(), std::string(name(s)).c_str());
      for (const Dialect& d : all_dialects()) {
        if (unsupported_reason(d, o.to, c)) {
          std::printf(" %-*s", kCell, "n/a");
          const DestinationSupport& sup = d.support[static_cast<int>(o.to)];
          std::string note = "dialect " + std::string(d.name) + " to " + std::string(dst.name) + ": ";
          if (sup.roundings == 0) {
            note += "unsupported";
          } else {
            note += "rounding";
            for (Rounding m : kDeterministicRoundings)
              if (sup.roundings & rounding_bit(m)) note += " " + std::string(name(m));
            note += " only";
          }
          note += " (" + std::string(sup.why) + ")";
          if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
          continue;
        }
        const Result res = in.code ? convert(*o.from, o.to, *in.code, c, d) : round_pack(dst, in.u, c, d);
        std::printf(" %-*s", kCell, cell(dst, res).c_str());
      }
      std::printf("\n");
    }
  }
  for (const std::string& n : notes) std::printf("  n/a: %s\n", n.c_str());
  std::printf("  flags raised: v invalid, i infinite, o overflow, u underflow, x inexact\n");

  // ---- stochastic rounding ----
  const unsigned r = o.ctx.rbits_width;
  if (frac_ulps) {
    // F = floor(f * 2^r); rounds away iff F + R >= 2^r, so with R uniform P = F / 2^r.
    const BigInt scale = BigInt(1) << r;
    const Rational scaled = *frac_ulps * Rational(scale);
    const BigInt F = boost::multiprecision::numerator(scaled) / boost::multiprecision::denominator(scaled);
    std::printf("stochastic   rs with %u random bits: F = first %u discarded bits = 0x%s; rounds away from zero iff "
                "R >= 2^%u - F, with probability F/2^%u = %s\n",
                r, r, F.str(0, std::ios_base::hex | std::ios_base::uppercase).c_str(), r, r,
                to_decimal(Rational(F, scale)).c_str());
  }
  return 0;
}

}  // namespace softmx::cli
