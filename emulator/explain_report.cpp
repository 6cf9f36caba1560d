// emulator/explain_report.cpp: see explain_report.hpp. The table and its text were the body of
// tools/softmx/cmd_explain.cpp; they live here so that the CLI and the Python module print the
// same bytes from one engine.
#include "softmx/explain_report.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "softmx/describe.hpp"
#include "softmx/flags.hpp"
#include "softmx/text.hpp"

namespace softmx {
namespace {

constexpr int kCell = 19;

/// One result in a table cell: code, value (shortened with ~), raised flag letters.
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

void append(std::string& s, const char* format, ...) __attribute__((format(printf, 2, 3)));
void append(std::string& s, const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  va_list again;
  va_copy(again, ap);
  const int n = std::vsnprintf(nullptr, 0, format, ap);
  va_end(ap);
  if (n > 0) {
    std::string buf(static_cast<std::size_t>(n) + 1, '\0');
    std::vsnprintf(buf.data(), buf.size(), format, again);
    buf.pop_back();
    s += buf;
  }
  va_end(again);
}

/// The result of converting `in` under `c` and `d`, or nullopt with the reason in `why`.
std::optional<Result> result_under(const ExplainInput& in, const Format& dst, const Context& c, const Dialect& d,
                                   std::string& why) {
  if (auto r = unsupported_reason(d, dst, c)) {
    why = *r;
    return std::nullopt;
  }
  try {
    return in.code ? convert(*in.from, dst, *in.code, c, d) : round_pack(dst, in.u, c, d);
  } catch (const Unsupported& e) {  // a runtime source the dialect does not read
    why = e.what();
    return std::nullopt;
  }
}

}  // namespace

ExplainReport explain_conversion(const ExplainInput& in, const Format& dst, const Context& ctx, const Dialect& dialect) {
  ExplainReport r;
  r.input = in;
  r.to = dst;
  r.ctx = ctx;
  r.dialect = &dialect;
  r.neighbours = find_neighbours(in, dst);
  r.result = result_under(in, dst, ctx, dialect, r.unsupported);
  if (r.result) r.reason = rounding_reason(in, r.neighbours, dst, ctx, dialect, *r.result);

  for (Rounding m : kDeterministicRoundings) {
    for (Saturation s : {Saturation::finite, Saturation::none}) {
      Context c = ctx;
      c.rounding = m;
      c.saturation = s;
      ExplainRow row;
      row.rounding = m;
      row.saturation = s;
      row.given = m == ctx.rounding && s == ctx.saturation;
      for (const Dialect& d : all_dialects()) {
        ExplainCell cellv;
        cellv.dialect = &d;
        if (const auto reason = unsupported_reason(d, dst, c)) {
          const DestinationSupport& sup = support_for(d, dst);
          std::string note = "dialect " + std::string(d.name) + " to " + std::string(dst.name) + ": ";
          // A runtime format the dialect refuses whatever the mode (runtime.refused, or specials
          // or a shape it does not list): its reason, not the mode list of formats it does take.
          bool some_mode = dst.is_named();
          for (Rounding k : kDeterministicRoundings)
            for (Saturation z : {Saturation::finite, Saturation::none}) {
              Context any = c;
              any.rounding = k;
              any.saturation = z;
              some_mode = some_mode || !unsupported_reason(d, dst, any);
            }
          if (!some_mode) {
            note = *reason;
          } else if (sup.roundings == 0) {
            note += "unsupported";
          } else {
            note += "rounding";
            for (Rounding k : kDeterministicRoundings)
              if (sup.roundings & rounding_bit(k)) note += " " + std::string(name(k));
            note += " only";
          }
          if (some_mode) note += " (" + std::string(sup.why) + ")";
          if (std::find(r.notes.begin(), r.notes.end(), note) == r.notes.end()) r.notes.push_back(note);
        } else {
          std::string why;
          cellv.result = result_under(in, dst, c, d, why);
          if (!cellv.result && std::find(r.notes.begin(), r.notes.end(), why) == r.notes.end()) r.notes.push_back(why);
        }
        row.cells.push_back(cellv);
      }
      r.rows.push_back(std::move(row));
    }
  }

  if (r.neighbours.frac_ulps) {
    // F = floor(f * 2^r); rounds away iff F + R >= 2^r, so with R uniform P = F / 2^r.
    ExplainStochastic st;
    st.rbits = ctx.rbits_width;
    const BigInt scale = BigInt(1) << st.rbits;
    const Rational scaled = *r.neighbours.frac_ulps * Rational(scale);
    st.first_bits = boost::multiprecision::numerator(scaled) / boost::multiprecision::denominator(scaled);
    st.probability = Rational(st.first_bits, scale);
    r.stochastic = st;
  }
  return r;
}

std::string explain_report_text(const ExplainReport& r) {
  const Format& dst = r.to;
  std::string t = input_text(r.input, dst);
  append(t, "destination %s\n", describe_format(dst).c_str());
  t += neighbours_text(r.input, r.neighbours, dst);

  append(t, "results      (tininess %s rounding; * marks the options given)\n",
         r.ctx.tininess == Tininess::after_rounding ? "after" : "before");
  append(t, "  %-4s %-7s", "mode", "sat");
  for (const Dialect& d : all_dialects()) append(t, " %-*s", kCell, std::string(d.name).c_str());
  t += "\n";
  for (const ExplainRow& row : r.rows) {
    append(t, "%s %-4s %-7s", row.given ? "*" : " ", std::string(name(row.rounding)).c_str(),
           std::string(name(row.saturation)).c_str());
    for (const ExplainCell& c : row.cells) append(t, " %-*s", kCell, c.result ? cell(dst, *c.result).c_str() : "n/a");
    t += "\n";
  }
  for (const std::string& n : r.notes) append(t, "  n/a: %s\n", n.c_str());
  t += "  flags raised: v invalid, i infinite, o overflow, u underflow, x inexact\n";

  if (r.stochastic) {
    const ExplainStochastic& st = *r.stochastic;
    const unsigned b = st.rbits;
    append(t,
           "stochastic   rs with %u random bits: F = first %u discarded bits = 0x%s; rounds away from zero iff "
           "R >= 2^%u - F, with probability F/2^%u = %s\n",
           b, b, st.first_bits.str(0, std::ios_base::hex | std::ios_base::uppercase).c_str(), b, b,
           to_decimal(st.probability).c_str());
  }
  return t;
}

}  // namespace softmx
