// emulator/vectors/report.cpp: see report.hpp.
#include "softmx/vectors/report.hpp"

#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "softmx/describe.hpp"
#include "softmx/tensor_core.hpp"
#include <algorithm>
#include <bit>
#include <stdexcept>
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

/// The value of a block-scale code as mma_scaled() reads it: UE8M0 (e8m0) 2^(code - 127) or
/// NaN for 0xFF; UE4M3 (e4m3) the e4m3 value of code & 0x7F (the sign bit is ignored, and said
/// so), NaN for 0x7F and 0xFF.
std::string scale_value_text(FormatId f, std::uint8_t code) {
  if (f == FormatId::e8m0) return code == 0xFF ? "NaN" : "2^" + std::to_string(static_cast<int>(code) - 127);
  const std::uint8_t magnitude = code & 0x7F;
  if (magnitude == 0x7F) return "NaN";
  return value_text(format(FormatId::e4m3), magnitude) + (code & 0x80 ? ", sign bit ignored" : "");
}

/// The label of a traced term: "C (acc)", "products" (an addend step's instruction result),
/// "A_3*B_3" (one product), "A_1..16*B_1..16" (a per-group model's scale group), followed by
/// " * SA_j*SB_j" for a per-group term when the trace has the caller's scales.
std::string term_label(const TensorCoreTraceTerm& x, const TensorCoreTrace& t, bool per_group) {
  if (x.index == -2) return "products";
  if (x.index < 0) return "C (acc)";
  const std::string first = std::to_string(x.index + 1);
  const std::string ks = x.count > 1 ? first + ".." + std::to_string(x.index + x.count) : first;
  std::string s = "A_" + ks + "*B_" + ks;
  if (per_group && t.scale_block) {
    const std::string j = std::to_string(static_cast<std::size_t>(x.index) / t.scale_block + 1);
    s += " * SA_" + j + "*SB_" + j;
  }
  return s;
}

}  // namespace

std::string mma_trace_report(const Header& h, std::span<const std::uint64_t> operands) {
  const TensorCoreModel* m = find_tensor_core_model(h.model);
  if (!m) return "";
  const std::size_t k = h.block;
  std::vector<std::uint8_t> codes(2 * k);
  for (std::size_t i = 0; i < 2 * k; ++i) codes[i] = static_cast<std::uint8_t>(operands[i]);
  const bool scaled = h.scale_format != MmaScaleFormat::none;
  // A block-scaled line holds SA_1..SA_n, SB_1..SB_n between B and C (vectors/README.md 4).
  const std::size_t n = scaled ? k / h.scale_block : 0;
  std::vector<std::uint8_t> scales(2 * n);
  for (std::size_t j = 0; j < 2 * n; ++j) scales[j] = static_cast<std::uint8_t>(operands[2 * k + j]);
  const std::uint32_t c = h.addend ? static_cast<std::uint32_t>(operands[2 * k + 2 * n]) : 0;
  const FormatId sf = h.scale_format == MmaScaleFormat::ue4m3 ? FormatId::e4m3 : FormatId::e8m0;
  TensorCoreTrace t;
  try {
    t = scaled ? m->trace_scaled(h.from, std::span(codes.data(), k), h.to, std::span(codes.data() + k, k), sf,
                                 h.scale_block, std::span(scales.data(), n), std::span(scales.data() + n, n),
                                 h.accumulator, c)
               : m->trace(h.from, std::span(codes.data(), k), h.to, std::span(codes.data() + k, k), h.accumulator, c);
  } catch (const std::invalid_argument& e) {
    // The traces take exactly what mma() and mma_scaled() take, so a line the Evaluator could
    // check always traces; should one not, the report says why instead of ending verify.
    return "    model " + std::string(m->name()) + ": no trace: " + e.what() + "\n";
  }
  const Format& acc = format(h.accumulator);
  const bool per_group = m->params().scale_application == ScaleApplication::per_group;
  std::string s = "    model " + std::string(m->name()) + " (docs/TENSOR_CORES.md):";
  if (scaled) {
    // What the terms below are made of: the scales as read, and C (unscaled models print only
    // the terms, which is all they need: there, every term is an element product or C).
    s += "\n";
    for (std::size_t j = 0; j < n; ++j) {
      const std::string idx = std::to_string(j + 1);
      s += "      scales: SA_" + idx + " = " + hex(scales[j], 2) + " (" + scale_value_text(sf, scales[j]) + "), SB_" + idx +
           " = " + hex(scales[n + j], 2) + " (" + scale_value_text(sf, scales[n + j]) + ") for products " +
           std::to_string(j * h.scale_block + 1) + ".." + std::to_string((j + 1) * h.scale_block) + "\n";
    }
    s += h.addend ? "      C = " + hex(c, acc.hex_digits()) + "  " + value_text(acc, c) + "\n"
                  : std::string("      C = +0 (addend = no)\n");
    if (t.special) return s + "      NaN or Inf operands or a NaN scale decide: D " + hex(t.result.code, acc.hex_digits()) + "\n";
    s += per_group ? "      each term A_i..j*B_i..j * SA*SB is one scale group's exact sum times its two scales\n"
                   : "      each product term A_i*B_i includes its two scales (its exponent is raised by theirs)\n";
  } else {
    if (t.special) return s + " NaN or Inf operands decide at once: D " + hex(t.result.code, acc.hex_digits()) + "\n";
    s += "\n";
  }
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
      // The label column: 12 wide as it always was; wider for the longer labels of scaled and
      // per-group terms, so that their columns stay aligned.
      std::size_t width = 12;
      if (scaled || per_group)
        for (const TensorCoreTraceTerm& x : g.terms) width = std::max(width, term_label(x, t, per_group).size() + 1);
      for (const TensorCoreTraceTerm& x : g.terms) {
        s += "        " + pad(term_label(x, t, per_group), width) + pad(dyadic(x.neg, x.n, x.q), 18) + " e " +
             pad(std::to_string(x.align_exponent), 5) +
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
