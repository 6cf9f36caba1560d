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
#include "softmx/describe.hpp"
#include "softmx/explain.hpp"
#include "softmx/convert.hpp"
#include "softmx/exact.hpp"

namespace softmx::cli {
namespace {

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
  const ExplainInput in = o.from ? explain_input_code(*o.from, parse_code(format(*o.from), a.positionals[0], "VALUE"))
                                 : explain_input_text(a.positionals[0]);
  const Neighbours nb = find_neighbours(in, dst);
  Output out;
  out.text() += input_text(in, dst);
  out.printf("destination %s\n", describe_format(dst).c_str());
  out.text() += neighbours_text(in, nb, dst);
  const std::optional<Rational>& frac_ulps = nb.frac_ulps;  // the discarded fraction f in [0,1), for rs

  // ---- results table ----
  out.printf("results      (tininess %s rounding; * marks the options given)\n",
              o.ctx.tininess == Tininess::after_rounding ? "after" : "before");
  out.printf("  %-4s %-7s", "mode", "sat");
  for (const Dialect& d : all_dialects()) out.printf(" %-*s", kCell, std::string(d.name).c_str());
  out.printf("\n");
  std::vector<std::string> notes;
  for (Rounding r : kDeterministicRoundings) {
    for (Saturation s : {Saturation::finite, Saturation::none}) {
      Context c = o.ctx;
      c.rounding = r;
      c.saturation = s;
      const bool given = r == o.ctx.rounding && s == o.ctx.saturation;
      out.printf("%s %-4s %-7s", given ? "*" : " ", std::string(name(r)).c_str(), std::string(name(s)).c_str());
      for (const Dialect& d : all_dialects()) {
        if (unsupported_reason(d, o.to, c)) {
          out.printf(" %-*s", kCell, "n/a");
          const DestinationSupport& sup = support_for(d, o.to);
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
        Result res;
        try {
          res = in.code ? convert(*o.from, o.to, *in.code, c, d) : round_pack(dst, in.u, c, d);
        } catch (const Unsupported& e) {  // a runtime source the dialect does not read
          out.printf(" %-*s", kCell, "n/a");
          const std::string note = e.what();
          if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
          continue;
        }
        out.printf(" %-*s", kCell, cell(dst, res).c_str());
      }
      out.printf("\n");
    }
  }
  for (const std::string& n : notes) out.printf("  n/a: %s\n", n.c_str());
  out.printf("  flags raised: v invalid, i infinite, o overflow, u underflow, x inexact\n");

  // ---- stochastic rounding ----
  const unsigned r = o.ctx.rbits_width;
  if (frac_ulps) {
    // F = floor(f * 2^r); rounds away iff F + R >= 2^r, so with R uniform P = F / 2^r.
    const BigInt scale = BigInt(1) << r;
    const Rational scaled = *frac_ulps * Rational(scale);
    const BigInt F = boost::multiprecision::numerator(scaled) / boost::multiprecision::denominator(scaled);
    out.printf("stochastic   rs with %u random bits: F = first %u discarded bits = 0x%s; rounds away from zero iff "
                "R >= 2^%u - F, with probability F/2^%u = %s\n",
                r, r, F.str(0, std::ios_base::hex | std::ios_base::uppercase).c_str(), r, r,
                to_decimal(Rational(F, scale)).c_str());
  }
  out.commit();
  return 0;
}

}  // namespace softmx::cli
