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

/// `text` with every line longer than `width` broken at spaces, each continuation indented to
/// the line's text after its label ("destination ", "  n/a: ", "  distance   "); a word longer
/// than the room (a long number) is kept whole. Table lines never need it.
std::string wrap_lines(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.size() <= width) {
      out += line + "\n";
      continue;
    }
    // The hanging indent: past the label (leading spaces, a word, the spaces after it), or for
    // "  n/a: ..." past "n/a: "; at most 14, else two more than the leading spaces.
    const std::size_t lead = line.find_first_not_of(' ');
    std::size_t indent;
    if (line.compare(lead, 5, "n/a: ") == 0) {
      indent = lead + 5;
    } else {
      const std::size_t word_end = line.find(' ', lead);
      const std::size_t text_at = word_end == std::string::npos ? std::string::npos : line.find_first_not_of(' ', word_end);
      indent = text_at != std::string::npos && text_at <= 14 ? text_at : lead + 2;
    }
    std::string rest = line;
    while (rest.size() > width) {
      std::size_t cut = rest.rfind(' ', width);
      if (cut == std::string::npos || cut <= indent) {
        cut = rest.find(' ', width);  // a word longer than the room: kept whole
        if (cut == std::string::npos) break;
      }
      out += rest.substr(0, cut) + "\n";
      const std::size_t next = rest.find_first_not_of(' ', cut);
      rest = std::string(indent, ' ') + (next == std::string::npos ? std::string() : rest.substr(next));
    }
    out += rest + "\n";
  }
  return out;
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

  // Saturation propagate (IEEE P3109's SatPropagate) gets its rows where it applies: when it is
  // the saturation given, or the given dialect serves it into dst (p3109).
  std::vector<Saturation> sats{Saturation::finite, Saturation::none};
  bool propagate_rows = ctx.saturation == Saturation::propagate;
  for (Rounding k : kDeterministicRoundings) {
    Context any = ctx;
    any.rounding = k;
    any.saturation = Saturation::propagate;
    propagate_rows = propagate_rows || !unsupported_reason(dialect, dst, any);
  }
  if (propagate_rows) sats.push_back(Saturation::propagate);
  for (Rounding m : kDeterministicRoundings) {
    for (Saturation s : sats) {
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
            for (Saturation z : sats) {
              Context any = c;
              any.rounding = k;
              any.saturation = z;
              some_mode = some_mode || !unsupported_reason(d, dst, any);
            }
          // A mode it serves with a saturation it does not list (propagate): that, with no why
          // (each dialect's why is about its rounding modes and formats).
          const bool saturation_note = s == Saturation::propagate && (sup.roundings & rounding_bit(m)) &&
                                       !(sup.saturations & saturation_bit(s));
          if (!some_mode) {
            note = *reason;
          } else if (saturation_note) {
            note += "saturation";  // P3109's SatPropagate, which only some dialects list
            for (Saturation z : {Saturation::finite, Saturation::none, Saturation::propagate})
              if (sup.saturations & saturation_bit(z)) note += " " + std::string(name(z));
            note += " only";
          } else if (sup.roundings == 0) {
            note += "unsupported";
          } else {
            note += "rounding";
            for (Rounding k : kDeterministicRoundings)
              if (sup.roundings & rounding_bit(k)) note += " " + std::string(name(k));
            note += " only";
          }
          if (some_mode && !saturation_note && !sup.why.empty()) note += " (" + std::string(sup.why) + ")";
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

std::string explain_report_text(const ExplainReport& r, unsigned width) {
  const Format& dst = r.to;
  const bool wide = width == 0;
  std::string t = input_text(r.input, dst);
  append(t, "destination %s\n", describe_format(dst).c_str());
  t += neighbours_text(r.input, r.neighbours, dst);

  append(t, "results      (tininess %s; * marks the options given)\n",
         r.ctx.tininess == Tininess::after_rounding    ? "after rounding"
         : r.ctx.tininess == Tininess::before_rounding ? "before rounding"
                                                       : "after-bounded (the delivered result below 2^emin)");
  // The table's columns: every dialect (--wide), or those with a result somewhere, in tables of
  // as many columns as fit the width.
  const std::size_t dialects = r.rows.empty() ? 0 : r.rows.front().cells.size();
  std::vector<std::size_t> shown;
  std::string all_na;
  for (std::size_t i = 0; i < dialects; ++i) {
    bool any = false;
    for (const ExplainRow& row : r.rows) any = any || row.cells[i].result.has_value();
    if (wide || any) shown.push_back(i);
    else all_na += (all_na.empty() ? "" : ", ") + std::string(r.rows.front().cells[i].dialect->name);
  }
  // A column is as wide as a cell or its dialect's name; the tables take as many as fit.
  // The sat column is wider when a row is propagate's (P3109's SatPropagate).
  bool propagate_rows = false;
  for (const ExplainRow& row : r.rows) propagate_rows = propagate_rows || row.saturation == Saturation::propagate;
  const int sat_width = propagate_rows ? 10 : 7;
  const std::size_t kRowLabel = propagate_rows ? 17 : 14;  // "* rne  finite " ("* rne  propagate ")
  auto column = [&](std::size_t k) {
    return std::max<std::size_t>(kCell, r.rows.front().cells[shown[k]].dialect->name.size());
  };
  auto trimmed = [&](const std::string& line) { return wide ? line : line.substr(0, line.find_last_not_of(' ') + 1); };
  bool parts = false;
  for (std::size_t first = 0; first < shown.size();) {
    std::size_t last = first + 1, used = kRowLabel + 1 + column(first);
    while (last < shown.size() && (wide || used + 1 + column(last) <= width)) used += 1 + column(last++);
    parts = parts || first > 0 || last < shown.size();
    std::string line;
    append(line, "  %-4s %-*s", "mode", sat_width, "sat");
    for (std::size_t k = first; k < last; ++k)
      append(line, " %-*s", static_cast<int>(column(k)), std::string(r.rows.front().cells[shown[k]].dialect->name).c_str());
    t += trimmed(line) + "\n";
    for (const ExplainRow& row : r.rows) {
      line.clear();
      append(line, "%s %-4s %-*s", row.given ? "*" : " ", std::string(name(row.rounding)).c_str(), sat_width,
             std::string(name(row.saturation)).c_str());
      for (std::size_t k = first; k < last; ++k) {
        const ExplainCell& c = row.cells[shown[k]];
        append(line, " %-*s", static_cast<int>(column(k)), c.result ? cell(dst, *c.result).c_str() : "n/a");
      }
      t += trimmed(line) + "\n";
    }
    first = last;
  }
  if (!all_na.empty()) append(t, "  n/a in every mode: %s\n", all_na.c_str());
  for (const std::string& n : r.notes) append(t, "  n/a: %s\n", n.c_str());
  t += "  flags raised: v invalid, i infinite, o overflow, u underflow, x inexact\n";
  if (!wide && (parts || !all_na.empty()))
    t += "  (in parts to fit " + std::to_string(width) + " columns; --wide: one table, a column for every dialect)\n";

  if (r.stochastic) {
    const ExplainStochastic& st = *r.stochastic;
    const unsigned b = st.rbits;
    append(t,
           "stochastic   rs with %u random bits: F = first %u discarded bits = 0x%s;%srounds away from zero iff "
           "R >= 2^%u - F, with probability F/2^%u = %s\n",
           b, b, st.first_bits.str(0, std::ios_base::hex | std::ios_base::uppercase).c_str(),
           wide ? " " : "\n             ", b, b,
           to_decimal(st.probability).c_str());
  }
  return wide ? t : wrap_lines(t, width);
}

}  // namespace softmx
