// tools/softmx/cmd_gen.cpp: `softmx gen`, test vectors with softmx's results
// (vectors/README.md: the format in sections 2-4, the cases in section 6).
//
//   softmx gen convert --from SRC --to DST [--round M] [--sat S] [--tininess T] [--dialect D] [--rbits R]
//   softmx gen quantize --to ELEM [--from f32] [--block 32] [--scale RULE] [same options]
//   softmx gen dequantize --from ELEM [--to f32] [--round M] [--sat S] [--tininess T] [--dialect D]
//   softmx gen dot --a ELEM --b ELEM [--block 32] [--blocks 1] [--acc MODEL]
//                  [--to f32|f16|bf16] [--addend yes|no] [--round M] [--sat S] [--tininess T]
//   softmx gen mma --a ELEM --b ELEM [--block K] [--accumulator f32|f16] [--addend yes|no]
//                  [--model MODEL] [--scale-format none|ue8m0|ue4m3] [--scale-block S]
//   and for every operation: [--level 1|2] [--seed S] [--count N] [--inputs-only]
//                            [--export readmemh] [-o FILE | --out FILE]
//
// Every option is resolved here to an explicit header (the dialect's defaults included), so a
// file says completely what was computed; the library (softmx/vectors/generate.hpp) chooses the cases.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "options.hpp"
#include "commands.hpp"
#include "softmx/block.hpp"
#include "softmx/dot.hpp"
#include "softmx/tensor_core.hpp"
#include "softmx/vectors/generate.hpp"
#include "softmx/vectors/header.hpp"
#include "softmx/vectors/operation.hpp"
#include "softmx/vectors/output_file.hpp"

namespace softmx::cli {
namespace {

using vec::Header;
using vec::Operation;

/// The largest --count accepted: a level-2 file of this many cases is already gigabytes.
constexpr std::uint64_t kMaxCount = 1'000'000'000;

/// Rejects options that do not apply to `op` (parse_command accepted the union of all of them; the
/// library's gen_operation_options says which are op's, for Python's gen() too).
void check_applicable(const Args& a, Operation op) {
  static constexpr std::string_view kCommon[] = {"level", "seed", "count", "export", "out"};
  const auto& own = vec::gen_operation_options(op);
  for (const auto& [name, value] : a.options) {
    if (std::find(std::begin(kCommon), std::end(kCommon), name) != std::end(kCommon)) continue;
    if (std::find(own.begin(), own.end(), name) != own.end()) continue;
    std::string list;
    for (std::string_view o : own) list += (list.empty() ? "--" : ", --") + std::string(o);
    throw UsageError("--" + name + " does not apply to gen " + std::string(vec::name(op)) + " (it takes " + list +
                     " and the common --level, --seed, --count, --inputs-only, --export, -o)");
  }
}

/// Pulls "-o FILE" out of argv (parse_args reads only "--" options) into `out`.
std::vector<char*> take_short_output(int argc, char** argv, std::optional<std::string>& out) {
  std::vector<char*> rest(argv, argv + 2);
  for (int i = 2; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--") {
      rest.insert(rest.end(), argv + i, argv + argc);
      break;
    }
    if (std::string_view(argv[i]) != "-o") {
      rest.push_back(argv[i]);
      continue;
    }
    if (i + 1 >= argc) throw UsageError("-o needs a file name");
    if (out) throw UsageError("option -o given twice");
    out = argv[++i];
  }
  return rest;
}

/// An MX element option: a named MX element or a runtime spec of at most 8 bits (e1m2, e2m2,
/// e4m3fnuz, int4, e4m3:bias=11:specials=fnuz, ...); mx_element_option names the failing field.
Format element_option(const Args& a, const char* opt, std::string_view role) {
  const auto v = a.get(opt);
  if (!v)
    throw UsageError(std::string("missing --") + opt + " FORMAT (" + std::string(role) +
                     ": e4m3, e5m2, e3m2, e2m3, e2m1, int8 or a runtime spec such as e1m2, e4m3fnuz, int4)");
  return mx_element_option(opt, *v);
}

/// mma's operands: the tensor-core models are the named formats' hardware, none takes a runtime
/// element (the header's validate() refuses it too; here the message names the option).
Format mma_element_option(const Args& a, const char* opt, std::string_view role) {
  const Format f = element_option(a, opt, role);
  if (!f.is_named())
    throw UsageError(std::string("--") + opt + " " + quote(std::string(f.name), '\'') +
                     ": no tensor-core model takes a runtime element format (the models are the named formats' "
                     "hardware: e4m3, e5m2, e3m2, e2m3, e2m1, int8); gen dot --acc exact or fp32-sequential takes it");
  return f;
}

void require_host(FormatId f, const char* opt) {
  if (!is_ieee_host_format(f))
    throw UsageError(std::string("--") + opt + " must be f64, f32, f16 or bf16, not " + std::string(format(f).name));
}

/// The header of a one-value conversion (convert, dequantize): `op` from `from` to co.to, with
/// co's rounding, saturation, tininess, random-bit width and dialect.
Header conversion_header(Operation op, const Format& from, const ConversionOptions& co) {
  Header h;
  h.operation = op;
  h.from = from;
  h.to = co.to;
  set_conversion(h, co.ctx, *co.dialect);
  return h;
}

Header convert_header(const Args& a) {
  const ConversionOptions co = conversion_options(a, true);
  if (!co.from) throw UsageError("missing --from FORMAT (the source format)");
  return conversion_header(Operation::convert, *co.from, co);
}

/// As `softmx quantize`: element rounding, saturation and the scale rule default to the
/// dialect's block policies.
Header quantize_header(const Args& a) {
  Header h;
  h.operation = Operation::quantize;
  h.from = a.get("from") ? parse_named_format_arg("from", *a.get("from")) : FormatId::f32;
  require_host(h.from, "from");
  h.to = element_option(a, "to", "the element format");
  Args common = a;
  common.options.erase("to");  // the dialect's per-destination conversion defaults do not apply
  const ConversionOptions co = conversion_options(common, false);
  const BlockPolicies& bp = co.dialect->block;
  set_conversion(h, co.ctx, *co.dialect);
  if (!co.rounding_given) h.ctx.rounding = bp.element_rounding;
  if (!a.get("sat")) h.ctx.saturation = bp.element_saturation;
  h.block = static_cast<std::uint32_t>(parse_count(a, "block", 32, 4096));
  h.scale = scale_rule_option(a).value_or(bp.scale_rule);
  return h;
}

/// As `softmx dequantize`: --to defaults to f32, with the dialect's defaults for it.
Header dequantize_header(const Args& a) {
  const Format from = element_option(a, "from", "the element format");
  Args common = a;
  common.options.erase("from");
  if (!a.get("to")) common.options.emplace("to", "f32");
  const ConversionOptions co = conversion_options(common, true);
  require_host(co.to.id, "to");
  return conversion_header(Operation::dequantize, from, co);
}

/// As `softmx dot`: saturation defaults to none (IEEE f32 arithmetic); no dialect.
Header dot_header(const Args& a) {
  Header h;
  h.operation = Operation::dot;
  h.from = element_option(a, "a", "the A blocks' element format");
  h.to = element_option(a, "b", "the B blocks' element format");
  h.block = static_cast<std::uint32_t>(parse_count(a, "block", 32, 4096));
  h.blocks = static_cast<std::uint32_t>(parse_count(a, "blocks", 1, 1024));
  const std::string acc = a.get("acc").value_or("exact");
  if (!find_accumulation_model(acc))
    throw UsageError("unknown accumulation " + quote(acc, '\'') + " for --acc (expected exact, fp32-sequential, mxdotp or a tensor-core model: " + tensor_core_model_names() + ")");
  h.accumulation = std::string(find_accumulation_model(acc)->name());  // an alias written as its model's name
  // The destination of OUT and C, and whether lines carry C (vectors/README.md 3; the header
  // writes both keys only when they differ from f32 and no).
  const std::string to = a.get("to").value_or("f32");
  if (to != "f32" && to != "f16" && to != "bf16")
    throw UsageError("--to expects f32, f16 or bf16 (the format of the dot's result and of C), got " + quote(to, '\''));
  h.dot_to = to == "f32" ? FormatId::f32 : to == "f16" ? FormatId::f16 : FormatId::bf16;
  const std::string ad = a.get("addend").value_or("no");
  if (ad != "yes" && ad != "no") throw UsageError("--addend expects yes (each line has C) or no, got " + quote(ad, '\''));
  h.dot_addend = ad == "yes";
  Args common = a;
  for (const char* o : {"a", "b", "block", "blocks", "acc", "to", "addend"}) common.options.erase(o);
  if (!a.get("sat")) common.options.emplace("sat", "none");
  const ConversionOptions co = conversion_options(common, false);
  set_conversion(h, co.ctx, *co.dialect);
  h.dialect = "ocp";
  return h;
}

/// mma: no rounding options (the model decides); defaults f32, with C, hopper-fp8-mma, and the
/// model's K and scales (vec::mma_shape_defaults).
Header mma_header(const Args& a) {
  Header h;
  h.operation = Operation::mma;
  h.from = mma_element_option(a, "a", "A's element format");
  h.to = mma_element_option(a, "b", "B's element format");
  h.model = a.get("model").value_or("hopper-fp8-mma");
  const TensorCoreModel* model = find_tensor_core_model(h.model);
  if (!model)
    throw UsageError("unknown tensor-core model " + quote(h.model, '\'') + " for --model (expected " + tensor_core_model_names() +
                     ", or an instruction's alias: softmx models)");
  h.model = std::string(model->name());  // an alias ("sm90-wgmma") is written as its model's name
  const vec::MmaShapeDefaults d = vec::mma_shape_defaults(*model);
  h.block = static_cast<std::uint32_t>(parse_count(a, "block", d.block, 4096));
  const std::string acc = a.get("accumulator").value_or("f32");
  if (acc != "f32" && acc != "f16") throw UsageError("--accumulator expects f32 or f16 (the format of C and D), got " + quote(acc, '\''));
  h.accumulator = acc == "f32" ? FormatId::f32 : FormatId::f16;
  const std::string ad = a.get("addend").value_or("yes");
  if (ad != "yes" && ad != "no") throw UsageError("--addend expects yes (each line has C) or no (C = +0), got " + quote(ad, '\''));
  h.addend = ad == "yes";
  h.scale_format = d.scale_format;
  if (const auto sf = a.get("scale-format")) {
    if (*sf == "none") h.scale_format = vec::MmaScaleFormat::none;
    else if (*sf == "ue8m0") h.scale_format = vec::MmaScaleFormat::ue8m0;
    else if (*sf == "ue4m3") h.scale_format = vec::MmaScaleFormat::ue4m3;
    else throw UsageError("--scale-format expects none, ue8m0 or ue4m3 (the format of the block scales), got " + quote(*sf, '\''));
  }
  if (h.scale_format == vec::MmaScaleFormat::none) {
    if (a.get("scale-block")) throw UsageError("--scale-block applies only to a block-scaled mma (--scale-format ue8m0 or ue4m3)");
    h.scale_block = 0;
  } else {
    const std::uint32_t fallback = d.scale_block ? d.scale_block : 32;
    h.scale_block = static_cast<std::uint32_t>(parse_count(a, "scale-block", std::min(fallback, h.block), 4096));
    if (h.block % h.scale_block != 0)
      throw UsageError("--scale-block " + std::to_string(h.scale_block) + " must divide --block " + std::to_string(h.block) +
                       " (each scale covers scale-block consecutive products)");
  }
  return h;
}

Header make_header(Operation op, const Args& a) {
  Header h;
  switch (op) {
    case Operation::convert: h = convert_header(a); break;
    case Operation::quantize: h = quantize_header(a); break;
    case Operation::dequantize: h = dequantize_header(a); break;
    case Operation::dot: h = dot_header(a); break;
    case Operation::mma: h = mma_header(a); break;
  }
  const bool rs = h.ctx.rounding == Rounding::rs;
  if (rs && (op == Operation::dequantize || op == Operation::dot))
    throw UsageError("--round rs is not available for gen " + std::string(vec::name(op)) +
                     " (its lines carry no random bits)");
  if (!rs && a.get("rbits")) throw UsageError("--rbits applies only with --round rs");
  h.validate("gen");
  return h;
}

vec::GenOptions gen_options(const Args& a, const Header& h) {
  vec::GenOptions o;
  if (const auto v = a.get("level")) {
    if (*v != "1" && *v != "2") throw UsageError("--level expects 1 or 2, got " + quote(*v, '\''));
    o.level = *v == "1" ? 1 : 2;
  }
  o.seed = parse_seed(a, o.seed);
  if (a.get("count")) {
    if (o.level != 2) throw UsageError("--count sets the number of random cases of --level 2");
    if (vec::exhaustive(h))
      throw UsageError("--count does not apply: gen " + vec::describe(h) +
                       " is exhaustive at every level (vectors/README.md section 6)");
    o.count = parse_count(a, "count", 1, kMaxCount);
  }
  return o;
}

}  // namespace

int cmd_gen(int argc, char** argv) {
  std::optional<std::string> out_path;
  std::vector<char*> args = take_short_output(argc, argv, out_path);
  const Args a = parse_command("gen", static_cast<int>(args.size()), args.data(), 2);
  if (a.positionals.empty())
    throw UsageError("missing OPERATION: gen convert, quantize, dequantize, dot or mma (vectors/README.md)");
  if (a.positionals.size() > 1) throw UsageError("unexpected argument " + quote(a.positionals[1], '\'') + " (gen takes one OPERATION)");
  const auto op = vec::parse_operation(a.positionals[0]);
  if (!op)
    throw UsageError("unknown operation " + quote(a.positionals[0], '\'') + " (expected convert, quantize, dequantize, dot or mma)");
  check_applicable(a, *op);
  if (a.get("out")) {
    if (out_path) throw UsageError("give the output file once, as -o FILE or --out FILE");
    out_path = a.get("out");
  }
  vec::WriteOptions w;
  w.inputs_only = a.has_switch("inputs-only");
  if (const auto e = a.get("export")) {
    if (*e != "readmemh") throw UsageError("unknown export " + quote(*e, '\'') + " for --export (expected readmemh)");
    w.readmemh = true;
  }
  const Header h = make_header(*op, a);
  const vec::GenOptions o = gen_options(a, h);
  const vec::Evaluator ev(h);  // checks that the dialect supports the operation, before any output
  vec::OutputFile out(out_path.value_or(std::string(vec::kStandardOutput)));
  vec::write_vectors(ev, o, w, out);
  out.commit();
  return 0;
}

}  // namespace softmx::cli
