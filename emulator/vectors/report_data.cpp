// emulator/vectors/report_data.cpp: see report_data.hpp (and docs/REPORT.md).
#include "softmx/vectors/report_data.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <memory>

#include "softmx/batch.hpp"
#include "softmx/convert.hpp"
#include "softmx/describe.hpp"
#include "softmx/error.hpp"
#include "softmx/explain.hpp"
#include "softmx/sha256.hpp"
#include "softmx/text.hpp"
#include "softmx/version.hpp"
#include "softmx/vectors/candidates.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/report.hpp"
#include "softmx/vectors/table_diff.hpp"

namespace softmx::vec {

using u64 = std::uint64_t;

namespace {

constexpr std::size_t idx(InputClass c) { return static_cast<std::size_t>(c); }
std::string format_name(const Format& f) { return std::string(f.name.view()); }

/// The cells of a format's codes in a DomainGrid: for a float, the exponent field across and
/// the sign and leading fraction bits down; for others (two's complement) the code's high bits
/// across and its low bits down. A cell is the codes with one value of code >> shift.
struct CodeCells {
  Format f;
  int shift = 0, es = 0, b = 0, ybits = 0;
  bool floaty = false, sign = false;

  void setup(const Format& fmt, DomainGrid& g, const std::string& what) {
    f = fmt;
    floaty = f.exp_bits >= 1 && f.sign != SignEncoding::twos_complement;
    if (floaty) {
      es = f.exp_bits;
      b = std::min({static_cast<int>(f.man_bits), 4, std::max(0, 14 - es)});
      shift = f.man_bits - b;
      sign = f.sign == SignEncoding::magnitude;
      g.resize(std::uint32_t{1} << es, (sign ? 2u : 1u) << b);
      g.x_label = what + ": exponent field (binade 2^e)";
      g.y_label = what + ": " + (sign ? "sign, then " : "") + "leading fraction bits (" + std::to_string(b) + ")";
      for (std::uint32_t e = 0; e < g.nx; ++e) g.x_names.push_back(exp_label(e));
      const std::uint32_t step = std::max<std::uint32_t>(1, g.nx / 8);
      for (std::uint32_t e = 0; e < g.nx; e += step) g.x_ticks.emplace_back(e, exp_label(e));
      if (g.x_ticks.back().first != g.nx - 1) g.x_ticks.emplace_back(g.nx - 1, exp_label(g.nx - 1));
      for (int sg = 0; sg < (sign ? 2 : 1); ++sg) {
        const std::uint32_t y0 = static_cast<std::uint32_t>(sg) << b;
        const std::string s = sign ? (sg ? "-" : "+") : "";
        g.y_ticks.emplace_back(y0, s + "1.0");
        if (b >= 1) g.y_ticks.emplace_back(y0 + (1u << (b - 1)), s + "1.5");
      }
    } else {
      const int cb = std::min<int>(f.width, 12);
      shift = f.width - cb;
      ybits = cb / 2;
      g.resize(std::uint32_t{1} << (cb - ybits), std::uint32_t{1} << ybits);
      g.x_label = what + ": code bits " + std::to_string(f.width - 1) + ".." + std::to_string(shift + ybits);
      g.y_label = what + ": code bits " + std::to_string(shift + ybits - 1) + ".." + std::to_string(shift);
      for (std::uint32_t x = 0; x < g.nx; x += std::max<std::uint32_t>(1, g.nx / 8))
        g.x_ticks.emplace_back(x, hex(static_cast<u64>(x) << (shift + ybits), f.hex_digits()));
      for (std::uint32_t y = 0; y < g.ny; y += std::max<std::uint32_t>(1, g.ny / 4))
        g.y_ticks.emplace_back(y, hex(static_cast<u64>(y) << shift, f.hex_digits()));
    }
  }
  std::string exp_label(std::uint32_t e) const {
    if (e == 0 && f.subnormals) return "0/sub";
    if (f.specials == Specials::ieee && e == (1u << es) - 1) return "Inf/NaN";
    return "2^" + std::to_string(static_cast<int>(e) - f.bias);
  }
  std::pair<std::uint32_t, std::uint32_t> cell_of_id(u64 id) const {
    if (floaty) {
      const auto x = static_cast<std::uint32_t>((id >> b) & ((u64{1} << es) - 1));
      const auto fb = static_cast<std::uint32_t>(id & ((u64{1} << b) - 1));
      const std::uint32_t sg = sign ? static_cast<std::uint32_t>((id >> (es + b)) & 1) : 0;
      return {x, (sg << b) | fb};
    }
    return {static_cast<std::uint32_t>(id >> ybits), static_cast<std::uint32_t>(id & ((u64{1} << ybits) - 1))};
  }
  std::pair<std::uint32_t, std::uint32_t> cell(u64 code) const { return cell_of_id(code >> shift); }
  /// Adds codes lo..hi to the grid, split by cell: checked or failed.
  void add_range(DomainGrid& g, u64 lo, u64 hi, bool fail) const {
    for (u64 id = lo >> shift;; ++id) {
      const u64 c0 = std::max(lo, id << shift), c1 = std::min(hi, ((id + 1) << shift) - 1);
      const auto [x, y] = cell_of_id(id);
      g.add(x, y, fail ? 0 : c1 - c0 + 1, fail ? c1 - c0 + 1 : 0);
      if (id == (hi >> shift)) break;
    }
  }
};

/// The results column's group name: "OUT_3" and "OUT" are "OUT".
std::string group_name(const std::string& label) {
  const auto p = label.find_first_of("_.");
  return p == std::string::npos ? label : label.substr(0, p);
}

/// Collects the report's statistics of one file as verify checks it.
class Collector final : public VerifyObserver {
 public:
  Collector(const Header& h, const CaseClassifier& c) : h_(h), l_(line_layout(h)), c_(c) {
    for (std::size_t i = 0; i < l_.results.size(); ++i) {
      const std::string g = group_name(l_.results[i].label);
      std::size_t k = 0;
      while (k < ulp.size() && ulp[k].field != g) ++k;
      if (k == ulp.size()) ulp.push_back(UlpHistogram{g, format_name(*l_.results[i].format), 0, 0, {}});
      group_.push_back(k);
    }
    switch (h.operation) {
      case Operation::convert:
        cells_.setup(h.from, grid, "input (" + format_name(h.from) + ")");
        grid.title = "Where the failures lie: each input code";
        if (h.layout == Layout::runs) band.emplace(h.first, h.last, h.from.hex_digits());
        break;
      case Operation::dequantize: {
        const Format& e = h.from;
        ys_ = std::max(0, static_cast<int>(e.width) - 6);
        grid.resize(256, std::uint32_t{1} << (e.width - ys_));
        grid.title = "Where the failures lie: scale x element code";
        grid.x_label = "SCALE (E8M0 code)";
        grid.y_label = "CODE (" + format_name(e) + ")" + (ys_ ? ", leading " + std::to_string(e.width - ys_) + " bits" : "");
        scale_names();
        for (std::uint32_t y = 0; y < grid.ny; y += std::max<std::uint32_t>(1, grid.ny / 4))
          grid.y_ticks.emplace_back(y, hex(static_cast<u64>(y) << ys_, e.hex_digits()));
        break;
      }
      case Operation::quantize: {
        rows_ = std::min<std::uint32_t>(h.block, 32);
        grid.resize(256, rows_ + 2);
        grid.title = "Where the failures lie: softmx's scale x result column (a cell per element)";
        grid.x_label = "softmx's SCALE (E8M0 code)";
        grid.y_label = "result column: SCALE, OUT_i" + std::string(h.block > 32 ? " (grouped)" : "") + ", FLAGS";
        scale_names();
        grid.y_ticks.emplace_back(0, "SCALE");
        grid.y_ticks.emplace_back(1, "OUT_1");
        if (rows_ > 1) grid.y_ticks.emplace_back(rows_, "OUT_" + std::to_string(h.block));
        grid.y_ticks.emplace_back(rows_ + 1, "FLAGS");
        break;
      }
      case Operation::dot:
      case Operation::mma:
        cells_.setup(*l_.results[0].format, grid, "softmx's result (" + format_name(*l_.results[0].format) + ")");
        grid.title = "Where the failures lie: softmx's result code (the operands span too many dimensions to draw)";
        break;
    }
    grid.note = "cells hold the cases (inputs) checked; those with a failure are marked";
  }

  std::array<ClassCounts, kInputClasses> classes{};
  DomainGrid grid;
  std::optional<InputBand> band;
  std::vector<UlpHistogram> ulp;

  void on_case(std::span<const u64> operands, std::span<const u64> got, bool has_flags, Flags got_flags,
               std::span<const u64> want, Flags want_flags) override {
    ClassCounts& k = classes[idx(c_.classify(operands, want, want_flags))];
    ++k.checked;
    bool rb = false;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (got[i] == want[i]) continue;
      rb = true;
      ulp[group_[i]].add(ulp_distance(*l_.results[i].format, got[i], want[i]), 1);
    }
    const bool fb = has_flags && got_flags != want_flags;
    k.result_failed += rb;
    k.flags_checked += has_flags;
    k.flags_failed += fb;
    switch (h_.operation) {
      case Operation::convert: {
        const auto [x, y] = cells_.cell(operands[0]);
        grid.add(x, y, 1, rb || fb);
        break;
      }
      case Operation::dequantize:
        grid.add(static_cast<std::uint32_t>(operands[0]), static_cast<std::uint32_t>(operands[1] >> ys_), 1, rb || fb);
        break;
      case Operation::quantize: {
        const auto x = static_cast<std::uint32_t>(want[0]);
        grid.add(x, 0, 1, got[0] != want[0]);
        for (std::size_t i = 1; i < got.size(); ++i)
          grid.add(x, 1 + static_cast<std::uint32_t>((i - 1) * rows_ / h_.block), 1, got[i] != want[i]);
        if (has_flags) grid.add(x, rows_ + 1, 1, fb);
        break;
      }
      case Operation::dot:
      case Operation::mma: {
        const auto [x, y] = cells_.cell(want[0]);
        grid.add(x, y, 1, rb || fb);
        break;
      }
    }
  }

  void on_range(const RangeMismatch& m) override {
    const ClassArray n = c_.count_codes(m.first, m.last);
    const bool rb = m.got != m.want, fb = m.has_flags && m.got_flags != m.want_flags;
    for (std::size_t i = 0; i < kInputClasses; ++i) {
      if (rb) classes[i].result_failed += n[i];
      if (fb) classes[i].flags_failed += n[i];
    }
    cells_.add_range(grid, m.first, m.last, true);
    if (band) band->add(m.first, m.last);
    if (rb) ulp[0].add(ulp_distance(h_.to, m.got, m.want), m.count());
  }

  /// Columns of E8M0 scale codes: 2^(code - 127), 0xFF NaN.
  void scale_names() {
    for (std::uint32_t x = 0; x < 256; ++x) grid.x_names.push_back(x == 255 ? "NaN" : "2^" + std::to_string(static_cast<int>(x) - 127));
    for (std::uint32_t x : {0u, 64u, 127u, 190u, 254u, 255u}) grid.x_ticks.emplace_back(x, grid.x_names[x]);
  }

  /// A run table: every input of first..last was checked.
  void runs_checked(u64 first, u64 last, bool flags) {
    const ClassArray n = c_.count_codes(first, last);
    for (std::size_t i = 0; i < kInputClasses; ++i) {
      classes[i].checked = n[i];
      classes[i].flags_checked = flags ? n[i] : 0;
    }
    cells_.add_range(grid, first, last, false);
  }

 private:
  const Header& h_;
  LineLayout l_;
  const CaseClassifier& c_;
  CodeCells cells_;
  std::vector<std::size_t> group_;
  int ys_ = 0;
  std::uint32_t rows_ = 1;
};

/// Candidates for the "comes from" column, made when the first failure needs them.
struct LazyCandidates {
  const Header* h = nullptr;
  std::optional<std::vector<Candidate>> with, without;
  const std::vector<Candidate>& get(bool flags) {
    auto& c = flags ? with : without;
    if (!c) c = make_candidates(*h, flags);
    return *c;
  }
};

/// One failure, for the report: class, ulps, the settings that give the device's result and (for
/// convert) why each result is what it is.
ReportFailure make_failure(const Header& h, const LineLayout& l, const CaseClassifier& cls, const std::vector<Candidate>& cands,
                           std::span<const u64> operands, std::span<const u64> got, bool has_flags, Flags got_flags,
                           std::span<const u64> want, Flags want_flags) {
  ReportFailure f;
  if (h.layout == Layout::runs) {
    f.operands = hex(operands[0], l.operands[0].digits);
    f.device = hex(got[0], l.results[0].digits);
    f.expected = hex(want[0], l.results[0].digits);
  } else {
    f.operands = fields_hex(l.operands, operands);
    f.device = fields_hex(l.results, got);
    f.expected = fields_hex(l.results, want);
  }
  if (has_flags) f.device_flags = got_flags;
  f.expected_flags = want_flags;
  f.result_differs = !std::equal(got.begin(), got.end(), want.begin());
  f.cls = h.layout == Layout::runs ? cls.classify_code(operands[0]) : cls.classify(operands, want, want_flags);
  f.ulps = "flags only";
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i]) {
      f.ulps = (got.size() > 1 ? l.results[i].label + " " : std::string()) + ulp_distance(*l.results[i].format, got[i], want[i]).text();
      break;
    }
  f.producers = producers(cands, operands, got, has_flags, got_flags);
  if (h.operation == Operation::convert && h.ctx.rounding != Rounding::rs) {
    try {
      const ExplainInput in = explain_input_code(h.from, operands[0]);
      const Neighbours nb = find_neighbours(in, h.to);
      f.device_reason = rounding_reason(in, nb, h.to, h.ctx, h.dialect_ref(), Result{got[0], has_flags ? got_flags : want_flags});
      f.softmx_reason = rounding_reason(in, nb, h.to, h.ctx, h.dialect_ref(), Result{want[0], want_flags});
    } catch (const std::exception&) {  // no explanation: the rest of the failure stands
      f.device_reason.clear();
      f.softmx_reason.clear();
    }
  }
  return f;
}

}  // namespace

// ---- the three kinds of input ----

namespace {

VerifyReport verify_report(const std::string& path, const ReportOptions& o) {
  VerifyReport r;
  auto reader = VectorReader::open(path);
  r.file = file_info(path);
  const Header h = reader->header();
  r.header_text = header_text(h);
  const CaseClassifier cls(h);
  r.class_basis = cls.basis();
  Collector col(h, cls);
  VerifyOptions vo;
  vo.max_errors = o.max_failures;
  vo.threads = std::max(1u, o.threads);
  vo.accept_unproven = o.accept_unproven;
  vo.expect_cases = o.expect_cases;
  vo.progress = o.progress;
  vo.progress_to_stderr = o.progress_to_stderr;
  vo.observer = &col;
  r.verify = verify_file(*reader, vo);
  if (r.verify.runs) col.runs_checked(h.first, h.last, r.verify.flags_compared > 0);
  r.classes = col.classes;
  r.grid = std::move(col.grid);
  r.band = std::move(col.band);
  r.ulp = std::move(col.ulp);
  const LineLayout l = line_layout(h);
  LazyCandidates cands{&r.verify.checked, {}, {}};
  for (const VerifyMismatch& m : r.verify.mismatches) {
    ReportFailure f;
    if (m.range) {
      const u64 op[1] = {m.first};
      f = make_failure(r.verify.checked, l, cls, cands.get(m.has_flags), op, m.got, m.has_flags, m.got_flags, m.want,
                       m.want_flags);
      f.range = true;
      f.first = m.first;
      f.last = m.last;
      f.where = hex(m.first, l.operands[0].digits) + ".." + hex(m.last, l.operands[0].digits);
    } else {
      f = make_failure(r.verify.checked, l, cls, cands.get(m.has_flags), m.operands, m.got, m.has_flags, m.got_flags, m.want,
                       m.want_flags);
      f.where = m.where;
      f.line = m.line;
    }
    f.report = m.report;
    r.failures.push_back(std::move(f));
  }
  return r;
}

IdentifyReport identify_report(const std::string& path, const ReportOptions& o) {
  IdentifyReport r;
  {
    auto first = VectorReader::open(path);  // bad input is named before the file is hashed
    r.header_text = header_text(first->header());
  }
  r.file = file_info(path);
  IdentifyOptions io;
  io.exact_groups = 3;
  io.max_errors = static_cast<std::size_t>(std::min<u64>(o.max_failures, 100000));
  io.threads = std::max(1u, o.threads);
  io.progress = o.progress_to_stderr;
  io.on_progress = o.progress;
  r.id = identify([&]() { return VectorReader::open(path); }, io);
  const Identification& id = r.id;
  const bool agrees = id.agrees();
  const bool unproven = agrees && id.completeness.status() == CompletenessStatus::unproven;
  r.accepted_unproven = unproven && o.accept_unproven;
  r.status = id.identified() || r.accepted_unproven ? VerdictStatus::pass : unproven ? VerdictStatus::unproven : VerdictStatus::fail;
  // What the best setting still disagrees on, worded as verify words it.
  const Header& bh = id.candidates[id.best()].header;
  const CaseClassifier cls(bh);
  const CandidateScore& bs = id.scores[id.best()];
  for (const Disagreement& d : bs.cases) {
    ReportFailure f = make_failure(bh, id.layout, cls, id.candidates, d.rec.operands, d.rec.results, d.rec.has_flags, d.rec.flags,
                                   d.want, d.want_flags);
    f.where = d.where;
    f.line = d.line;
    f.report = case_report(d.where, id.layout, d.rec.operands, d.rec.results, d.rec.has_flags, d.rec.flags, d.want, d.want_flags,
                           &id.candidates);
    r.failures.push_back(std::move(f));
  }
  for (const RangeMismatch& m : bs.runs) {
    const u64 op[1] = {m.first}, got[1] = {m.got}, want[1] = {m.want};
    ReportFailure f = make_failure(bh, id.layout, cls, id.candidates, op, got, m.has_flags, m.got_flags, want, m.want_flags);
    f.range = true;
    f.first = m.first;
    f.last = m.last;
    f.where = hex(m.first, id.layout.operands[0].digits) + ".." + hex(m.last, id.layout.operands[0].digits);
    f.report = range_report(id.layout, m, &id.candidates);
    r.failures.push_back(std::move(f));
  }
  return r;
}

/// "7F = NaN  [+F.7]  flags ....." (flags left out when not compared).
std::string outcome_text(const Format& f, u64 code, Flags flags, bool with_flags) {
  std::string t = hex(code, f.hex_digits()) + " = " + value_text(f, code) + "  [" + testfloat_text(f, code) + "]";
  if (with_flags) t += "  flags " + flags_letters(flags);
  return t;
}

DiffReport diff_report(const std::string& pa, const std::string& pb, const ReportOptions& o) {
  DiffReport d;
  auto ra = VectorReader::open(pa);
  auto rb = VectorReader::open(pb);
  require_run_table(*ra);
  require_run_table(*rb);
  require_same_inputs(*ra, *rb);
  d.a = file_info(pa);
  d.b = file_info(pb);
  d.ha = ra->header();
  d.hb = rb->header();
  const CaseClassifier cls(d.ha);
  d.class_basis = cls.basis() + " (A's destination)";
  const Format& src = d.ha.from;
  d.band = InputBand(d.ha.first, d.ha.last, src.hex_digits());
  d.inputs = d.ha.last - d.ha.first + 1;
  std::optional<Converter> ca, cb;
  std::string why_a, why_b;
  try {
    ca.emplace(d.ha.from, d.ha.to, d.ha.ctx, d.ha.dialect_ref());
  } catch (const Unsupported& e) {
    why_a = e.what();
  }
  try {
    cb.emplace(d.hb.from, d.hb.to, d.hb.ctx, d.hb.dialect_ref());
  } catch (const Unsupported& e) {
    why_b = e.what();
  }
  RunLockstep walk(*ra, *rb);
  d.flags_compared = walk.flags_compared();
  d.a_has_flags = walk.a_has_flags();
  d.b_has_flags = walk.b_has_flags();
  auto reason = [&](const std::optional<Converter>& c, const std::string& why, const Header& h, const ExplainInput& in,
                    const Outcome& table) -> std::string {
    if (!c) return "softmx cannot compute this: " + why;
    const Result r = (*c)(*in.code);
    const Neighbours nb = find_neighbours(in, h.to);
    std::string t = "softmx gives " + outcome_text(h.to, r.code, r.flags, true) + ": " +
                    rounding_reason(in, nb, h.to, h.ctx, h.dialect_ref(), r);
    if (r.code != table.code || (d.flags_compared && r.flags != table.flags))
      t += " (the table says " + hex(table.code, h.to.hex_digits()) + ": not what softmx computes under this header)";
    return t;
  };
  walk.for_each_difference([&](const TableDifference& x) {
    ++d.ranges;
    d.differing += x.count();
    d.band.add(x.first, x.last);
    const ClassArray n = cls.count_codes(x.first, x.last);
    const bool rb_ = x.a.code != x.b.code, fb = d.flags_compared && x.a.flags != x.b.flags;
    for (std::size_t i = 0; i < kInputClasses; ++i) {
      if (rb_) d.classes[i].result_failed += n[i];
      if (fb) d.classes[i].flags_failed += n[i];
    }
    if (d.differences.size() >= o.max_failures) return;
    DiffRange r;
    r.first = x.first;
    r.last = x.last;
    r.a_code = x.a.code;
    r.b_code = x.b.code;
    r.a_flags = x.a.flags;
    r.b_flags = x.b.flags;
    r.input_text = std::string(src.name.view()) + " " + hex(x.first, src.hex_digits()) + " = " + value_text(src, x.first) + "  [" +
                   testfloat_text(src, x.first) + "]";
    r.a_text = outcome_text(d.ha.to, x.a.code, x.a.flags, d.flags_compared);
    r.b_text = outcome_text(d.hb.to, x.b.code, x.b.flags, d.flags_compared);
    try {
      const ExplainInput in = explain_input_code(src, x.first);
      r.a_reason = reason(ca, why_a, d.ha, in, x.a);
      r.b_reason = reason(cb, why_b, d.hb, in, x.b);
    } catch (const std::exception&) {
    }
    d.differences.push_back(std::move(r));
  });
  const ClassArray all = cls.count_codes(d.ha.first, d.ha.last);
  for (std::size_t i = 0; i < kInputClasses; ++i) {
    d.classes[i].checked = all[i];
    d.classes[i].flags_checked = d.flags_compared ? all[i] : 0;
  }
  return d;
}

}  // namespace

ReportData make_report(const ReportInputs& in, const ReportOptions& o) {
  if (in.verify.empty() && in.identify.empty() && in.diff.empty())
    throw InputError("nothing to report: give results files or run tables to verify, files to identify, or pairs to diff");
  auto not_stdin = [](const std::string& p) {
    if (p == "-")
      throw InputError("-: the report reads each file twice (its SHA-256, then its check): give a path, not standard input");
  };
  for (const std::string& p : in.verify) not_stdin(p);
  for (const std::string& p : in.identify) not_stdin(p);
  for (const auto& [a, b] : in.diff) not_stdin(a), not_stdin(b);
  ReportData d;
  d.title = o.title.empty() ? "softmx certificate" : o.title;
  d.command = o.command;
  d.date = o.date.empty() ? report_date() : o.date;
  d.build = build_text();
  d.max_failures = o.max_failures;
  for (const std::string& p : in.verify) d.verified.push_back(verify_report(p, o));
  for (const std::string& p : in.identify) d.identified.push_back(identify_report(p, o));
  for (const auto& [a, b] : in.diff) d.diffs.push_back(diff_report(a, b, o));
  return d;
}

std::string build_text() {
  std::string s(kVersionName);
#if defined(__clang__)
  s += "; clang " + std::string(__clang_version__);
#elif defined(__GNUC__)
  s += "; g++ " + std::string(__VERSION__);
#endif
#ifdef NDEBUG
  s += "; release (NDEBUG)";
#else
  s += "; assertions on";
#endif
  s += std::string("; vector kernels ") + name(default_isa());
  return s;
}

std::string report_date() {
  std::time_t t = std::time(nullptr);
  if (const char* e = std::getenv("SOURCE_DATE_EPOCH"); e && *e) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(e, &end, 10);
    if (end && *end == 0) t = static_cast<std::time_t>(v);
  }
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

std::string shell_quote(std::string_view s) {
  const bool bare = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c != 0 && std::strchr("_./:=+-,@%", c) != nullptr);
  });
  if (bare) return std::string(s);
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace softmx::vec
