// tools/softmx/cmd_diff.cpp: `softmx diff TABLE-A TABLE-B`, where two run tables disagree.
//
// The tables must cover the same inputs (source format, first and last); everything else may
// differ, which is the point: ocp against cuda, rne against rna, softmx against a device. Prints
// each maximal range of inputs over which A and B give one and the same pair of different
// results, as
//
//   RANGE FIRST..LAST (COUNT inputs): A OUT FLAGS  B OUT FLAGS
//
// then both results decomposed, and for the range's first input what softmx computes under A's
// and B's headers and why (the neighbours and the rule that chose each). Without flags in one
// table only the outputs are compared. Exit status 0 when the tables agree on every input, 1
// when they differ, 2 for bad input.
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "cli.hpp"
#include "options.hpp"
#include "commands.hpp"
#include "softmx/describe.hpp"
#include "softmx/explain.hpp"
#include "softmx/convert.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/table_diff.hpp"

namespace softmx::cli {
namespace {

using vec::Outcome;
using Difference = vec::TableDifference;

/// One table as diff uses it: its reader, and softmx's converter for its header (or why there
/// is none).
struct Side {
  char letter;
  std::unique_ptr<vec::VectorReader> reader;
  std::optional<Converter> conv;
  std::string unsupported;
  const vec::Header& header() const { return reader->header(); }
  const Format& dst() const { return format(header().to); }
};

Side open_side(char letter, const std::string& path) {
  Side s{letter, vec::VectorReader::open(path), std::nullopt, {}};
  // As vec::require_run_table, with the path as typed ("-", not "<stdin>").
  if (s.header().layout != vec::Layout::runs)
    throw UsageError(quote(path, 0, 240) + ": not a run table (the header has no 'layout = runs'; diff compares run tables)");
  try {
    s.conv.emplace(s.header().from, s.header().to, s.header().ctx, s.header().dialect_ref());
  } catch (const Unsupported& e) {
    s.unsupported = e.what();
  }
  return s;
}

/// "7F 00", or "7F" when flags are not compared.
std::string outcome_fields(const Side& s, const Outcome& o, bool flags) {
  std::string t = hex(o.code, s.dst().hex_digits());
  if (flags) t += " " + hex(o.flags, 2);
  return t;
}

/// "7F = NaN  [+F.7]  flags ....." (flags left out when not compared).
std::string outcome_text(const Side& s, const Outcome& o, bool flags) {
  std::string t = hex(o.code, s.dst().hex_digits()) + " = " + value_text(s.dst(), o.code) + "  [" +
                  testfloat_text(s.dst(), o.code) + "]";
  if (flags) t += "  flags " + flags_letters(o.flags);
  return t;
}

/// Indents every line of `text` by `n` spaces.
std::string indent(const std::string& text, std::size_t n) {
  std::string s;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    s.append(n, ' ').append(text, at, nl - at + 1);
    at = nl + 1;
  }
  return s;
}

/// What softmx computes for `in` under one side's header, and why; and whether that is what the
/// table says.
std::string side_explanation(const Side& s, const ExplainInput& in, const Outcome& table, bool flags) {
  std::string t = std::string(1, s.letter) + " (" + vec::describe(s.header()) + "): ";
  if (!s.conv) return t + "softmx cannot compute this: " + s.unsupported + "\n";
  const Result r = (*s.conv)(*in.code);
  const Neighbours nb = find_neighbours(in, s.dst());
  t += "softmx gives " + outcome_text(s, Outcome{r.code, r.flags}, true) + ": " +
       rounding_reason(in, nb, s.dst(), s.header().ctx, s.header().dialect_ref(), r) + "\n";
  if (r.code != table.code || (flags && r.flags != table.flags))
    t += "  (the table says " + outcome_fields(s, table, flags) + ": not what softmx computes under " +
         std::string(1, s.letter) + "'s header)\n";
  return t;
}

/// The block printed for one Difference.
std::string difference_text(const Side& a, const Side& b, const Difference& d, bool flags) {
  const Format& src = format(a.header().from);
  const int digits = src.hex_digits();
  std::string t = "RANGE " + hex(d.first, digits) + ".." + hex(d.last, digits) + " (" +
                  std::to_string(d.last - d.first + 1) + " input" + (d.first == d.last ? "" : "s") + "): A " +
                  outcome_fields(a, d.a, flags) + "  B " + outcome_fields(b, d.b, flags) + "\n";
  t += "  A " + outcome_text(a, d.a, flags) + "\n";
  t += "  B " + outcome_text(b, d.b, flags) + "\n";
  const ExplainInput in = explain_input_code(a.header().from, d.first);
  t += "  input " + hex(d.first, digits) + ": " + std::string(src.name) + " " + value_text(src, d.first) + "  [" +
       testfloat_text(src, d.first) + "]\n";
  t += indent(neighbours_text(in, find_neighbours(in, a.dst()), a.dst()), 4);
  if (b.header().to != a.header().to)
    t += indent("(in B's destination " + std::string(b.dst().name) + ")\n" +
                    neighbours_text(in, find_neighbours(in, b.dst()), b.dst()),
                4);
  t += indent(side_explanation(a, in, d.a, flags), 4);
  t += indent(side_explanation(b, in, d.b, flags), 4);
  return t;
}

}  // namespace

int cmd_diff(int argc, char** argv) {
  const Args a = parse_command("diff", argc, argv, 2);
  if (a.positionals.size() != 2)
    throw UsageError("expected two run tables, TABLE-A and TABLE-B, got " + std::to_string(a.positionals.size()) +
                     " arguments");
  const std::uint64_t max_ranges = parse_count(a, "max-ranges", 50, std::uint64_t{1} << 40);
  Side sa = open_side('A', a.positionals[0]);
  Side sb = open_side('B', a.positionals[1]);
  vec::require_same_inputs(*sa.reader, *sb.reader);
  vec::RunLockstep walk(*sa.reader, *sb.reader);
  const bool flags = walk.flags_compared();

  Output output;
  std::string& out = output.text();
  out += "A  " + sa.reader->name() + ": " + vec::describe(sa.header()) + "\n";
  out += "B  " + sb.reader->name() + ": " + vec::describe(sb.header()) + "\n";
  if (!flags) {
    const std::string which = !walk.a_has_flags() && !walk.b_has_flags() ? "both tables"
                              : !walk.a_has_flags()                       ? "A"
                                                                          : "B";
    out += "flags: absent from " + which + ": comparing outputs only\n";
  }
  output.flush();

  std::uint64_t ranges = 0, inputs = 0;
  walk.for_each_difference([&](const Difference& d) {
    ++ranges;
    inputs += d.last - d.first + 1;
    if (ranges <= max_ranges) {
      out += difference_text(sa, sb, d, flags);
      output.chunk();
    }
  });
  const std::uint64_t total = sa.header().last - sa.header().first + 1;
  if (ranges > max_ranges)
    out += "(" + std::to_string(ranges - max_ranges) + " more range" + (ranges - max_ranges == 1 ? "" : "s") +
           " not shown; --max-ranges " + std::to_string(max_ranges) + ")\n";
  if (ranges == 0)
    out += "identical: all " + std::to_string(total) + " inputs give the same " + (flags ? "OUT and FLAGS" : "OUT") +
           " in A and B\n";
  else
    out += "differ: " + std::to_string(ranges) + " range" + (ranges == 1 ? "" : "s") + ", " + std::to_string(inputs) +
           " of " + std::to_string(total) + " inputs\n";
  output.commit();
  return ranges == 0 ? 0 : 1;
}

}  // namespace softmx::cli
