// fuzz/completeness_property.hpp: the completeness property of `softmx verify` (issue 12), shared
// by the fuzz target fuzz_vectors and the conformance test test_completeness:
//
//   a results file verifies as "all match" with its completeness checked only if every
//   expected case is present, once, in order, with softmx's results.
//
// check_completeness_property() runs the library's check (vectors/case_check.hpp, what verify
// runs) on a file; when that passes with a regenerated list (or the header's count and digest),
// it checks the claim independently: the file is read again, every data line kept, and compared
// value by value with the expected cases (for_each_written_case, regenerated here, no digest or
// fingerprint involved) and with softmx's results. A pass that fails this check is a finding:
// the function calls abort() after printing why.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "softmx/vectors/case_check.hpp"
#include "softmx/vectors/generate.hpp"
#include "softmx/vectors/input_digest.hpp"
#include "softmx/vectors/reader.hpp"

namespace softmx::fuzz {

/// What check_cases said about a file.
enum class Verdict : std::uint8_t {
  rejected,          ///< bad input (softmx::InputError, std::invalid_argument): exit 2
  skipped,           ///< not a cases file, or more expected cases than the caller allows
  failed,            ///< a mismatch or an incomplete file: exit 1
  passed_unchecked,  ///< all lines match, completeness not checked (basis none): exit 0 with a note
  passed,            ///< all match and complete: exit 0
};

namespace detail {

[[noreturn]] inline void violated(const std::string& what) {
  std::fprintf(stderr, "completeness property violated: %s\n", what.c_str());
  std::abort();
}

/// The expected cases of `h` as the checker regenerates them: level 1 whole, level 2 up to
/// `limit` cases. nullopt when there are more than `max_cases` (or no level).
inline std::optional<std::vector<std::vector<std::uint64_t>>> expected_list(const vec::Evaluator& ev, std::uint64_t limit,
                                                                             std::uint64_t max_cases) {
  const vec::Header& h = ev.header();
  if (h.level.empty()) return std::nullopt;
  vec::GenOptions o;
  const bool level2 = h.level == "2" && !vec::exhaustive(h);
  o.level = level2 ? 2 : 1;
  o.seed = h.seed.value_or(1);
  if (level2) o.count = ~std::uint64_t{0};
  struct Stop {};
  std::vector<std::vector<std::uint64_t>> out;
  try {
    vec::for_each_written_case(ev, o, [&](std::span<const std::uint64_t> ops) {
      if (out.size() >= max_cases + 1 || (level2 && out.size() >= limit)) throw Stop{};
      out.emplace_back(ops.begin(), ops.end());
    });
  } catch (const Stop&) {
  }
  if (out.size() > max_cases) return std::nullopt;
  return out;
}

}  // namespace detail

/// Whether level 1 of `ev`'s header holds at most `max_cases` cases: lets a fuzzer skip
/// headers whose regeneration is slow (convert f32 -> f16 has 675866).
inline bool small_level1(const vec::Evaluator& ev, std::uint64_t max_cases) {
  vec::GenOptions o;  // level 1
  o.seed = ev.header().seed.value_or(1);
  std::uint64_t n = 0;
  struct Stop {};
  try {
    vec::for_each_case(ev.header(), o, [&](std::span<const std::uint64_t>) {
      if (++n > max_cases) throw Stop{};
    });
  } catch (const Stop&) {
    return false;
  }
  return true;
}

/// Checks the property on `text` (a whole results file named `name`). Cases files whose level
/// 1 holds more than `max_cases` cases, or whose header claims more, are skipped.
inline Verdict check_completeness_property(const std::string& text, std::uint64_t max_cases, const std::string& name = "fuzz.vec") {
  try {
    auto r = vec::VectorReader::from_string(text, name);
    if (r->header().layout != vec::Layout::cases) return Verdict::skipped;
    const vec::Evaluator ev(r->header());
    if (r->header().cases && *r->header().cases > max_cases) return Verdict::skipped;
    if (!small_level1(ev, max_cases)) return Verdict::skipped;
    const vec::CaseCheck st = vec::check_cases(*r, ev, [](const vec::CaseMismatch&) {});
    if (!st.pass()) return Verdict::failed;
    const vec::Completeness& c = st.completeness;
    if (!c.checked()) return Verdict::passed_unchecked;

    // It passed: read the file again, independently, every line kept.
    auto again = vec::VectorReader::from_string(text, name);
    std::vector<vec::Record> lines;
    vec::Record rec;
    while (again->next(rec)) lines.push_back(rec);
    const vec::Header& h = again->header();
    if (c.basis == vec::CompletenessBasis::header) {
      // Only the header's record exists: the file must reproduce it exactly.
      if (h.cases && lines.size() != *h.cases)
        detail::violated(std::to_string(lines.size()) + " lines passed against the header's cases = " + std::to_string(*h.cases));
      vec::InputDigest d(again->layout());
      for (const auto& l : lines) d.add(l.operands);
      if (!h.inputs_sha256.empty() && d.hex() != h.inputs_sha256) detail::violated("the operands' SHA-256 differs from inputs-sha256");
      return Verdict::passed;
    }
    const auto want = detail::expected_list(ev, h.cases.value_or(lines.size()), max_cases);
    if (!want) detail::violated("passed, yet the expected cases could not be listed");
    if (lines.size() != want->size())
      detail::violated("passed with " + std::to_string(lines.size()) + " lines where " + std::to_string(want->size()) +
               " cases are expected (" + vec::name(c.basis) + ")");
    std::vector<std::uint64_t> res(again->layout().results.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].operands != (*want)[i]) detail::violated("passed, yet line " + std::to_string(i + 1) + " of the data holds another case");
      const Flags f = ev.evaluate(lines[i].operands, res);
      if (lines[i].results != res || (lines[i].has_flags && lines[i].flags != f))
        detail::violated("passed, yet data line " + std::to_string(i + 1) + " has other results than softmx's");
    }
    return Verdict::passed;
  } catch (const softmx::InputError&) {
    return Verdict::rejected;
  } catch (const std::invalid_argument&) {
    return Verdict::rejected;
  }
}

}  // namespace softmx::fuzz
