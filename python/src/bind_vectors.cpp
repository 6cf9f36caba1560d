// python/src/bind_vectors.cpp: the vector engine (softmx/vectors/*.hpp) and the explanation of
// one conversion (softmx/explain_report.hpp) for Python: gen, verify, identify, sweep, explain.
//
// Thin: the options are turned into the same vec::Header the CLI builds (tools/softmx/cmd_gen.cpp,
// cmd_sweep.cpp, cli.cpp conversion_options: the same defaults, the same checks), then the
// library's own functions run (write_vectors, check_cases / check_runs, identify, sweep_table,
// explain_conversion) with the GIL released, and their results come back as dicts (the Python
// layer, python/softmx/_vectors.py, makes objects of them). Files are written with
// vec::OutputFile, as the CLI writes them, so the bytes are the same.
//
// bind_vectors.hpp holds what the files share; sweep, merge, diff, read_runs and explain are
// bind_sweep.cpp.
#include "bind_vectors.hpp"

namespace softmx::py_binding {
namespace {

void set_context(Header& h, const Conversion& c) { vec::set_conversion(h, c.ctx, *c.dialect); }

/// An MX element: a named one or a runtime spec of at most 8 bits (e1m2, e4m3fnuz, int4, ...);
/// ValueError naming the argument and the failing field (mx_element_arg).
Format element_arg(const char* argument, const Opt& v, const char* role) {
  if (!v)
    throw py::value_error(std::string("missing ") + argument + "=FORMAT (" + role +
                          ": e4m3, e5m2, e3m2, e2m3, e2m1, int8 or a runtime spec such as e1m2, e4m3fnuz, int4)");
  return mx_element_arg(argument, *v);
}

/// mma's operands: no tensor-core model takes a runtime element (as the CLI's gen mma).
Format mma_element_arg(const char* argument, const Opt& v, const char* role) {
  const Format f = element_arg(argument, v, role);
  if (!f.is_named())
    throw py::value_error(std::string(argument) + "=" + quoted_arg(std::string(f.name)) +
                          ": no tensor-core model takes a runtime element format (the models are the named formats' "
                          "hardware: e4m3, e5m2, e3m2, e2m3, e2m1, int8); gen('dot', acc='exact' or 'fp32-sequential') takes it");
  return f;
}

/// Everything gen takes; None is "not given" (the CLI's option absent).
struct GenArgs {
  std::string operation;
  Opt src, to, a, b, acc, scale, round, sat, tininess, dialect, accumulator, model, exportf, scale_format;
  std::optional<std::uint64_t> block, blocks, count, scale_block;
  std::optional<unsigned> rbits;
  std::optional<bool> addend;
  int level = 1;
  std::uint64_t seed = 1;
  bool inputs_only = false;
};

/// Which options an operation takes besides the common ones (cmd_gen.cpp own_options).
std::vector<std::string> given_options(const GenArgs& g) {
  std::vector<std::string> r;
  auto add = [&](const char* n, bool given) {
    if (given) r.emplace_back(n);
  };
  add("src", g.src.has_value());
  add("to", g.to.has_value());
  add("a", g.a.has_value());
  add("b", g.b.has_value());
  add("block", g.block.has_value());
  add("blocks", g.blocks.has_value());
  add("acc", g.acc.has_value());
  add("scale", g.scale.has_value());
  add("round", g.round.has_value());
  add("sat", g.sat.has_value());
  add("tininess", g.tininess.has_value());
  add("dialect", g.dialect.has_value());
  add("rbits", g.rbits.has_value());
  add("accumulator", g.accumulator.has_value());
  add("addend", g.addend.has_value());
  add("model", g.model.has_value());
  add("scale_format", g.scale_format.has_value());
  add("scale_block", g.scale_block.has_value());
  return r;
}

/// The keywords gen(op) takes besides the common ones: the library's list, the CLI's too
/// (vec::gen_operation_options), in Python's spelling ("from" as src, '-' as '_').
std::vector<std::string> own_options(Operation op) {
  std::vector<std::string> r;
  for (std::string_view o : vec::gen_operation_options(op)) {
    std::string k = o == "from" ? std::string("src") : std::string(o);
    std::replace(k.begin(), k.end(), '-', '_');
    r.push_back(std::move(k));
  }
  return r;
}

/// The header `softmx gen OPERATION` builds from the same options (cmd_gen.cpp make_header).
Header gen_header(Operation op, const GenArgs& g) {
  const auto own = own_options(op);
  for (const std::string& n : given_options(g)) {
    if (std::find(own.begin(), own.end(), n) != own.end()) continue;
    std::string list;
    for (const std::string& o : own) list += (list.empty() ? "" : ", ") + o;
    throw py::value_error(n + " does not apply to gen('" + std::string(vec::name(op)) + "') (it takes " + list +
                          " and the common level, seed, count, inputs_only, export, out)");
  }
  Header h;
  h.operation = op;
  switch (op) {
    case Operation::convert: {
      if (!g.src) throw py::value_error("missing src=FORMAT (the source format) for gen('convert')");
      if (!g.to) throw py::value_error("missing to=FORMAT (the destination format) for gen('convert')");
      h.from = format_spec_arg("src", *g.src);
      h.to = format_spec_arg("to", *g.to);
      set_context(h, conversion(Format(h.to), g.round, g.sat, g.tininess, g.dialect, g.rbits));
      break;
    }
    case Operation::quantize: {
      h.from = g.src ? host_format_arg("src", *g.src) : FormatId::f32;
      h.to = element_arg("to", g.to, "the element format");
      const Conversion c = conversion(std::nullopt, g.round, g.sat, g.tininess, g.dialect, g.rbits);
      const BlockPolicies& bp = c.dialect->block;
      set_context(h, c);
      if (!c.rounding_given) h.ctx.rounding = bp.element_rounding;
      if (!g.sat) h.ctx.saturation = bp.element_saturation;
      h.block = static_cast<std::uint32_t>(count_arg("block", g.block, 32, 4096));
      h.scale = g.scale ? scale_rule_arg(*g.scale) : bp.scale_rule;
      break;
    }
    case Operation::dequantize: {
      h.from = element_arg("src", g.src, "the element format");
      h.to = g.to ? host_format_arg("to", *g.to) : FormatId::f32;
      set_context(h, conversion(Format(h.to), g.round, g.sat, g.tininess, g.dialect, std::nullopt));
      break;
    }
    case Operation::dot: {
      h.from = element_arg("a", g.a, "the A blocks' element format");
      h.to = element_arg("b", g.b, "the B blocks' element format");
      h.block = static_cast<std::uint32_t>(count_arg("block", g.block, 32, 4096));
      h.blocks = static_cast<std::uint32_t>(count_arg("blocks", g.blocks, 1, 1024));
      const std::string acc = g.acc.value_or("exact");
      // ValueError for an unknown model, naming the ones known; an alias written as its model's
      // name, as the CLI does.
      h.accumulation = std::string(accumulation_arg(acc).name());
      // The format of OUT and C, and whether each case has C (the CLI's --to, --addend).
      const std::string to = g.to.value_or("f32");
      if (to != "f32" && to != "f16" && to != "bf16")
        throw py::value_error("to must be 'f32', 'f16' or 'bf16' for gen('dot') (the format of the result and of C), got " +
                              quoted_arg(to));
      h.dot_to = to == "f32" ? FormatId::f32 : to == "f16" ? FormatId::f16 : FormatId::bf16;
      h.dot_addend = g.addend.value_or(false);
      set_context(h, conversion(std::nullopt, g.round, g.sat ? g.sat : Opt("none"), g.tininess, std::nullopt, std::nullopt));
      h.dialect = "ocp";
      break;
    }
    case Operation::mma: {
      h.from = mma_element_arg("a", g.a, "A's element format");
      h.to = mma_element_arg("b", g.b, "B's element format");
      h.model = g.model.value_or("hopper-fp8-mma");
      const TensorCoreModel* model = find_tensor_core_model(h.model);
      if (!model)
        throw py::value_error("unknown tensor-core model " + quoted_arg(h.model) + " for model (expected " +
                              tensor_core_model_names() + ", or an instruction's alias: softmx.tensor_core_instructions())");
      h.model = std::string(model->name());  // an alias written as its model's name
      // The model's K and block scales by default, as the CLI's gen mma (vec::mma_shape_defaults).
      const vec::MmaShapeDefaults d = vec::mma_shape_defaults(*model);
      h.block = static_cast<std::uint32_t>(count_arg("block", g.block, d.block, 4096));
      h.scale_format = d.scale_format;
      if (g.scale_format) {
        if (*g.scale_format == "none") h.scale_format = vec::MmaScaleFormat::none;
        else if (*g.scale_format == "ue8m0") h.scale_format = vec::MmaScaleFormat::ue8m0;
        else if (*g.scale_format == "ue4m3") h.scale_format = vec::MmaScaleFormat::ue4m3;
        else
          throw py::value_error("scale_format must be 'none', 'ue8m0' or 'ue4m3' (the format of the block scales), got " +
                                quoted_arg(*g.scale_format));
      }
      if (h.scale_format == vec::MmaScaleFormat::none) {
        if (g.scale_block)
          throw py::value_error("scale_block applies only to a block-scaled mma (scale_format 'ue8m0' or 'ue4m3')");
        h.scale_block = 0;
      } else {
        const std::uint32_t fallback = d.scale_block ? d.scale_block : 32;
        h.scale_block = static_cast<std::uint32_t>(count_arg("scale_block", g.scale_block, std::min(fallback, h.block), 4096));
        if (h.block % h.scale_block != 0)
          throw py::value_error("scale_block " + std::to_string(h.scale_block) + " must divide block " +
                                std::to_string(h.block) + " (each scale covers scale_block consecutive products)");
      }
      const std::string acc = g.accumulator.value_or("f32");
      if (acc != "f32" && acc != "f16")
        throw py::value_error("accumulator must be 'f32' or 'f16' (the format of C and D), got " + quoted_arg(acc));
      h.accumulator = acc == "f32" ? FormatId::f32 : FormatId::f16;
      h.addend = g.addend.value_or(true);
      break;
    }
  }
  const bool rs = h.ctx.rounding == Rounding::rs;
  if (rs && (op == Operation::dequantize || op == Operation::dot))
    throw py::value_error("round='rs' is not available for gen('" + std::string(vec::name(op)) +
                          "') (its lines carry no random bits)");
  if (!rs && g.rbits) throw py::value_error("rbits applies only with round='rs'");
  h.validate("gen");
  return h;
}

vec::GenOptions gen_options(const GenArgs& g, const Header& h) {
  vec::GenOptions o;
  if (g.level != 1 && g.level != 2) throw py::value_error("level must be 1 or 2, got " + std::to_string(g.level));
  o.level = g.level;
  o.seed = g.seed;
  if (g.count) {
    if (o.level != 2) throw py::value_error("count sets the number of random cases of level=2");
    if (vec::exhaustive(h))
      throw py::value_error("count does not apply: gen " + vec::describe(h) +
                            " is exhaustive at every level (vectors/README.md section 6)");
    o.count = count_arg("count", g.count, 1, kMaxCount);
  }
  return o;
}

py::dict gen(const GenArgs& g, const std::string& path) {
  const auto op = vec::parse_operation(g.operation);
  if (!op)
    throw py::value_error("unknown operation " + quoted_arg(g.operation) +
                          " for operation (expected convert, quantize, dequantize, dot or mma)");
  vec::WriteOptions w;
  w.inputs_only = g.inputs_only;
  if (g.exportf) {
    if (*g.exportf != "readmemh")
      throw py::value_error("unknown export " + quoted_arg(*g.exportf) + " for export (expected 'readmemh' or None)");
    w.readmemh = true;
  }
  const Header h = gen_header(*op, g);
  const vec::GenOptions o = gen_options(g, h);
  std::uint64_t cases = 0;
  {
    py::gil_scoped_release release;
    const vec::Evaluator ev(h);  // checks that the dialect supports the operation, before any output
    std::optional<vec::OutputFile> out;
    open_output(out, path);
    cases = vec::write_vectors(ev, o, w, *out);
    out->commit();
  }
  py::dict r;
  r["cases"] = cases;
  r["header"] = vec::header_text(h);
  r["description"] = vec::describe(h);
  return r;
}

// ---- reading results: verify, identify ----

py::object optional_int(bool has, std::uint64_t v) { return has ? py::object(py::int_(v)) : py::object(py::none()); }

py::object finding_dict(const std::optional<vec::CaseFinding>& f) {
  if (!f) return py::none();
  py::dict d;
  d["line"] = f->line;
  d["case"] = f->case_number;
  d["other_line"] = f->other_line;
  d["other_case"] = f->other_case;
  d["operands"] = f->operands;
  return d;
}

py::dict completeness_dict(const vec::Completeness& c, const vec::LineLayout& l) {
  using namespace pybind11::literals;
  return py::dict(
      "status"_a = std::string(vec::name(c.status())), "complete"_a = c.complete(), "proven"_a = c.proven(),
      "header_differs"_a = c.header_differs, "checked"_a = c.checked(), "basis"_a = std::string(vec::name(c.basis)),
      "source"_a = c.source, "expected"_a = c.expected ? py::object(py::int_(*c.expected)) : py::object(py::none()),
      "present"_a = c.present, "located"_a = c.located, "missing"_a = c.missing, "extra"_a = c.extra,
      "duplicated"_a = c.duplicated, "out_of_order"_a = c.out_of_order,
      "first_missing"_a = finding_dict(c.first_missing), "first_extra"_a = finding_dict(c.first_extra),
      "first_duplicated"_a = finding_dict(c.first_duplicated), "first_out_of_order"_a = finding_dict(c.first_out_of_order),
      "sha256"_a = c.sha256, "expected_sha256"_a = c.expected_sha256, "notes"_a = c.notes,
      "text"_a = vec::completeness_text(c, l));
}

/// One mismatch of verify or identify (the library's VerifyMismatch) as a dict.
py::dict mismatch_dict(const vec::VerifyMismatch& m) {
  py::dict d;
  if (m.range) {
    d["first"] = m.first;
    d["last"] = m.last;
    d["count"] = m.last - m.first + 1;
  } else {
    d["line"] = m.line;
    d["where"] = m.where;
    d["operands"] = m.operands;
  }
  d["device"] = m.got;
  d["expected"] = m.want;
  d["device_flags"] = optional_int(m.has_flags, m.got_flags);
  d["expected_flags"] = static_cast<unsigned>(m.want_flags);
  d["result_differs"] = m.result_differs;
  d["report"] = m.report;
  return d;
}

py::dict verify(const std::string& path, const std::optional<std::string>& text, std::uint64_t max_errors, long threads_in,
                const py::object& progress, bool accept_unproven, std::optional<std::uint64_t> expect_cases, const Opt& model,
                const Opt& acc, const Opt& dialect, const Opt& round, const Opt& sat, const Opt& tininess, const Opt& scale) {
  vec::VerifyOptions o;
  o.max_errors = max_errors;
  o.threads = threads_in > 0 ? static_cast<unsigned>(threads_in) : vec::default_threads();
  o.progress = progress_fn(progress);
  o.accept_unproven = accept_unproven;
  o.expect_cases = expect_cases;
  o.overrides.model = model;
  o.overrides.accumulation = acc;
  o.overrides.dialect = dialect;
  o.overrides.rounding = round;
  o.overrides.saturation = sat;
  o.overrides.tininess = tininess;
  o.overrides.scale = scale;
  vec::VerifyResult v;
  vec::LineLayout layout;
  {
    py::gil_scoped_release release;
    auto reader = open_reader(path, text);
    layout = reader->layout();
    v = vec::verify_file(*reader, o);
  }
  using namespace pybind11::literals;
  // "file" is the caller's own path (the Python layer sets it: a name may not be UTF-8).
  py::dict d("operation"_a = v.description, "layout"_a = v.runs ? "runs" : "cases", "cases"_a = v.cases,
             "runs"_a = v.run_count, "result_mismatches"_a = v.result_mismatches,
             "flags_only_mismatches"_a = v.flags_only_mismatches, "flags_compared"_a = v.flags_compared,
             "ranges"_a = v.ranges, "completeness"_a = completeness_dict(v.completeness, layout),
             "status"_a = std::string(vec::name(v.status)), "accepted_unproven"_a = v.accepted_unproven,
             "exit_status"_a = v.exit_status(), "overrides"_a = v.overrides, "notes"_a = v.notes_text(),
             "summary"_a = v.summary_text(), "json"_a = v.json());
  py::list l;
  for (const vec::VerifyMismatch& m : v.mismatches) l.append(mismatch_dict(m));
  d["mismatches"] = l;
  return d;
}

py::dict header_dict(const Header& h) {
  py::dict d;
  d["operation"] = std::string(vec::name(h.operation));
  d["dialect"] = h.dialect;
  d["rounding"] = std::string(name(h.ctx.rounding));
  d["saturation"] = std::string(name(h.ctx.saturation));
  d["tininess"] = std::string(name(h.ctx.tininess));
  d["scale"] = std::string(name(h.scale));
  d["accumulation"] = h.accumulation;
  d["description"] = vec::describe(h);
  return d;
}

py::dict identify(const std::string& path, const std::optional<std::string>& text, std::uint64_t exact,
                  std::uint64_t max_errors, long threads_in, const py::object& progress) {
  vec::IdentifyOptions o;
  o.exact_groups = static_cast<std::size_t>(count_arg("exact", exact, 3, 100000));
  o.max_errors = static_cast<std::size_t>(max_errors);
  o.threads = threads_in > 0 ? static_cast<unsigned>(threads_in) : vec::default_threads();
  o.progress = false;
  o.on_progress = progress_fn(progress);
  std::optional<vec::Identification> idopt;
  {
    py::gil_scoped_release release;
    idopt.emplace(vec::identify([&]() { return open_reader(path, text); }, o));
  }
  const vec::Identification& id = *idopt;
  const Header& h = id.header;
  py::dict d;  // "file": the caller's own path (the Python layer sets it: a name may not be UTF-8)
  d["header"] = header_dict(h);
  d["runs"] = id.runs;
  d["lines"] = id.lines;
  d["with_flags"] = id.with_flags;
  d["completeness"] = completeness_dict(id.completeness, id.layout);
  d["agrees"] = id.agrees();
  d["identified"] = id.identified();
  d["all_exact"] = id.all_exact();
  py::list ranking;
  for (std::size_t k = 0; k < id.ranking.size(); ++k) {
    const std::size_t i = id.ranking[k];
    const vec::Candidate& c = id.candidates[i];
    const vec::CandidateScore& s = id.scores[i];
    py::dict e = header_dict(c.header);
    e["key"] = c.key;
    e["agree"] = s.agree;
    e["total"] = s.total;
    e["exact"] = s.exact;
    e["percent"] = vec::percent(s.agree, s.total);
    e["exact_disagree"] = s.exact_disagree;
    e["ranges"] = s.ranges;
    e["differences"] = vec::differences(h, c.header);
    e["distance"] = vec::setting_distance(h, c.header);
    py::list dis;
    for (const vec::Disagreement& x : s.cases) {
      vec::VerifyMismatch r;
      r.where = x.where;
      r.line = x.line;
      r.operands = x.rec.operands;
      r.got = x.rec.results;
      r.want = x.want;
      r.has_flags = x.rec.has_flags;
      r.got_flags = x.rec.flags;
      r.want_flags = x.want_flags;
      r.result_differs = x.rec.results != x.want;
      if (k == 0)
        r.report = vec::case_report(x.where, id.layout, x.rec.operands, x.rec.results, x.rec.has_flags, x.rec.flags, x.want,
                                    x.want_flags, &id.candidates);
      dis.append(mismatch_dict(r));
    }
    for (const vec::RangeMismatch& m : s.runs) {
      vec::VerifyMismatch r = vec::range_mismatch(m);
      if (k == 0) r.report = vec::range_report(id.layout, m, &id.candidates);
      dis.append(mismatch_dict(r));
    }
    e["disagreements"] = dis;
    ranking.append(e);
  }
  d["ranking"] = ranking;
  // The CLI's table: consecutive candidates with the same score, as one group's text.
  py::list groups;
  for (std::size_t i = 0; i < id.ranking.size();) {
    const vec::CandidateScore& s0 = id.scores[id.ranking[i]];
    std::vector<std::size_t> same;
    while (i < id.ranking.size() && id.scores[id.ranking[i]].exact == s0.exact &&
           id.scores[id.ranking[i]].agree == s0.agree && id.scores[id.ranking[i]].total == s0.total)
      same.push_back(id.ranking[i++]);
    py::dict g;
    g["agree"] = s0.agree;
    g["total"] = s0.total;
    g["exact"] = s0.exact;
    g["percent"] = vec::percent(s0.agree, s0.total);
    g["settings"] = vec::group_text(id.candidates, same);
    g["size"] = same.size();
    groups.append(g);
  }
  d["groups"] = groups;
  const Header& bh = id.candidates[id.best()].header;
  py::list pol;
  if (bh.dialect != h.dialect)
    for (const std::string& p : vec::policy_differences(h.dialect_ref(), bh.dialect_ref(), h)) pol.append(p);
  d["policy_differences"] = pol;
  return d;
}
}  // namespace

void bind_vectors(py::module_& m) {
  // An output that cannot be written (a read-only file, a missing folder, a full disk) is an
  // OSError naming the path, as the CLI's message does.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const vec::OutputError& e) {
      py::object err = py::module_::import("builtins").attr("OSError")(e.error_number(), safe_message(e.what()),
                                                                       py::module_::import("os").attr("fsdecode")(py::bytes(e.path())));
      PyErr_SetObject(PyExc_OSError, err.ptr());
    } catch (const std::invalid_argument& e) {
      // InputError and every other bad input: ValueError with the CLI's message, made valid
      // UTF-8 (pybind11's own translation gives an empty message for bytes that are not).
      PyErr_SetString(PyExc_ValueError, safe_message(e.what()).c_str());
    }
  });
  m.def(
      "gen",
      [](const std::string& operation, const std::string& path, const Opt& src, const Opt& to, const Opt& a, const Opt& b,
         std::optional<std::uint64_t> block, std::optional<std::uint64_t> blocks, const Opt& acc, const Opt& scale,
         const Opt& round, const Opt& sat, const Opt& tininess, const Opt& dialect, std::optional<unsigned> rbits,
         int level, std::uint64_t seed, std::optional<std::uint64_t> count, bool inputs_only, const Opt& exportf,
         const Opt& accumulator, std::optional<bool> addend, const Opt& model, const Opt& scale_format,
         std::optional<std::uint64_t> scale_block) {
        GenArgs g;
        g.operation = operation;
        g.src = src, g.to = to, g.a = a, g.b = b, g.block = block, g.blocks = blocks, g.acc = acc, g.scale = scale;
        g.round = round, g.sat = sat, g.tininess = tininess, g.dialect = dialect, g.rbits = rbits;
        g.level = level, g.seed = seed, g.count = count, g.inputs_only = inputs_only, g.exportf = exportf;
        g.accumulator = accumulator, g.addend = addend, g.model = model;
        g.scale_format = scale_format, g.scale_block = scale_block;
        return gen(g, path);
      },
      py::arg("operation"), py::arg("path"), py::arg("src"), py::arg("to"), py::arg("a"), py::arg("b"), py::arg("block"),
      py::arg("blocks"), py::arg("acc"), py::arg("scale"), py::arg("round"), py::arg("sat"), py::arg("tininess"),
      py::arg("dialect"), py::arg("rbits"), py::arg("level"), py::arg("seed"), py::arg("count"), py::arg("inputs_only"),
      py::arg("export"), py::arg("accumulator"), py::arg("addend"), py::arg("model"), py::arg("scale_format"),
      py::arg("scale_block"));
  m.def("verify", &verify, py::arg("path"), py::arg("text"), py::arg("max_errors"), py::arg("threads"),
        py::arg("progress"), py::arg("accept_unproven"), py::arg("expect_cases"), py::arg("model"), py::arg("acc"),
        py::arg("dialect"), py::arg("round"), py::arg("sat"), py::arg("tininess"), py::arg("scale"));
  m.def("identify", &identify, py::arg("path"), py::arg("text"), py::arg("exact"), py::arg("max_errors"),
        py::arg("threads"), py::arg("progress"));
  bind_sweep(m);
}

}  // namespace softmx::py_binding
