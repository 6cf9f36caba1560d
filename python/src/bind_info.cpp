// python/src/bind_info.cpp: the tables as data: formats, dialects, accumulation models.
#include <bit>
#include <cmath>
#include <string_view>
#include <utility>

#include "binding.hpp"
#include "softmx/convert.hpp"
#include "softmx/format_catalog.hpp"
#include "softmx/parallel.hpp"
#include "softmx/tensor_core.hpp"
#include "softmx/tensor_core_instructions.hpp"

namespace softmx::py_binding {
namespace {

double value_of(const Format& f, std::uint64_t code) {
  Context c;
  c.saturation = Saturation::none;
  return std::bit_cast<double>(convert(f, format(FormatId::f64), code, c).code);
}

py::dict format_dict(const Format& f, const std::string& spec = "") {
  py::dict d;
  d["name"] = std::string(f.name);
  d["width"] = f.width;
  d["exp_bits"] = f.exp_bits;
  d["man_bits"] = f.man_bits;
  d["bias"] = f.bias;
  d["sign"] = f.sign == SignEncoding::magnitude ? "sign-magnitude"
              : f.sign == SignEncoding::twos_complement ? "twos-complement" : "unsigned";
  d["specials"] = f.specials == Specials::ieee ? "inf-nan"
                  : f.specials == Specials::fn ? "nan-only"
                  : f.specials == Specials::fnuz ? "fnuz"
                  : f.specials == Specials::extended ? "extended" : "none";
  d["subnormals"] = f.subnormals;
  d["has_inf"] = f.has_inf();
  d["has_nan"] = f.has_nan();
  d["emin"] = f.emin();
  d["max_finite_code"] = f.max_finite_magnitude();
  d["max_finite"] = value_of(f, f.max_finite_magnitude());
  // The smallest positive normal and subnormal values (None where the format has none).
  if (f.fixed_point) d["min_normal"] = py::none();
  else d["min_normal"] = std::ldexp(1.0, f.emin());
  if (f.subnormals && f.man_bits > 0 && !f.fixed_point) d["min_subnormal"] = std::ldexp(1.0, f.emin() - f.man_bits);
  else if (f.fixed_point) d["min_subnormal"] = value_of(f, 1);
  else d["min_subnormal"] = py::none();
  d["storage_bytes"] = storage_bytes(f);
  d["is_element"] = !mx_element_reason(f);  // named MX elements and runtime specs that can be one
  d["is_host"] = is_ieee_host_format(f.id);
  // The catalog's view (format_catalog.hpp): its other names, whether it is listed, the nearest
  // listed format when not, and `softmx formats SPEC`'s text (for the spec as the caller wrote it).
  py::list aliases;
  for (const std::string& a : aliases_of(f)) aliases.append(a);
  d["aliases"] = py::tuple(aliases);
  d["listed"] = is_listed_format(f);
  d["nearest"] = is_listed_format(f) ? py::object(py::none()) : py::object(py::str(format_spec(nearest_listed_format(f))));
  d["description"] = format_description_text(spec.empty() ? format_spec(f) : spec);
  return d;
}

py::dict dialect_dict(const Dialect& d) {
  py::dict r;
  r["name"] = std::string(d.name);
  r["summary"] = std::string(d.summary);
  r["sources"] = std::string(d.sources);
  const BlockPolicies& b = d.block;
  r["blocks"] = b.unsupported.empty();
  r["blocks_unsupported_reason"] = b.unsupported.empty() ? py::object(py::none()) : py::object(py::str(std::string(b.unsupported)));
  // The policies given by their enum names (one table per enum: emulator/dialects.cpp).
  const std::pair<const char*, std::string_view> policy_names[] = {
      {"scale_rule", name(b.scale_rule)},           {"element_rounding", name(b.element_rounding)},
      {"element_saturation", name(b.element_saturation)}, {"zero_block_scale", name(b.zero_block_scale)},
      {"nan_block", name(b.nan_block)},             {"inf_block", name(b.inf_block)},
      {"nan_scale_elements", name(b.nan_scale_elements)}, {"scale_overflow", name(b.scale_overflow)},
      {"element_scaling", name(b.element_scaling)}, {"dequant_scaling", name(b.dequant_scaling)},
      {"nan_sign", name(d.nan_sign)},               {"nan_to_finite", name(d.nan_to_finite)},
  };
  for (const auto& [key, value] : policy_names) r[key] = std::string(value);
  py::dict dest;
  for (const Format& f : all_formats()) {
    const DestinationSupport& s = d.support[static_cast<int>(f.id)];
    py::dict e;
    py::list rs, ss;
    for (int i = 0; i < kRoundingCount; ++i)
      if (s.roundings & (1u << i)) rs.append(std::string(name(static_cast<Rounding>(i))));
    for (Saturation x : {Saturation::finite, Saturation::none, Saturation::propagate})
      if (s.saturations & saturation_bit(x)) ss.append(std::string(name(x)));
    e["roundings"] = rs;
    e["saturations"] = ss;
    e["default_rounding"] = std::string(name(s.default_rounding));
    e["default_saturation"] = std::string(name(s.default_saturation));
    e["why"] = std::string(s.why);
    dest[py::str(std::string(f.name))] = e;
  }
  r["destinations"] = dest;
  return r;
}

}  // namespace

void bind_info(py::module_& m) {
  m.def("formats", [] {
    py::list l;
    for (const Format& f : listed_formats()) l.append(format_dict(f));
    return l;
  });
  // No warning: looking a spec up is how a user finds what it means.
  m.def("format_info", [](const std::string& name) { return format_dict(format_spec_arg("format", name, false), name); },
        py::arg("name"));
  m.def("format_listing", [] { return format_listing_text(); });
  m.def("format_aliases", [] {
    py::dict d;
    for (const FormatAlias& a : format_aliases()) d[py::str(std::string(a.name))] = std::string(a.spec);
    return d;
  });
  m.def("format_spec_forms", [] {
    py::list l;
    for (const FormatSpecForm& g : format_spec_forms())
      l.append(py::make_tuple(std::string(g.form), std::string(g.meaning), std::string(g.examples)));
    return l;
  });
  m.def("dialects", [] {
    py::list l;
    for (const Dialect& d : all_dialects()) l.append(dialect_dict(d));
    return l;
  });
  m.def("dialect_info", [](const std::string& name) { return dialect_dict(dialect_arg(name)); }, py::arg("name"));
  m.def("accumulation_models", [] {
    py::list l;
    for (const AccumulationModel* m : accumulation_models()) l.append(std::string(m->name()));
    return l;
  });
  m.def(
      "tensor_core_instructions",
      [](const std::string& query) {
        py::list l;
        for (const TensorCoreInstruction* r : find_tensor_core_instructions(query)) {
          py::dict d;
          d["arch"] = std::string(r->arch);
          d["gpus"] = std::string(r->gpus);
          d["instruction"] = std::string(r->instruction);
          d["elements"] = std::string(r->elements);
          d["scales"] = std::string(r->scales);
          d["accumulator"] = std::string(r->accumulator);
          d["model"] = std::string(r->model);
          d["alias"] = std::string(r->alias);
          d["confirmed"] = r->confirmed;
          d["evidence"] = std::string(r->evidence);
          l.append(d);
        }
        return l;
      },
      py::arg("query"));
  m.def("tensor_core_instruction_table", [](const std::string& query) {
    return tensor_core_instruction_table(find_tensor_core_instructions(query));
  }, py::arg("query"));
  m.def("check_accumulation", [](const std::string& name) { return std::string(accumulation_arg(name).name()); });
  m.def("scale_rules", [] {
    py::list l;
    for (ScaleRule r : {ScaleRule::floor, ScaleRule::ceil, ScaleRule::even, ScaleRule::rceil}) l.append(std::string(name(r)));
    return l;
  });
  m.def("flags_words", [](unsigned f) { return flags_words(static_cast<Flags>(f)); });
  m.def("default_threads", [] { return worker_count(0); });
}

}  // namespace softmx::py_binding
