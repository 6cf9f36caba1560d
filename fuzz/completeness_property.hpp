// fuzz/completeness_property.hpp: the completeness property of `softmx verify` (issues 12 and
// 24), shared by the fuzz targets fuzz_vectors and fuzz_forgery and the conformance test
// test_completeness:
//
//   a results file verifies as a pass only if every expected case is present, once, in order,
//   with softmx's results, the expected cases being those softmx regenerates from the header's
//   level and seed, whatever the header's own `cases` and `inputs-sha256` say.
//
// check_completeness_property() runs the library's verify engine (vectors/verify.hpp, what the
// CLI and Python run) on a file; when that says pass, it checks the claim independently: the
// file is read again, every data line kept, and compared value by value with the expected cases
// (for_each_written_case, regenerated here, no digest or fingerprint involved) and with
// softmx's results. A pass that fails this check is a finding: the function calls abort() after
// printing why. forge() makes a file's header vouch for whatever lines it holds (its `cases` and
// `inputs-sha256` recomputed from them), the forgery issue 24 found.
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
#include "softmx/vectors/verify.hpp"
#include "softmx/vectors/generate.hpp"
#include "softmx/vectors/input_digest.hpp"
#include "softmx/vectors/reader.hpp"

namespace softmx::fuzz {

/// What verify said about a file.
enum class Verdict : std::uint8_t {
  rejected,  ///< bad input (softmx::InputError, std::invalid_argument): exit 2
  skipped,   ///< not a cases file, or more expected cases than the caller allows
  failed,    ///< a mismatch or an incomplete file: exit 1
  unproven,  ///< no mismatch, completeness not proven (no level and seed, ...): exit 3
  passed,    ///< all match and proven complete: exit 0
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
    vec::VerifyOptions vo;
    vo.max_errors = 0;
    const vec::VerifyResult v = vec::verify_file(*r, vo);
    // Text and JSON are computed from the same fields: they must agree with the status.
    const std::string json = v.json();
    if (json.find(std::string("\"status\": \"") + vec::name(v.status) + "\"") == std::string::npos)
      detail::violated("the JSON verdict does not carry the status " + std::string(vec::name(v.status)));
    if (v.status == vec::VerdictStatus::fail) return Verdict::failed;
    if (v.status == vec::VerdictStatus::unproven) {
      if (v.completeness.proven()) detail::violated("unproven, yet its completeness is proven");
      return Verdict::unproven;
    }
    const vec::Completeness& c = v.completeness;
    if (!c.proven() || c.basis != vec::CompletenessBasis::regenerated)
      detail::violated(std::string("passed on a completeness that is not regenerated: basis ") + vec::name(c.basis));

    // It passed: read the file again, independently, every line kept.
    auto again = vec::VectorReader::from_string(text, name);
    std::vector<vec::Record> lines;
    vec::Record rec;
    while (again->next(rec)) lines.push_back(rec);
    const vec::Header& h = again->header();
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

/// `text` (a vector file) with its header's `cases` and `inputs-sha256` rewritten to those of
/// the data lines it holds (inserted before the first data line where absent): a header edited
/// to vouch for a cut, doubled or reordered file. nullopt when the text is not a readable cases
/// file.
inline std::optional<std::string> forge(const std::string& text) {
  try {
    auto r = vec::VectorReader::from_string(text, "forge.vec");
    if (r->header().layout != vec::Layout::cases) return std::nullopt;
    vec::InputDigest d(r->layout());
    vec::Record rec;
    while (r->next(rec)) d.add(rec.operands);
    const std::string cases = "cases = " + std::to_string(d.count()), sha = "inputs-sha256 = " + d.hex();
    std::string out, line;
    bool in_header = true, have_cases = false, have_sha = false;
    std::size_t at = 0;
    while (at < text.size()) {
      const std::size_t nl = text.find('\n', at);
      const std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
      line = text.substr(at, end - at);
      at = end;
      const bool comment = line.find_first_not_of(" \t\r\n") == std::string::npos || line[line.find_first_not_of(" \t")] == '#';
      if (in_header && !comment && line.find('=') == std::string::npos) {
        in_header = false;
        if (!have_cases) out += cases + "\n";
        if (!have_sha) out += sha + "\n";
      }
      if (in_header && line.rfind("cases", 0) == 0 && line.find('=') != std::string::npos &&
          line.substr(0, line.find('=')).find_first_not_of("cases \t") == std::string::npos) {
        out += cases + "\n";
        have_cases = true;
        continue;
      }
      if (in_header && line.rfind("inputs-sha256", 0) == 0) {
        out += sha + "\n";
        have_sha = true;
        continue;
      }
      out += line;
    }
    return out;
  } catch (const softmx::InputError&) {
    return std::nullopt;
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

}  // namespace softmx::fuzz
