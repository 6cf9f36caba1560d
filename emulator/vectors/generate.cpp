// emulator/vectors/generate.cpp: see generate.hpp. The driver of `gen`: how many random cases,
// which operation's generator (generate_<operation>.cpp, sharing generate_cases.hpp), the
// summary and digest of the cases, and write_vectors.
//
// vectors/README.md section 6 describes every set built here, draw by draw: a change to what
// these files generate is a change to that section (and to the committed vectors' hashes).
#include "softmx/vectors/generate.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "generate_cases.hpp"
#include "softmx/vectors/input_digest.hpp"

namespace softmx::vec {

using gen_detail::u64;
using namespace gen_detail;

std::uint64_t random_count(const Header& h, const GenOptions& o) {
  if (o.level < 2 || exhaustive(h)) return 0;
  if (o.count) return *o.count;
  switch (h.operation) {
    case Operation::convert: return kDefaultConvertRandom;
    case Operation::quantize: return kDefaultQuantizeRandom;
    case Operation::dot: return kDefaultDotRandom;
    case Operation::mma: return kDefaultMmaRandom;
    case Operation::dequantize: break;
  }
  return 0;
}

void for_each_case(const Header& h, const GenOptions& o, const CaseSink& emit) {
  const u64 random = random_count(h, o);
  switch (h.operation) {
    case Operation::convert: return convert_cases(h, random, o.seed, emit);
    case Operation::quantize: return quantize_cases(h, random, o.seed, emit);
    case Operation::dequantize: return dequantize_cases(h, emit);
    case Operation::dot: return dot_cases(h, random, o.seed, emit);
    case Operation::mma: return mma_cases(h, random, o.seed, emit);
  }
}

void for_each_written_case(const Evaluator& ev, const GenOptions& o, const CaseSink& emit) {
  const Header& h = ev.header();
  // Only quantize can refuse a case, and only under a dialect that raises on a NaN element of
  // a format without NaN (BlockQuantizer: nan_to_finite = error); write_vectors() leaves such
  // blocks out. Elsewhere nothing needs evaluating.
  const bool may_refuse = h.operation == Operation::quantize &&
                          h.dialect_ref().nan_to_finite == NanToFinite::error && !format(h.to).has_nan();
  if (!may_refuse) return for_each_case(h, o, emit);
  std::vector<std::uint64_t> results(ev.layout().results.size());
  for_each_case(h, o, [&](std::span<const std::uint64_t> ops) {
    if (ev.try_evaluate(ops, results)) emit(ops);
  });
}

CaseSummary summarize_cases(const Evaluator& ev, const GenOptions& o) {
  InputDigest d(ev.layout());
  for_each_written_case(ev, o, [&](std::span<const std::uint64_t> ops) { d.add(ops); });
  return CaseSummary{d.count(), d.hex()};
}

std::uint64_t record_cases(Header& h, const std::function<void(const CaseSink&)>& each) {
  if (h.layout != Layout::cases) throw std::logic_error("record_cases: a run table has no cases or inputs-sha256");
  const LineLayout layout = line_layout(h);
  InputDigest d(layout);
  each([&](std::span<const std::uint64_t> ops) {
    if (ops.size() != layout.operands.size())
      throw std::logic_error("record_cases: " + std::to_string(ops.size()) + " operands, the layout has " +
                             std::to_string(layout.operands.size()));
    d.add(ops);
  });
  h.cases = d.count();
  h.inputs_sha256 = d.hex();
  return d.count();
}

namespace {

// A lower bound of the bytes gen writes, known at once (the exact count needs the pass over
// every case that the header's `cases` and `inputs-sha256` come from): the random cases of
// level 2 times the length of a line. Every data line of a file has the same length: the
// fixed-width hex fields of the layout (operands; results and the 2-digit flags unless
// --inputs-only), a space between two fields (none with --export readmemh) and a newline. The
// header and the level-1 cases are left out, and so are the random cases where the dialect may
// refuse one (for_each_written_case: quantize into a format without NaN under a dialect that
// raises on a NaN element), which would not be written.
std::uint64_t written_bytes_at_least(const Evaluator& ev, const GenOptions& o, const WriteOptions& w) {
  const Header& h = ev.header();
  if (h.operation == Operation::quantize && h.dialect_ref().nan_to_finite == NanToFinite::error && !format(h.to).has_nan())
    return 0;
  const LineLayout& l = ev.layout();
  std::uint64_t digits = 0, fields = 0;
  auto add = [&](int d) {
    digits += static_cast<std::uint64_t>(d);
    ++fields;
  };
  for (const Field& f : l.operands) add(f.digits);
  if (!w.inputs_only) {
    for (const Field& f : l.results) add(f.digits);
    if (l.flags) add(2);
  }
  if (fields == 0) return 0;
  const std::uint64_t line = digits + (w.readmemh ? 0 : fields - 1) + 1;
  // At most kMaxCount (10^9) lines of at most about 25 MB each (dot: two sides of 1024 blocks
  // of 4096 codes): below 2^55, no overflow.
  return random_count(h, o) * line;
}

}  // namespace

std::uint64_t write_vectors(const Evaluator& ev, const GenOptions& o, const WriteOptions& w, OutputFile& out) {
  // Fail now, not after the pass over every case, when the file system or `ulimit -f` cannot
  // take what is sure to be written (a full disk was reported only after that pass: minutes for
  // --count 10^9). Here, so that the CLI and Python both check it.
  out.require_space(written_bytes_at_least(ev, o, w));
  Header h = ev.header();
  h.level = std::to_string(o.level);
  h.seed = o.seed;
  h.generator = std::string(kGeneratorName);
  auto header = [&] { return w.readmemh ? header_text_commented(h, "// ") : header_text(h); };
  // The header lines before `cases` are written, and flushed, before the long pass below: an
  // output that cannot be written at all (a full device, a closed pipe, a used-up quota) fails
  // at once instead of after the pass over every case.
  std::string& text = out.text();
  h.cases = 0;
  const std::string before_cases = [&] {
    const std::string t = header();
    return t.substr(0, t.find(w.readmemh ? "\n// cases = " : "\ncases = ") + 1);
  }();
  text += before_cases;
  out.flush();
  // The header says how many cases follow and what they are, so that a results file cut short
  // or shuffled is caught (README 3, "Completeness").
  const CaseSummary summary = summarize_cases(ev, o);
  h.cases = summary.cases;
  h.inputs_sha256 = summary.sha256;
  const LineLayout& layout = ev.layout();
  const std::string full = header();
  if (full.compare(0, before_cases.size(), before_cases) != 0)
    throw std::logic_error("write_vectors: the header's lines before `cases` changed with the summary");
  text.append(full, before_cases.size());
  text += w.readmemh ? "// " : "# ";
  text += w.inputs_only ? layout.operand_columns() : layout.columns();
  text += '\n';
  out.chunk();

  // Only quantize can refuse a case (a dialect that raises on a NaN element: gfloat); such
  // blocks are left out, so an inputs file lists exactly the cases of the full file.
  const bool may_refuse = h.operation == Operation::quantize;
  const bool separate = !w.readmemh;
  std::vector<std::uint64_t> results(layout.results.size());
  std::uint64_t written = 0;
  auto line = [&](std::span<const std::uint64_t> ops, std::span<const std::uint64_t> res, Flags flags) {
    bool first = true;
    auto field = [&](std::uint64_t v, int digits) {
      if (separate && !first) text += ' ';
      first = false;
      append_hex(text, v, digits);
    };
    for (std::size_t i = 0; i < ops.size(); ++i) field(ops[i], layout.operands[i].digits);
    if (!w.inputs_only) {
      for (std::size_t i = 0; i < res.size(); ++i) field(res[i], layout.results[i].digits);
      if (layout.flags) field(flags, 2);
    }
    text += '\n';
    out.chunk();
    ++written;
  };
  // dot and mma: the cases are computed in batches by softmx::dot_pairs / mma_pairs (the
  // batched kernels, the same results as one evaluate() per case), then written in order.
  if ((h.operation == Operation::dot || h.operation == Operation::mma) && !w.inputs_only) {
    const std::size_t per = layout.operands.size();
    // About 4 Mi codes per batch (an mma header has no blocks: one vector of k per side).
    const std::size_t codes = std::size_t{h.block} * std::max<std::size_t>(h.blocks, 1);
    const std::size_t batch = std::clamp<std::size_t>((std::size_t{1} << 22) / codes, 1, 4096);
    std::vector<std::uint64_t> ops, res;
    std::vector<Flags> fl;
    auto flush = [&] {
      const std::size_t n = ops.size() / per;
      if (n == 0) return;
      res.resize(n);
      fl.resize(n);
      if (h.operation == Operation::dot) ev.evaluate_dots(ops, n, res, fl);
      else ev.evaluate_mmas(ops, n, res);  // mma lines carry no flags
      for (std::size_t l = 0; l < n; ++l) line(std::span(ops.data() + l * per, per), std::span(res.data() + l, 1), fl[l]);
      ops.clear();
    };
    for_each_case(h, o, [&](std::span<const std::uint64_t> c) {
      ops.insert(ops.end(), c.begin(), c.end());
      if (ops.size() / per == batch) flush();
    });
    flush();
    return written;
  }
  for_each_case(h, o, [&](std::span<const std::uint64_t> ops) {
    Flags flags = 0;
    if (!w.inputs_only || may_refuse) {
      try {
        flags = ev.evaluate(ops, results);
      } catch (const std::invalid_argument&) {
        if (!may_refuse) throw;
        return;
      }
    }
    line(ops, results, flags);
  });
  if (written != summary.cases)
    throw std::logic_error("write_vectors: wrote " + std::to_string(written) + " cases, the header says " +
                           std::to_string(summary.cases));
  return written;
}

}  // namespace softmx::vec
