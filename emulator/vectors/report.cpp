// emulator/vectors/report.cpp: see report.hpp.
#include "softmx/vectors/report.hpp"

#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "softmx/describe.hpp"
#include "softmx/tensor_core.hpp"
#include <bit>
#include <vector>

namespace softmx::vec {
namespace {

std::string pad(std::string s, std::size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}

// The operand that goes with result i, where there is one (quantize: IN_i for OUT_i).
std::ptrdiff_t partner_operand(const LineLayout& l, std::size_t result) {
  if (l.results.size() > 1 && result >= 1 && l.operands.size() >= l.results.size() - 1) return static_cast<std::ptrdiff_t>(result - 1);
  return -1;
}

}  // namespace

namespace {

/// "+49*2^12": an exact dyadic value (-1)^neg * n * 2^q with n odd (or 0).
std::string dyadic(bool neg, std::uint64_t n, int q) {
  if (n == 0) return neg ? "-0" : "+0";
  const int tz = std::countr_zero(n);
  return std::string(neg ? "-" : "+") + std::to_string(n >> tz) + "*2^" + std::to_string(q + tz);
}

}  // namespace

std::string mma_trace_report(const Header& h, std::span<const std::uint64_t> operands) {
  const TensorCoreModel* m = find_tensor_core_model(h.model);
  if (!m) return "";
  const std::size_t k = h.block;
  std::vector<std::uint8_t> codes(2 * k);
  for (std::size_t i = 0; i < 2 * k; ++i) codes[i] = static_cast<std::uint8_t>(operands[i]);
  const std::uint32_t c = h.addend ? static_cast<std::uint32_t>(operands[2 * k]) : 0;
  const TensorCoreTrace t = m->trace(h.from, std::span(codes.data(), k), h.to, std::span(codes.data() + k, k), h.accumulator, c);
  const Format& acc = format(h.accumulator);
  std::string s = "    model " + std::string(m->name()) + " (docs/TENSOR_CORES.md):";
  if (t.special) return s + " NaN or Inf operands decide: D " + hex(t.result.code, acc.hex_digits()) + "\n";
  s += "\n";
  for (const TensorCoreTraceGroup& g : t.groups) {
    if (g.addend_step) {
      s += "      C added to the products' result";
    } else if (g.first < 0) {  // not consecutive in k (a product order)
      s += "      group of products";
      for (std::size_t i = 0; i < g.products.size(); ++i) s += (i ? "," : " ") + std::to_string(g.products[i] + 1);
    } else {
      s += "      group of products " + std::to_string(g.first + 1) + ".." + std::to_string(g.first + g.count);
    }
    if (g.terms.empty()) {
      s += ": every term zero\n";
    } else {
      s += g.addend_step ? std::string(", exactly:\n")
                         : ": reference E = " + std::to_string(g.reference) + ", terms cut at 2^" + std::to_string(g.quantum) + "\n";
      for (const TensorCoreTraceTerm& x : g.terms) {
        const std::string who = x.index == -2  ? std::string("products")
                                : x.index < 0 ? std::string("C (acc)")
                                              : "A_" + std::to_string(x.index + 1) + "*B_" + std::to_string(x.index + 1);
        s += "        " + pad(who, 12) + pad(dyadic(x.neg, x.n, x.q), 18) + " e " + pad(std::to_string(x.align_exponent), 5) +
             (x.kept_exact ? std::string("kept") : "cut to " + dyadic(x.neg, x.kept, x.kept_q)) + "\n";
      }
      if (g.sum.cls == ValueClass::finite)
        s += "        sum of the cut terms " + dyadic(g.sum.sign, g.sum.sig, g.sum.exp - 63) + (g.sum.sticky ? " (and lower bits)" : "") + "\n";
      else
        s += "        sum of the cut terms 0\n";
    }
    s += "        rounded into the accumulator: " + hex(g.result, acc.hex_digits()) + "  " +
         value_text(acc, g.result) + "\n";
  }
  return s;
}

std::string decompose(const Field& f, std::uint64_t v) {
  if (!f.format) return hex(v, f.digits);
  const Format& fm = format(*f.format);
  return testfloat_text(fm, v) + "  " + value_text(fm, v);
}

std::string fields_hex(const std::vector<Field>& layout, std::span<const std::uint64_t> v) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < layout.size(); ++i) {
    if (i) s += ' ';
    s += hex(v[i], layout[i].digits);
  }
  return s;
}

std::string producers(const std::vector<Candidate>& cands, std::span<const std::uint64_t> operands,
                      std::span<const std::uint64_t> results, bool has_flags, Flags flags) {
  std::vector<std::size_t> hits;
  std::vector<std::uint64_t> r(results.size());
  for (std::size_t i = 0; i < cands.size(); ++i) {
    const auto f = cands[i].eval->try_evaluate(operands, r);
    if (f && std::equal(r.begin(), r.end(), results.begin()) && (!has_flags || *f == flags)) hits.push_back(i);
  }
  if (hits.empty()) return "none of the " + std::to_string(cands.size()) + " settings softmx models";
  return group_text(cands, hits);
}

std::string case_report(const std::string& where, const LineLayout& l, std::span<const std::uint64_t> operands,
                        std::span<const std::uint64_t> got, bool has_flags, Flags got_flags,
                        std::span<const std::uint64_t> want, Flags want_flags, const std::vector<Candidate>* cands) {
  std::string s = where + ": " + fields_hex(l.operands, operands) + " => " + fields_hex(l.results, got);
  if (has_flags) s += " " + hex(got_flags, 2);
  s += " expected " + fields_hex(l.results, want) + " " + hex(want_flags, 2) + "\n";
  // Operands: all of them when there are few; otherwise those that go with a differing result.
  const bool few = l.operands.size() <= 4;
  if (few)
    for (std::size_t i = 0; i < l.operands.size(); ++i)
      s += "    " + pad(l.operands[i].label, 8) + hex(operands[i], l.operands[i].digits) + "  " +
           decompose(l.operands[i], operands[i]) + "\n";
  for (std::size_t i = 0; i < l.results.size(); ++i) {
    if (got[i] == want[i]) continue;
    const std::ptrdiff_t p = partner_operand(l, i);
    if (!few && p >= 0) {
      const auto pi = static_cast<std::size_t>(p);
      s += "    " + pad(l.operands[pi].label, 8) + hex(operands[pi], l.operands[pi].digits) + "  " +
           decompose(l.operands[pi], operands[pi]) + "\n";
    }
    s += "    " + pad(l.results[i].label, 8) + "device " + hex(got[i], l.results[i].digits) + "  " +
         pad(decompose(l.results[i], got[i]), 26) + "  softmx " + hex(want[i], l.results[i].digits) + "  " +
         decompose(l.results[i], want[i]) + "\n";
  }
  if (has_flags) {
    s += "    " + pad("FLAGS", 8) + "device " + flags_letters(got_flags) + " (" + flags_words(got_flags) + ")  softmx " +
         flags_letters(want_flags) + " (" + flags_words(want_flags) + ")\n";
  } else {
    s += "    " + pad("FLAGS", 8) + "not given by the device; softmx " + flags_letters(want_flags) + "\n";
  }
  if (cands) s += "    the device's result comes from: " + producers(*cands, operands, got, has_flags, got_flags) + "\n";
  return s;
}

std::string range_report(const LineLayout& l, const RangeMismatch& m, const std::vector<Candidate>* cands) {
  const int d = l.operands[0].digits;
  std::string s = "inputs " + hex(m.first, d) + ".." + hex(m.last, d) + " (" + std::to_string(m.count()) +
                  (m.count() == 1 ? " input" : " inputs") + "): => " + hex(m.got, l.results[0].digits);
  if (m.has_flags) s += " " + hex(m.got_flags, 2);
  s += " expected " + hex(m.want, l.results[0].digits) + " " + hex(m.want_flags, 2) + "\n";
  Field in = l.operands[0];
  s += "    " + pad("IN", 8) + hex(m.first, d) + "  " + decompose(in, m.first) + (m.count() > 1 ? "  (first of the range)" : "") + "\n";
  if (m.got != m.want)
    s += "    " + pad("OUT", 8) + "device " + hex(m.got, l.results[0].digits) + "  " + pad(decompose(l.results[0], m.got), 26) +
         "  softmx " + hex(m.want, l.results[0].digits) + "  " + decompose(l.results[0], m.want) + "\n";
  if (m.has_flags)
    s += "    " + pad("FLAGS", 8) + "device " + flags_letters(m.got_flags) + "  softmx " + flags_letters(m.want_flags) + "\n";
  if (cands) {
    const std::uint64_t ops[1] = {m.first}, res[1] = {m.got};
    s += "    the device's result (at " + hex(m.first, d) + ") comes from: " + producers(*cands, ops, res, m.has_flags, m.got_flags) + "\n";
  }
  return s;
}

}  // namespace softmx::vec
