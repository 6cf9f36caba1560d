// emulator/vectors/candidates.cpp: see candidates.hpp.
#include "softmx/vectors/candidates.hpp"

#include <algorithm>
#include <map>

#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "softmx/block.hpp"
#include "softmx/dot.hpp"
#include "softmx/tensor_core.hpp"

namespace softmx::vec {
namespace {

std::string key_of(const Header& c, const Header& h, bool vary_tininess) {
  std::string k(name(c.ctx.rounding));
  k += ' ';
  k += name(c.ctx.saturation);
  if (c.operation == Operation::quantize) k.append(" scale=").append(softmx::name(c.scale));
  if (c.operation == Operation::dot) k.append(" acc=").append(c.accumulation);
  if (vary_tininess || c.ctx.tininess != h.ctx.tininess) k.append(" tininess=").append(name(c.ctx.tininess));
  return k;
}

/// "tininess after", "tininess after or after-bounded", "either tininess" (both of two tried),
/// "any tininess" (every one tried).
std::string tininess_text(const std::vector<std::string>& tins, std::size_t tried) {
  if (tins.size() == tried && tried > 1) return tried == 2 ? "either tininess" : "any tininess";
  std::string t = "tininess ";
  for (std::size_t i = 0; i < tins.size(); ++i) t += (i == 0 ? "" : i + 1 == tins.size() ? " or " : ", ") + tins[i];
  return t;
}

bool same_settings(const Header& a, const Header& b) {
  return a.dialect == b.dialect && a.ctx.rounding == b.ctx.rounding && a.ctx.saturation == b.ctx.saturation &&
         a.ctx.tininess == b.ctx.tininess && a.scale == b.scale && a.accumulation == b.accumulation;
}

}  // namespace

std::vector<Candidate> make_candidates(const Header& h, bool vary_tininess) {
  if (h.operation == Operation::mma) {
    // The settings are the tensor-core model: the header's first, then the other named ones.
    std::vector<Candidate> out;
    std::vector<std::string> names{h.model};
    for (const TensorCoreModel* m : tensor_core_models())
      if (m->name() != h.model) names.emplace_back(m->name());
    for (const std::string& m : names) {
      Header c = h;
      c.model = m;
      std::unique_ptr<Evaluator> e;
      try {
        e = std::make_unique<Evaluator>(c);
      } catch (const InputError&) {
        if (m == h.model) throw;
        continue;  // a model that cannot compute this shape (GST: e2m1 only; UE4M3 scales: GST only)
      }
      out.push_back(Candidate{std::move(c), std::move(e), "model=" + m});
    }
    return out;
  }
  std::vector<Header> hs;
  hs.push_back(h);
  std::vector<std::string> dialects;
  if (h.operation == Operation::dot) dialects.push_back(h.dialect);
  else
    for (const Dialect& d : all_dialects()) dialects.emplace_back(d.name);
  std::vector<Rounding> roundings(std::begin(kDeterministicRoundings), std::end(kDeterministicRoundings));
  if (h.ctx.rounding == Rounding::rs) roundings.push_back(Rounding::rs);
  std::vector<ScaleRule> rules{h.scale};
  if (h.operation == Operation::quantize) rules.assign(std::begin(kScaleRules), std::end(kScaleRules));
  std::vector<std::string> models{h.accumulation};
  // A dot unit's accumulation: IEEE's exact and the f32 chain, and MXDOTP's (exact but for its
  // accumulator bypass and +0 zero sums: docs/BLOCKS.md 5.2), which a unit may well follow. The
  // tensor-core models are named by the file's header or --model (softmx models).
  if (h.operation == Operation::dot) models = {"exact", "fp32-sequential", "mxdotp"};
  // The header's tininess first, then the others in enum order: after, before, after-bounded
  // (only flags can tell them apart; FPnew before openhwgroup/cvfpu PR 168 is after-bounded).
  std::vector<Tininess> tin{h.ctx.tininess};
  if (vary_tininess)
    for (Tininess t : kTininessRules)
      if (t != h.ctx.tininess) tin.push_back(t);
  for (const auto& d : dialects)
    for (Rounding r : roundings)
      for (Saturation s : {Saturation::finite, Saturation::none})
        for (ScaleRule rule : rules)
          for (const auto& m : models)
            for (Tininess t : tin) {
              Header c = h;
              c.dialect = d;
              c.ctx.rounding = r;
              c.ctx.saturation = s;
              c.ctx.tininess = t;
              c.scale = rule;
              c.accumulation = m;
              if (same_settings(c, h)) continue;
              hs.push_back(std::move(c));
            }
  std::vector<Candidate> out;
  out.reserve(hs.size());
  for (auto& c : hs) {
    try {
      auto e = std::make_unique<Evaluator>(c);
      std::string k = key_of(c, h, vary_tininess);
      out.push_back(Candidate{std::move(c), std::move(e), std::move(k)});
    } catch (const InputError&) {
      // The dialect does not support these settings: not a candidate.
    }
  }
  return out;
}

std::string differences(const Header& h, const Header& c) {
  std::string s;
  auto add = [&](const char* what, std::string_view now, std::string_view was) {
    if (now == was) return;
    if (!s.empty()) s += "; ";
    s.append(what).append(" ").append(now).append(" instead of ").append(was);
  };
  if (h.operation == Operation::mma) {
    add("model", c.model, h.model);
    return s;
  }
  add("rounding", name(c.ctx.rounding), name(h.ctx.rounding));
  add("saturation", name(c.ctx.saturation), name(h.ctx.saturation));
  if (h.operation != Operation::dot) add("dialect", c.dialect, h.dialect);
  if (h.operation == Operation::quantize) add("scale", softmx::name(c.scale), softmx::name(h.scale));
  if (h.operation == Operation::dot) add("accumulation", c.accumulation, h.accumulation);
  add("tininess", name(c.ctx.tininess), name(h.ctx.tininess));
  return s;
}

std::vector<std::string> policy_differences(const Dialect& a, const Dialect& b, const Header& h) {
  std::vector<std::string> out;
  auto add = [&](const char* what, std::string_view vb, std::string_view va) {
    if (vb != va) out.push_back(std::string(what) + " " + std::string(vb) + " (" + std::string(a.name) + ": " + std::string(va) + ")");
  };
  const FormatId dst = h.to;  // FormatId::runtime for a runtime destination (convert)
  const bool to_e8m0 = h.operation == Operation::convert && h.to == FormatId::e8m0;
  const Format& df = h.to;
  add("nan_sign", name(b.nan_sign), name(a.nan_sign));
  if (df.specials == Specials::ieee) {
    add("nan_payload", name(nan_payload_for(b, df)), name(nan_payload_for(a, df)));
    // A conversion path with its own NaN rule (ml_dtypes-cpp's half <-> e5m2, PyTorch's e8m0 ->
    // f32): between named formats only.
    const Format& sf = h.from;
    if (h.operation == Operation::convert && sf.is_named() && df.is_named()) {
      const std::string path = "nan_payload_paths " + std::string(sf.name) + "->" + std::string(df.name);
      add(path.c_str(), name(nan_payload_for_path(b, sf.id, dst)), name(nan_payload_for_path(a, sf.id, dst)));
    }
  }
  // What saturation finite does to an Inf input (ml_dtypes' kSaturate keeps Inf).
  add("satfinite_inf", name(b.satfinite_inf), name(a.satfinite_inf));
  if (df.specials == Specials::none && !to_e8m0) add("nan_to_finite", name(b.nan_to_finite), name(a.nan_to_finite));
  if (nan_canonical_ones_for(a, h.from) != nan_canonical_ones_for(b, h.from))
    out.push_back("nan_canonical_ones for " + std::string(format(h.from).name) + " " +
                  std::to_string(nan_canonical_ones_for(b, h.from)) + " (" + std::string(a.name) + ": " +
                  std::to_string(nan_canonical_ones_for(a, h.from)) + ")");
  if (!to_e8m0) {
    add("nearest_ties", name(b.nearest_ties), name(a.nearest_ties));
    add("zero_sign", name(b.zero_sign), name(a.zero_sign));
  }
  if (to_e8m0) {
    add("e8m0_below", name(b.e8m0_below), name(a.e8m0_below));
    add("e8m0_zero", name(b.e8m0_zero), name(a.e8m0_zero));
    add("e8m0_negative", name(b.e8m0_negative), name(a.e8m0_negative));
    add("e8m0_ties", name(b.e8m0_ties), name(a.e8m0_ties));
    add("e8m0_lowest_binade_rounds_up", b.e8m0_lowest_binade_rounds_up ? "yes" : "no",
        a.e8m0_lowest_binade_rounds_up ? "yes" : "no");
  }
  if (dst == FormatId::int8 || (h.operation == Operation::quantize && h.to == FormatId::int8))
    add("int8_minus2", b.int8_minus2 ? "yes" : "no", a.int8_minus2 ? "yes" : "no");
  if (h.operation == Operation::quantize) {
    const BlockPolicies &pa = a.block, &pb = b.block;
    add("zero_block_scale", name(pb.zero_block_scale), name(pa.zero_block_scale));
    add("nan_block", name(pb.nan_block), name(pa.nan_block));
    add("inf_block", name(pb.inf_block), name(pa.inf_block));
    add("nan_scale_elements", name(pb.nan_scale_elements), name(pa.nan_scale_elements));
    add("scale_overflow", name(pb.scale_overflow), name(pa.scale_overflow));
    add("element_scaling", name(pb.element_scaling), name(pa.element_scaling));
    add("rceil_f32_reciprocal", pb.rceil_f32_reciprocal ? "yes" : "no", pa.rceil_f32_reciprocal ? "yes" : "no");
    add("even_f32_overflow_nan", pb.even_f32_overflow_nan ? "yes" : "no", pa.even_f32_overflow_nan ? "yes" : "no");
    add("zero_sign", name(pb.zero_sign), name(pa.zero_sign));
    if (h.to == FormatId::int8)
      add("int8_integer_elements", pb.int8_integer_elements ? "yes" : "no", pa.int8_integer_elements ? "yes" : "no");
  }
  if (h.operation == Operation::dequantize) add("dequant_scaling", name(b.block.dequant_scaling), name(a.block.dequant_scaling));
  return out;
}

std::string group_text(const std::vector<Candidate>& all, const std::vector<std::size_t>& chosen) {
  // Group by what matters most (rounding, scale rule, model), then say which saturations,
  // tininess values and dialects give the result; a full cross product is said compactly.
  struct Group {
    std::string head;
    std::vector<std::pair<std::string, std::vector<std::string>>> cells;  // "finite after" -> dialects
    std::vector<std::string> sats, tins;
  };
  auto add_unique = [](std::vector<std::string>& v, const std::string& x) {
    if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
  };
  if (!all.empty() && all[0].header.operation == Operation::mma) {
    std::string t;
    for (std::size_t i : chosen) t += (t.empty() ? "" : "; ") + all[i].key;
    return t;
  }
  const bool dot = !all.empty() && all[0].header.operation == Operation::dot;
  const bool tin_varies = std::any_of(all.begin(), all.end(), [&](const Candidate& c) {
    return c.header.ctx.tininess != all[0].header.ctx.tininess;
  });
  // How many tininess rules the candidates try: all of them read "any tininess".
  std::vector<Tininess> tried;
  for (const Candidate& c : all)
    if (std::find(tried.begin(), tried.end(), c.header.ctx.tininess) == tried.end()) tried.push_back(c.header.ctx.tininess);
  const std::size_t tin_count = tried.size();
  std::vector<Group> groups;
  for (std::size_t i : chosen) {
    const Header& c = all[i].header;
    std::string head(name(c.ctx.rounding));
    if (c.operation == Operation::quantize) head.append(" scale=").append(softmx::name(c.scale));
    if (c.operation == Operation::dot) head.append(" acc=").append(c.accumulation);
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.head == head; });
    if (g == groups.end()) groups.push_back(Group{head, {}, {}, {}}), g = groups.end() - 1;
    const std::string sat(name(c.ctx.saturation)), tin(name(c.ctx.tininess));
    add_unique(g->sats, sat);
    add_unique(g->tins, tin);
    const std::string cell = sat + " " + tin;
    auto cl = std::find_if(g->cells.begin(), g->cells.end(), [&](const auto& x) { return x.first == cell; });
    if (cl == g->cells.end()) g->cells.push_back({cell, {}}), cl = g->cells.end() - 1;
    cl->second.push_back(c.dialect);
  }
  // The dialects that support the given settings at all (for "any dialect").
  auto supporting = [&](const Header& like) {
    std::vector<std::string> d;
    for (const Candidate& c : all)
      if (c.header.ctx.rounding == like.ctx.rounding && c.header.ctx.saturation == like.ctx.saturation &&
          c.header.scale == like.scale && c.header.accumulation == like.accumulation)
        add_unique(d, c.header.dialect);
    return d;
  };
  // "" for every dialect that supports the settings, else "ocp, cuda".
  auto dialect_text = [&](const std::vector<std::string>& ds, const std::vector<std::string>& sup) {
    if (dot || (ds.size() == sup.size() && sup.size() > 1)) return std::string();
    std::string t;
    for (std::size_t j = 0; j < ds.size(); ++j) t += (j ? ", " : "") + ds[j];
    return t;
  };
  auto join = [](const std::string& head, std::vector<std::string> quals) {
    quals.erase(std::remove(quals.begin(), quals.end(), std::string()), quals.end());
    std::string t = head;
    for (std::size_t j = 0; j < quals.size(); ++j) t += (j ? ", " : " (") + quals[j];
    return quals.empty() ? t : t + ")";
  };
  std::string s;
  for (const Group& g : groups) {
    if (!s.empty()) s += "; ";
    const Header* rep = nullptr;  // a header of the group, to ask which dialects support it
    for (std::size_t i : chosen) {
      std::string head(name(all[i].header.ctx.rounding));
      if (all[i].header.operation == Operation::quantize) head.append(" scale=").append(softmx::name(all[i].header.scale));
      if (all[i].header.operation == Operation::dot) head.append(" acc=").append(all[i].header.accumulation);
      if (head == g.head) rep = &all[i].header;
    }
    std::vector<std::string> texts;
    for (const auto& [cell, ds] : g.cells) {
      Header like = *rep;
      like.ctx.saturation = cell.substr(0, cell.find(' ')) == "finite" ? Saturation::finite : Saturation::none;
      texts.push_back(dialect_text(ds, supporting(like)));
    }
    const bool product = g.cells.size() == g.sats.size() * g.tins.size() &&
                         std::all_of(texts.begin(), texts.end(), [&](const std::string& t) { return t == texts[0]; });
    if (product) {
      s += join(g.head, {g.sats.size() == 2 ? "either saturation" : g.sats[0],
                         !tin_varies ? "" : tininess_text(g.tins, tin_count),
                         texts[0].empty() && !dot ? "any dialect" : texts[0]});
    } else {
      // Per saturation, the tininess rules that give the result with the same dialects said
      // together: "rne (finite, any tininess, pychop); rne (none, any tininess, fpnew)".
      bool first = true;
      for (const std::string& sat : g.sats) {
        std::vector<std::pair<std::string, std::vector<std::string>>> by_text;  // dialects -> tininess rules
        for (std::size_t j = 0; j < g.cells.size(); ++j) {
          const std::string& cell = g.cells[j].first;
          if (cell.substr(0, cell.find(' ')) != sat) continue;
          auto bt = std::find_if(by_text.begin(), by_text.end(), [&](const auto& x) { return x.first == texts[j]; });
          if (bt == by_text.end()) by_text.push_back({texts[j], {}}), bt = by_text.end() - 1;
          bt->second.push_back(cell.substr(cell.find(' ') + 1));
        }
        for (const auto& [text, tins] : by_text) {
          if (!first) s += "; ";
          first = false;
          s += join(g.head, {sat, tin_varies ? tininess_text(tins, tin_count) : "",
                             text.empty() && !dot ? "any dialect" : text});
        }
      }
    }
  }
  return s;
}

}  // namespace softmx::vec
