// fuzz/fuzz_vectors.cpp: fuzzes the vector-file reader (softmx/vectors/reader.hpp) and
// header parser (vectors/header.hpp) on the input as one file, read through an
// std::istringstream: the header, then the data lines with next() (layout = cases) or
// next_run() (layout = runs), at most 64 of them per input. When the header is one softmx can
// compute (the vec::Evaluator accepts it), every record's operands are evaluated too, which runs
// the conversion, quantization and dot kernels on arbitrary codes. Checks:
//
//   - the header prints (header_text) and parses back to the same text;
//   - a record has exactly the layout's operand count, and 0 or all of its results;
//   - every computed result is within its field's range, the flags within 00..1F;
//   - runs start at the header's `first`, are contiguous and increasing, and the last one ends
//     at `last`;
//   - completeness (issue 12; completeness_property.hpp): a cases file of at most 4096 expected
//     cases is checked as verify checks it, and if it passes with its completeness checked,
//     every expected case must be there, once, in order, with softmx's results (compared value
//     by value with the regenerated list, independently of the digest). The seed corpus holds
//     complete generated files, so that truncations, repeats and swaps are near at hand.
//
// Work cap: dot headers are skipped when block * blocks exceeds 16384 (the format allows
// 4096 * 1024, a line of 8.4 million fields; building that layout takes ~0.5 GB and seconds
// under ASan, for every input that names it), so the fuzzer spends its time on parsing.
//
// Expected failures: softmx::InputError (bad file) and std::invalid_argument (a value the
// library refuses). Finding: a crash, a sanitizer report, any other exception, or a failed check
// (reported by abort()).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "completeness_property.hpp"
#include "softmx/vectors/header.hpp"
#include "softmx/vectors/operation.hpp"
#include "softmx/vectors/reader.hpp"

namespace {

using namespace softmx;

constexpr int kMaxRecords = 64;
// The completeness property is checked on files of at most this many expected cases (and
// inputs of at most 64 KB), so the fuzzer's time goes to mutations, not regeneration.
constexpr std::uint64_t kMaxPropertyCases = 4096;
constexpr std::size_t kMaxPropertyBytes = 1 << 16;
constexpr std::uint64_t kMaxDotFields = 16384;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_vectors: %s\n", what.c_str());
  std::abort();
}

// A dot header whose lines would be too long to be worth building (see the work cap above):
// spot it with the header parser itself before VectorReader builds the layout.
bool too_big(std::string_view text) {
  vec::HeaderParser hp;
  std::size_t at = 0;
  int line = 0;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view l = text.substr(at, nl - at);
    at = nl + 1;
    ++line;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    const auto first = l.find_first_not_of(" \t");
    if (first == std::string_view::npos || l[first] == '#') continue;
    if (l.find('=') == std::string_view::npos) break;
    hp.add(l, "line " + std::to_string(line));
  }
  const vec::Header h = hp.finish("header");
  return h.operation == vec::Operation::dot && std::uint64_t{h.block} * h.blocks > kMaxDotFields;
}

void check_header_round_trip(const vec::Header& h) {
  const std::string text = vec::header_text(h);
  vec::HeaderParser hp;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) hp.add(line, "header_text");
  const vec::Header back = hp.finish("header_text");
  if (vec::header_text(back) != text) fail("header_text does not parse back to itself:\n" + text);
  (void)vec::describe(h);
  (void)vec::header_text_commented(h, "// ");
}

void check_results(const vec::LineLayout& l, const std::vector<std::uint64_t>& res, Flags flags, const std::string& where) {
  for (std::size_t i = 0; i < res.size(); ++i)
    if (res[i] > l.results[i].max)
      fail(where + ": computed " + l.results[i].label + " = " + std::to_string(res[i]) + " is beyond its field's " +
           std::to_string(l.results[i].max));
  if (flags > 0x1F) fail(where + ": computed flags " + std::to_string(flags) + " beyond 0x1F");
}

void read_cases(vec::VectorReader& r, const vec::Evaluator* ev) {
  const vec::LineLayout& l = r.layout();
  vec::Record rec;
  std::vector<std::uint64_t> res(l.results.size());
  for (int n = 0; n < kMaxRecords && r.next(rec); ++n) {
    if (rec.operands.size() != l.operands.size()) fail(r.where() + ": record has the wrong operand count");
    if (!rec.results.empty() && rec.results.size() != l.results.size()) fail(r.where() + ": record has some results");
    if (rec.has_flags && (rec.results.empty() || rec.flags > 0x1F)) fail(r.where() + ": bad flags in a record");
    if (ev) check_results(l, res, ev->evaluate(rec.operands, res), r.where());
  }
}

void read_runs(vec::VectorReader& r, const vec::Evaluator* ev) {
  const vec::Header& h = r.header();
  const vec::LineLayout& l = r.layout();
  vec::Run run;
  std::optional<std::uint64_t> next_first = h.first;
  for (int n = 0; n < kMaxRecords && r.next_run(run); ++n) {
    if (!next_first || run.first != *next_first || run.last < run.first || run.last > h.last)
      fail(r.where() + ": run [" + std::to_string(run.first) + ", " + std::to_string(run.last) +
           "] does not continue the table");
    next_first = run.last == h.last ? std::nullopt : std::optional<std::uint64_t>(run.last + 1);
    if (ev) {
      std::vector<std::uint64_t> res(1);
      for (std::uint64_t x : {run.first, run.last}) {
        const std::uint64_t ops[1] = {x};
        check_results(l, res, ev->evaluate(ops, res), r.where());
      }
    }
    if (!next_first) {
      if (r.next_run(run)) fail(r.where() + ": a run after the one that reached last");
      return;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    if (too_big(text)) return 0;
  } catch (const softmx::InputError&) {
    // Not a valid header: VectorReader must say so too, below.
  }
  try {
    std::istringstream in(text);
    vec::VectorReader r(in, "fuzz.vec");
    check_header_round_trip(r.header());
    std::optional<vec::Evaluator> ev;
    try {
      ev.emplace(r.header());
    } catch (const softmx::InputError&) {
      // softmx cannot compute this one (a dialect without the mode): read it only.
    }
    if (r.header().layout == vec::Layout::runs) read_runs(r, ev ? &*ev : nullptr);
    else read_cases(r, ev ? &*ev : nullptr);
  } catch (const softmx::InputError&) {
  } catch (const std::invalid_argument&) {
  }
  // Aborts on a file that passes with its completeness checked yet lacks, repeats or reorders
  // a case (or holds another result): a verdict that would certify an incomplete file.
  if (size <= kMaxPropertyBytes) (void)fuzz::check_completeness_property(text, kMaxPropertyCases);
  return 0;
}
