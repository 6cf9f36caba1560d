// tools/softmx/cmd_info.cpp: `softmx formats` and `softmx dialects`, the tables as data.
#include <cstdio>
#include <string>

#include "cli.hpp"
#include "options.hpp"
#include "commands.hpp"
#include "softmx/describe.hpp"
#include "softmx/format_catalog.hpp"
#include "softmx/block.hpp"
#include "softmx/convert.hpp"
#include "softmx/tensor_core.hpp"
#include "softmx/tensor_core_instructions.hpp"

namespace softmx::cli {
namespace {

std::string rounding_names(RoundingSet s) {
  if (s == kAllRoundings) return "all";
  std::string r;
  for (int i = 0; i < kRoundingCount; ++i)
    if (s & (1u << i)) {
      if (!r.empty()) r += ',';
      r += name(static_cast<Rounding>(i));
    }
  return r.empty() ? "unsupported" : r;
}

void no_arguments(const Args& a) {
  if (!a.positionals.empty())
    throw UsageError("unexpected argument " + quote(a.positionals[0], '\'') + " (" + a.command + " takes none)");
}

}  // namespace

int cmd_formats(int argc, char** argv) {
  // softmx formats: the listing; softmx formats SPEC: one format. Both are the library's text
  // (format_catalog.hpp), as softmx.formats() and softmx.format_description() are.
  const Args a = parse_command("formats", argc, argv, 2);
  if (a.positionals.size() > 1)
    throw UsageError("unexpected argument " + quote(a.positionals[1], '\'') + " (formats takes at most one SPEC)");
  Output out;
  if (a.positionals.empty()) {
    out.text() = format_listing_text();
  } else {
    try {
      out.text() = format_description_text(a.positionals[0]);
    } catch (const FormatError& e) {
      throw UsageError(std::string(e.what()) + " (softmx formats lists the names and the grammar)");
    }
  }
  out.commit();
  return 0;
}

int cmd_models(int argc, char** argv) {
  // softmx models [QUERY...]: the instruction table (tensor_core_instructions.hpp), the rows
  // holding every word of the query ("B200 mma.sync f32", "H100 wgmma").
  const Args a = parse_command("models", argc, argv, 2);
  std::string query;
  for (const std::string& w : a.positionals) query += w + " ";
  Output out;
  out.text() = tensor_core_instruction_table(find_tensor_core_instructions(query));
  if (query.empty())
    out.text() += "\nEach model name and alias is taken wherever a model is: gen mma --model, dot and gemm-golden --acc,\n"
                  "verify --model, a vector file's model key (docs/TENSOR_CORES.md 3).\n";
  out.commit();
  return 0;
}

int cmd_dialects(int argc, char** argv) {
  no_arguments(parse_command("dialects", argc, argv, 2));
  Output out;
  for (const Dialect& d : all_dialects()) {
    out.printf("%s: %s\n", std::string(d.name).c_str(), std::string(d.summary).c_str());
    out.printf("  sources        %s\n", std::string(d.sources).c_str());
    out.printf("  nan_sign %s, nan_to_finite %s, e8m0_below %s, e8m0_zero %s, e8m0_negative %s, e8m0_ties %s,\n"
                "  e8m0_lowest_binade_rounds_up %s, int8_minus2 %s, nearest_ties %s, zero_sign %s\n",
                std::string(name(d.nan_sign)).c_str(), std::string(name(d.nan_to_finite)).c_str(),
                std::string(name(d.e8m0_below)).c_str(), std::string(name(d.e8m0_zero)).c_str(),
                std::string(name(d.e8m0_negative)).c_str(), std::string(name(d.e8m0_ties)).c_str(),
                d.e8m0_lowest_binade_rounds_up ? "yes" : "no", d.int8_minus2 ? "yes" : "no",
                std::string(name(d.nearest_ties)).c_str(), std::string(name(d.zero_sign)).c_str());
    std::string payload, canon;
    for (const Format& f : all_formats()) {
      const int i = static_cast<int>(f.id);
      if (f.specials == Specials::ieee) payload.append(" ").append(f.name).append("=").append(name(d.nan_payload[i]));
      if (d.nan_canonical_ones[i])
        canon.append(" ").append(f.name).append("=").append(std::to_string(d.nan_canonical_ones[i]));
    }
    out.printf("  nan_payload   %s\n", payload.c_str());
    std::string paths;
    for (int i = 0; i < d.nan_payload_path_count && i < kMaxNanPayloadPaths; ++i)
      paths.append(" ")
          .append(format(d.nan_payload_paths[i].src).name)
          .append("->")
          .append(format(d.nan_payload_paths[i].dst).name)
          .append("=")
          .append(name(d.nan_payload_paths[i].payload));
    out.printf("  nan_payload_paths %s\n", paths.empty() ? " none" : paths.c_str());
    out.printf("  satfinite_inf %s\n", std::string(name(d.satfinite_inf)).c_str());
    out.printf("  nan_canonical_ones %s\n", canon.empty() ? " none" : canon.c_str());
    // What --sat (and the library's Context) defaults to, per destination (SEMANTICS 4.1).
    std::string sat_none, sat_finite;
    for (const Format& f : all_formats())
      (d.support[static_cast<int>(f.id)].default_saturation == Saturation::none ? sat_none : sat_finite)
          .append(" ")
          .append(f.name);
    out.printf("  saturation default  none:%s; finite:%s\n", sat_none.empty() ? " -" : sat_none.c_str(),
                sat_finite.empty() ? " -" : sat_finite.c_str());
    // Runtime formats (support_for): those with Inf apart, as SEMANTICS 4.1 says.
    if (d.runtime.refused.empty()) {
      const Format with_inf = parse_format_spec("e3m4"), without = parse_format_spec("e4m3fnuz");
      std::string line;
      if (d.runtime.specials & specials_bit(Specials::ieee))
        line += " with Inf (e3m4): " + std::string(name(support_for(d, with_inf).default_saturation)) + ";";
      line += " other: " + std::string(name(support_for(d, without).default_saturation));
      out.printf("  runtime formats saturation default %s\n", line.c_str());
    }
    const BlockPolicies& b = d.block;
    if (!b.unsupported.empty()) {
      out.printf("  blocks        %s\n", std::string(b.unsupported).c_str());
    } else {
      out.printf("  blocks        scale %s%s%s, zero block %s, NaN %s, Inf %s, NaN-scale elements %s, "
                  "exponent > 127 %s,\n                V/X %s, dequantize %s, elements %s %s\n",
                  std::string(name(b.scale_rule)).c_str(), b.rceil_f32_reciprocal ? " (rceil in f32)" : "",
                  b.even_f32_overflow_nan ? " (even overflows to NaN)" : "", std::string(name(b.zero_block_scale)).c_str(),
                  std::string(name(b.nan_block)).c_str(), std::string(name(b.inf_block)).c_str(),
                  std::string(name(b.nan_scale_elements)).c_str(), std::string(name(b.scale_overflow)).c_str(),
                  std::string(name(b.element_scaling)).c_str(), std::string(name(b.dequant_scaling)).c_str(),
                  std::string(name(b.element_rounding)).c_str(), std::string(name(b.element_saturation)).c_str());
      // Only where a dialect departs from ocp (torchmx, pychop), so the other lines stay as they were.
      if (b.zero_sign != ZeroSign::keep || b.int8_integer_elements || b.sources != kHostFormats) {
        std::string src;
        for (const Format& f : all_formats())
          if (b.sources & format_bit(f.id)) src.append(src.empty() ? "" : " ").append(f.name);
        out.printf("                zero elements %s, MXINT8 %s, sources %s\n", std::string(name(b.zero_sign)).c_str(),
                   b.int8_integer_elements ? "integers (scale code OCP's - 6)" : "1.6 fixed point", src.c_str());
      }
    }
    for (const Format& f : all_formats()) {
      const DestinationSupport& s = d.support[static_cast<int>(f.id)];
      if (s.roundings == kAllRoundings && s.saturations == kAllSaturations) continue;
      std::string why;
      if (!s.why.empty()) why.append("  (").append(s.why).append(")");
      out.printf("  to %-5s      rounding %s (default %s, saturation default %s)%s\n", std::string(f.name).c_str(),
                  rounding_names(s.roundings).c_str(), std::string(name(s.default_rounding)).c_str(),
                  std::string(name(s.default_saturation)).c_str(), why.c_str());
    }
    out.printf("\n");
  }
  // The tensor-core models (mma vector files' `model`, --acc of dot and gemm-golden;
  // docs/TENSOR_CORES.md).
  out.printf("tensor-core models:\n");
  for (const TensorCoreModel* m : tensor_core_models()) {
    const TensorCoreParams& p = m->params();
    const char* scales = p.scale_application == ScaleApplication::per_group     ? "per group of 16 (GST-FDPA), UE8M0/UE4M3"
                         : p.scale_application == ScaleApplication::per_product ? "per product (ST-FDPA), UE8M0"
                                                                                : "none";
    out.printf("%s: L = %d, F = %d, f32 out %d bits %s, zero exponent %s, block scales %s, %s\n",
               std::string(m->name()).c_str(), p.group_size, p.alignment_bits, p.f32.fraction_bits,
               std::string(name(p.f32.mode)).c_str(),
               p.zero_exponent ? std::to_string(*p.zero_exponent).c_str() : "none", scales,
               p.confirmed ? "confirmed by published captures" : "UNCONFIRMED (no capture yet)");
  }
  out.commit();
  return 0;
}

}  // namespace softmx::cli
