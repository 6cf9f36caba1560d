// python/src/bind_sweep.cpp: the run tables for Python (sweep, merge, diff, read_runs) and the
// explanation of one conversion (explain), as bind_vectors.cpp's opening comment describes:
// the CLI's options, the library's functions, the CLI's bytes.
#include "bind_vectors.hpp"

namespace softmx::py_binding {
namespace {

/// "I/N" as cmd_sweep.cpp parse_shard reads it.
vec::InputRange shard_arg(const std::string& text, int width) {
  const std::string expected = "shard must be 'I/N' or (I, N), shard I (from 0) of N, with 1 <= N <= 2^" +
                               std::to_string(width) + " and I < N, got " + quoted_arg(text);
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw py::value_error(expected);
  auto number = [&](std::string_view s) {
    std::uint64_t v = 0;
    if (s.empty() || s.size() > 10) throw py::value_error(expected);
    for (char c : s) {
      if (c < '0' || c > '9') throw py::value_error(expected);
      v = v * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return v;
  };
  const std::uint64_t i = number(std::string_view(text).substr(0, slash));
  const std::uint64_t n = number(std::string_view(text).substr(slash + 1));
  if (n == 0 || i >= n || n > (std::uint64_t{1} << width)) throw py::value_error(expected);
  return vec::shard_range(width, i, n);
}

/// What sweep and merge return: the run table's line count, header and its description, the
/// inputs first..last it covers, and its text (bytes), or None when it went to a file (text null).
py::dict table_dict(std::uint64_t lines, const Header& h, std::uint64_t first, std::uint64_t last,
                    const std::string* text) {
  py::dict d;
  d["lines"] = lines;
  d["header"] = vec::header_text(h);
  d["description"] = vec::describe(h);
  d["first"] = first;
  d["last"] = last;
  d["text"] = text ? py::object(py::bytes(*text)) : py::object(py::none());
  return d;
}

py::dict sweep(const std::string& src, const std::string& to, const Opt& round, const Opt& sat, const Opt& tininess,
               const Opt& dialect, long threads_in, const Opt& shard, const Opt& path, const py::object& progress) {
  const Format from = format_spec_arg("src", src);
  const Format dst = format_spec_arg("to", to);
  const Conversion c = conversion(dst, round, sat, tininess, dialect, std::nullopt);
  if (from.width > vec::kMaxSweepWidth)
    throw py::value_error("cannot sweep " + std::string(from.name) + ": it has 2^" + std::to_string(from.width) +
                          " inputs (sweep takes sources of up to 32 bits: f32, f16, bf16 and the element formats)");
  const vec::InputRange range = shard ? shard_arg(*shard, from.width) : vec::InputRange{0, from.code_mask()};
  const Header h = vec::sweep_header(from, dst, c.ctx, c.dialect->name, range);
  vec::SweepOptions so;
  so.threads = threads_in > 0 ? static_cast<unsigned>(threads_in) : std::max(1u, std::thread::hardware_concurrency());
  so.progress = progress_fn(progress);
  std::uint64_t lines = 0;
  std::string text;
  {
    py::gil_scoped_release release;
    if (path) {
      std::optional<vec::OutputFile> file;
      open_output(file, *path);
      lines = vec::sweep_table(h, so, file->text(), [&] { file->chunk(); });
      file->commit();
    } else {
      lines = vec::sweep_table(h, so, text);
    }
  }
  return table_dict(lines, h, range.first, range.last, path ? nullptr : &text);
}

/// `softmx merge`: shards of one function joined into the canonical table (merge_tables), to
/// `path`, or returned as bytes when `path` is None.
py::dict merge(const std::vector<std::string>& paths, const Opt& path) {
  std::string text;
  std::uint64_t lines = 0;
  {
    py::gil_scoped_release release;
    if (path) {
      std::optional<vec::OutputFile> file;
      open_output(file, *path);
      lines = vec::merge_tables(paths, file->text(), [&] { file->chunk(); });
      file->commit();
    } else {
      lines = vec::merge_tables(paths, text);
    }
  }
  // The merged table's header, read back by the library's reader.
  auto r = open_reader(path ? *path : std::string("<merged>"), path ? Opt() : Opt(text));
  const Header& h = r->header();
  return table_dict(lines, h, h.first, h.last, path ? nullptr : &text);
}

/// `softmx diff`: where two run tables over the same inputs disagree (RunLockstep). Each table is a
/// file (text None) or text in memory named by its path. Keeps the first `max_ranges` ranges.
py::dict diff(const std::string& path_a, const Opt& text_a, const std::string& path_b, const Opt& text_b,
              std::uint64_t max_ranges) {
  std::vector<vec::TableDifference> kept;
  std::uint64_t ranges = 0, inputs = 0, total = 0;
  bool flags = false, a_flags = false, b_flags = false;
  std::string desc_a, desc_b;
  {
    py::gil_scoped_release release;
    auto a = open_reader(path_a, text_a);
    auto b = open_reader(path_b, text_b);
    vec::require_run_table(*a);
    vec::require_run_table(*b);
    vec::require_same_inputs(*a, *b);
    desc_a = vec::describe(a->header());
    desc_b = vec::describe(b->header());
    total = a->header().last - a->header().first + 1;
    vec::RunLockstep walk(*a, *b);
    flags = walk.flags_compared();
    a_flags = walk.a_has_flags();
    b_flags = walk.b_has_flags();
    walk.for_each_difference([&](const vec::TableDifference& d) {
      ++ranges;
      inputs += d.count();
      if (kept.size() < max_ranges) kept.push_back(d);
    });
  }
  py::dict r;
  r["a"] = desc_a;
  r["b"] = desc_b;
  r["inputs"] = total;
  r["ranges"] = ranges;
  r["differing_inputs"] = inputs;
  r["flags_compared"] = flags;
  r["a_has_flags"] = a_flags;
  r["b_has_flags"] = b_flags;
  py::list l;
  for (const vec::TableDifference& d : kept) {
    py::dict e;
    e["first"] = d.first;
    e["last"] = d.last;
    e["count"] = d.count();
    e["a_code"] = d.a.code;
    e["b_code"] = d.b.code;
    e["a_flags"] = flags ? py::object(py::int_(static_cast<unsigned>(d.a.flags))) : py::object(py::none());
    e["b_flags"] = flags ? py::object(py::int_(static_cast<unsigned>(d.b.flags))) : py::object(py::none());
    l.append(e);
  }
  r["differences"] = l;
  return r;
}

/// The runs of a run table (a file, or text): arrays first, last, code, flags (-1: no flags).
py::tuple read_runs(const std::string& path, const std::optional<std::string>& text) {
  std::vector<std::uint64_t> first, last, code;
  std::vector<std::int16_t> flags;
  {
    py::gil_scoped_release release;
    auto r = open_reader(path, text);
    vec::Run run;
    while (r->next_run(run)) {
      first.push_back(run.first);
      last.push_back(run.last);
      code.push_back(run.code);
      flags.push_back(run.has_flags ? static_cast<std::int16_t>(run.flags) : std::int16_t{-1});
    }
  }
  auto arr = [](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
  };
  return py::make_tuple(arr(first), arr(last), arr(code), arr(flags));
}

// ---- explain ----

py::dict result_dict(const Format& dst, const std::optional<Result>& r) {
  py::dict d;
  if (!r) return d;
  d["code"] = r->code;
  d["flags"] = static_cast<unsigned>(r->flags);
  d["value"] = value_text(dst, r->code);
  return d;
}

py::dict explain(const std::string& value, const Opt& src, const std::string& to, const Opt& round, const Opt& sat,
                 const Opt& tininess, const Opt& dialect, std::optional<unsigned> rbits) {
  const Format dst = format_spec_arg("to", to);
  const Conversion c = conversion(dst, round, sat, tininess, dialect, rbits);
  ExplainInput in;
  if (src) {
    const Format f = format_spec_arg("src", *src);
    const auto code = parse_hex_exact(value, f.hex_digits());
    if (!code || *code > f.code_mask())
      throw py::value_error("value: expected " + expected_code(f) + ", got " + quote(value));
    in = explain_input_code(f, *code);
  } else {
    in = explain_input_text(value);
  }
  const ExplainReport rep = explain_conversion(in, dst, c.ctx, *c.dialect);
  py::dict d;
  d["text"] = explain_report_text(rep);
  d["label"] = rep.input.label;
  d["to"] = std::string(dst.name);
  d["src"] = rep.input.from ? py::object(py::str(std::string(rep.input.from->name))) : py::object(py::none());
  d["code"] = rep.input.code ? py::object(py::int_(*rep.input.code)) : py::object(py::none());
  d["exact"] = to_string(rep.input.exact);
  d["rounding"] = std::string(name(c.ctx.rounding));
  d["saturation"] = std::string(name(c.ctx.saturation));
  d["tininess"] = std::string(name(c.ctx.tininess));
  d["dialect"] = std::string(c.dialect->name);
  d["rbits"] = static_cast<unsigned>(c.ctx.rbits_width);
  const Neighbours& nb = rep.neighbours;
  py::dict n;
  n["kind"] = nb.kind == Neighbours::Kind::special   ? "special"
              : nb.kind == Neighbours::Kind::below_min ? "below_min"
              : nb.kind == Neighbours::Kind::exact     ? "exact"
                                                       : "between";
  n["lo"] = nb.kind == Neighbours::Kind::between || nb.kind == Neighbours::Kind::exact ? py::object(py::int_(nb.lo))
                                                                                       : py::object(py::none());
  n["hi"] = nb.kind == Neighbours::Kind::between || nb.kind == Neighbours::Kind::below_min ? py::object(py::int_(nb.hi))
                                                                                            : py::object(py::none());
  n["hi_finite"] = nb.hi_finite;
  n["beyond"] = nb.beyond;
  n["d_lo"] = nb.d_lo ? py::object(py::str(to_decimal(*nb.d_lo))) : py::object(py::none());
  n["d_hi"] = nb.d_hi ? py::object(py::str(to_decimal(*nb.d_hi))) : py::object(py::none());
  n["tie"] = nb.tie();
  d["neighbours"] = n;
  d["result"] = rep.result ? py::object(result_dict(dst, rep.result)) : py::object(py::none());
  d["unsupported"] = rep.unsupported;
  d["reason"] = rep.reason;
  py::list rows;
  for (const ExplainRow& row : rep.rows)
    for (const ExplainCell& cell : row.cells) {
      py::dict e;
      e["rounding"] = std::string(name(row.rounding));
      e["saturation"] = std::string(name(row.saturation));
      e["dialect"] = std::string(cell.dialect->name);
      e["given"] = row.given;
      if (cell.result) {
        e["code"] = cell.result->code;
        e["flags"] = static_cast<unsigned>(cell.result->flags);
      } else {
        e["code"] = py::none();
        e["flags"] = py::none();
      }
      rows.append(e);
    }
  d["table"] = rows;
  d["notes"] = rep.notes;
  if (rep.stochastic) {
    py::dict s;
    s["rbits"] = rep.stochastic->rbits;
    s["first_bits"] = py::int_(py::str(rep.stochastic->first_bits.str()));
    s["probability"] = to_decimal(rep.stochastic->probability);
    d["stochastic"] = s;
  } else {
    d["stochastic"] = py::none();
  }
  return d;
}

}  // namespace

void bind_sweep(py::module_& m) {
  m.def("sweep", &sweep, py::arg("src"), py::arg("to"), py::arg("round"), py::arg("sat"), py::arg("tininess"),
        py::arg("dialect"), py::arg("threads"), py::arg("shard"), py::arg("path"), py::arg("progress"));
  m.def("read_runs", &read_runs, py::arg("path"), py::arg("text"));
  m.def("merge", &merge, py::arg("paths"), py::arg("path"));
  m.def("diff", &diff, py::arg("path_a"), py::arg("text_a"), py::arg("path_b"), py::arg("text_b"), py::arg("max_ranges"));
  m.def("explain", &explain, py::arg("value"), py::arg("src"), py::arg("to"), py::arg("round"), py::arg("sat"),
        py::arg("tininess"), py::arg("dialect"), py::arg("rbits"));
}

}  // namespace softmx::py_binding
