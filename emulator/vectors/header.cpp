// emulator/vectors/header.cpp: see header.hpp.
#include "softmx/vectors/header.hpp"

#include <algorithm>
#include <charconv>

#include "core/enum_names.hpp"
#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "softmx/block.hpp"
#include "softmx/dot.hpp"
#include "softmx/tensor_core.hpp"

namespace softmx::vec {
namespace {



std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool valid_key(std::string_view k) {
  if (k.empty()) return false;
  return std::all_of(k.begin(), k.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

std::optional<std::uint64_t> parse_decimal(std::string_view s) {
  std::uint64_t v = 0;
  if (s.empty() || s.size() > 20) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

bool is_host(FormatId f) { return is_ieee_host_format(f); }

// The keys each operation accepts (besides the provenance keys and x- keys).
bool applies(std::string_view key, Operation op, Layout layout, Rounding r) {
  const bool conv = op == Operation::convert, quant = op == Operation::quantize, deq = op == Operation::dequantize,
             dot = op == Operation::dot, mma = op == Operation::mma;
  if (key == "operation" || key == "layout") return true;
  if (key == "rounding" || key == "saturation" || key == "tininess") return !mma;  // the model decides
  if (key == "from" || key == "dialect") return conv || quant || deq;
  if (key == "to") return conv || quant || deq || dot;  // dot: the destination of OUT and C
  if (key == "a" || key == "b") return dot || mma;
  if (key == "blocks" || key == "accumulation") return dot;
  if (key == "addend") return mma || dot;
  if (key == "accumulator" || key == "model") return mma;
  if (key == "scale-format" || key == "scale-block") return mma;  // block-scaled mma only
  if (key == "block") return quant || dot || mma;
  if (key == "scale") return quant;
  if (key == "rbits") return r == Rounding::rs;
  if (key == "first" || key == "last") return layout == Layout::runs;
  return false;
}

bool provenance_key(std::string_view key) { return key == "level" || key == "seed" || key == "generator"; }

// The completeness keys (vectors/README.md 3): for layout = cases only.
bool completeness_key(std::string_view key) { return key == "cases" || key == "inputs-sha256"; }

bool lower_hex_digest(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

namespace {

// The names (core/enum_names.hpp), read as written (a header's keys and values are case-sensitive).
constexpr softmx::detail::EnumName<Operation> kOperation[] = {{Operation::convert, "convert"},
                                                      {Operation::quantize, "quantize"},
                                                      {Operation::dequantize, "dequantize"},
                                                      {Operation::dot, "dot"},
                                                      {Operation::mma, "mma"}};
// "none" is printed but never read: an unscaled mma has no scale-format key.
constexpr softmx::detail::EnumName<MmaScaleFormat> kMmaScaleFormat[] = {
    {MmaScaleFormat::none, "none", false}, {MmaScaleFormat::ue8m0, "ue8m0"}, {MmaScaleFormat::ue4m3, "ue4m3"}};

}  // namespace

std::string_view name(Operation op) { return softmx::detail::enum_name(op, kOperation); }
std::string_view name(MmaScaleFormat f) { return softmx::detail::enum_name(f, kMmaScaleFormat); }
std::optional<Operation> parse_operation(std::string_view s) { return softmx::detail::enum_parse(s, kOperation, true); }

const std::vector<std::string_view>& gen_operation_options(Operation op) {
  static const std::vector<std::string_view> convert = {"from", "to", "round", "sat", "tininess", "dialect", "rbits"},
                                              quantize = {"from", "to", "block", "scale", "round", "sat", "tininess",
                                                          "dialect", "rbits"},
                                              dequantize = {"from", "to", "round", "sat", "tininess", "dialect"},
                                              dot = {"a", "b", "block", "blocks", "acc", "to", "addend", "round", "sat",
                                                     "tininess"},
                                              mma = {"a", "b", "block", "accumulator", "addend", "model", "scale-format",
                                                     "scale-block"};
  switch (op) {
    case Operation::convert: return convert;
    case Operation::quantize: return quantize;
    case Operation::dequantize: return dequantize;
    case Operation::dot: return dot;
    case Operation::mma: return mma;
  }
  return convert;
}

void set_conversion(Header& h, const Context& ctx, const Dialect& dialect) {
  h.ctx.rounding = ctx.rounding;
  h.ctx.saturation = ctx.saturation;
  h.ctx.tininess = ctx.tininess;
  h.ctx.rbits_width = ctx.rbits_width;
  h.dialect = std::string(dialect.name);
}

bool exhaustive(const Header& h) {
  switch (h.operation) {
    case Operation::convert: return format(h.from).width <= 16 && h.ctx.rounding != Rounding::rs;
    case Operation::dequantize: return true;
    case Operation::quantize:
    case Operation::dot:
    case Operation::mma: break;
  }
  return false;
}

const Dialect& Header::dialect_ref() const {
  const Dialect* d = find_dialect(dialect);
  return d ? *d : ocp_dialect();
}

void HeaderParser::add(std::string_view line, const std::string& where) {
  const auto eq = line.find('=');
  if (eq == std::string_view::npos) throw InputError(where + ": expected a header line 'key = value'");
  const std::string key(trim(line.substr(0, eq)));
  const std::string value(trim(line.substr(eq + 1)));
  if (!started_) {
    if (key != kMagicKey || value != std::to_string(kFormatVersion))
      throw InputError(where + ": expected 'softmx-vectors = 1' (a softmx vector file starts with its format version), got " +
                       quote(trim(line), '\'', 40));
    started_ = true;
    return;
  }
  if (!valid_key(key))
    throw InputError(where + ": bad header key " + quote(key, '\'', 40) + " (keys are lower-case letters, digits and '-')");
  if (key == kMagicKey) throw InputError(where + ": a second 'softmx-vectors' line");
  for (const auto& kv : keys_)
    if (kv.first == key) throw InputError(where + ": header key " + quote(key, '\'', 40) + " given twice");
  keys_.emplace_back(key, value);
  wheres_.push_back(where);
}

Header HeaderParser::finish(const std::string& where) const {
  if (!started_) throw InputError(where + ": no header (a softmx vector file starts with 'softmx-vectors = 1')");
  Header h;
  auto find = [&](std::string_view k) -> const std::pair<std::string, std::string>* {
    for (const auto& kv : keys_)
      if (kv.first == k) return &kv;
    return nullptr;
  };
  auto where_of = [&](std::string_view k) {
    for (std::size_t i = 0; i < keys_.size(); ++i)
      if (keys_[i].first == k) return wheres_[i];
    return where;
  };
  auto bad = [&](std::string_view k, const std::string& value, const std::string& expected) -> InputError {
    return InputError(where_of(k) + ": bad value " + quote(value, '\'', 40) + " for '" + std::string(k) + "' (expected " + expected + ")");
  };
  auto require = [&](std::string_view k) -> const std::string& {
    const auto* kv = find(k);
    if (!kv) throw InputError(where + ": header lacks the required key '" + std::string(k) + "' for operation " +
                              std::string(name(h.operation)));
    return kv->second;
  };
  // A named format or any format spec (a runtime descriptor, docs/SEMANTICS.md 1.2), which the
  // writer spells canonically; validate() then checks that the operation can take it (an MX
  // element of quantize, dequantize and dot: mx_element_reason).
  auto format_of = [&](std::string_view k) -> Format {
    const std::string& v = require(k);
    if (auto f = parse_format(v)) return format(*f);
    try {
      return parse_format_spec(v);
    } catch (const FormatError& e) {
      throw bad(k, v, "a format name or spec (docs/SEMANTICS.md 1.2); " + std::string(e.what()));
    }
  };

  // Operation and layout first: they decide which keys apply.
  {
    const auto* kv = find("operation");
    if (!kv) throw InputError(where + ": header lacks the required key 'operation'");
    auto op = parse_operation(kv->second);
    if (!op) throw bad("operation", kv->second, "convert, quantize, dequantize, dot or mma");
    h.operation = *op;
  }
  if (const auto* kv = find("layout")) {
    if (kv->second == "cases") h.layout = Layout::cases;
    else if (kv->second == "runs") h.layout = Layout::runs;
    else throw bad("layout", kv->second, "cases or runs");
  }
  const bool mma = h.operation == Operation::mma;
  if (!mma) {
    const std::string& v = require("rounding");
    auto r = parse_rounding(v);
    if (!r || v != name(*r)) throw bad("rounding", v, "rne, rna, rz, ru, rd, ro or rs");
    h.ctx.rounding = *r;
  }
  // Every key present must apply.
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    const std::string& k = keys_[i].first;
    if (k.rfind("x-", 0) == 0 || provenance_key(k)) continue;
    if (applies(k, h.operation, h.layout, h.ctx.rounding)) continue;
    if (completeness_key(k)) {
      if (h.layout == Layout::cases) continue;
      throw InputError(wheres_[i] + ": header key " + quote(k, '\'', 40) +
                       " does not apply to layout = runs (a run table covers every input from first to last)");
    }
    static constexpr std::string_view kKnown[] = {"operation", "layout", "from", "to", "a", "b", "rounding", "saturation",
                                                 "tininess", "rbits", "dialect", "block", "blocks", "scale",
                                                 "accumulation", "first", "last", "accumulator", "addend", "model",
                                                 "scale-format", "scale-block"};
    if (std::find(std::begin(kKnown), std::end(kKnown), k) == std::end(kKnown))
      throw InputError(wheres_[i] + ": unknown header key " + quote(k, '\'', 40) +
                       " (see vectors/README.md section 3; free information goes in keys starting with 'x-')");
    throw InputError(wheres_[i] + ": header key " + quote(k, '\'', 40) + " does not apply to " +
                     (k == "rbits" ? std::string("rounding ") + std::string(name(h.ctx.rounding))
                      : (k == "first" || k == "last") ? std::string("layout = cases")
                                                      : "operation " + std::string(name(h.operation))));
  }
  if (!mma) {
    const std::string& v = require("saturation");
    auto s = parse_saturation(v);
    if (!s || v != name(*s)) throw bad("saturation", v, "finite or none");
    h.ctx.saturation = *s;
  }
  if (!mma) {
    const std::string& v = require("tininess");
    auto t = parse_tininess(v);
    if (!t) throw bad("tininess", v, "after, before or after-bounded");
    h.ctx.tininess = *t;
  }
  if (h.ctx.rounding == Rounding::rs) {
    const std::string& v = require("rbits");
    auto n = parse_decimal(v);
    if (!n || *n < 1 || *n > 64) throw bad("rbits", v, "an integer from 1 to 64");
    h.ctx.rbits_width = static_cast<std::uint8_t>(*n);
  }
  if (h.operation == Operation::dot) {
    h.from = format_of("a");
    h.to = format_of("b");
    const std::string& acc = require("accumulation");
    const AccumulationModel* am = find_accumulation_model(acc);
    if (!am) throw bad("accumulation", acc, "exact, fp32-sequential, mxdotp or a tensor-core model (softmx models)");
    h.accumulation = std::string(am->name());  // readers take an instruction's alias; writers spell the name
    // The destination and the addend (vectors/README.md 3): files written before they existed
    // have neither key and mean f32 without C, as a file with `to = f32` and `addend = no`.
    if (const auto* kv = find("to")) {
      if (kv->second == "f32") h.dot_to = FormatId::f32;
      else if (kv->second == "f16") h.dot_to = FormatId::f16;
      else if (kv->second == "bf16") h.dot_to = FormatId::bf16;
      else throw bad("to", kv->second, "f32, f16 or bf16 (the format of OUT and C)");
    }
    if (const auto* kv = find("addend")) {
      if (kv->second != "yes" && kv->second != "no") throw bad("addend", kv->second, "yes (each line has C) or no (no C)");
      h.dot_addend = kv->second == "yes";
    }
  } else if (mma) {
    h.from = format_of("a");
    h.to = format_of("b");
    const std::string& acc = require("accumulator");
    if (acc != "f32" && acc != "f16") throw bad("accumulator", acc, "f32 or f16 (the format of C and D)");
    h.accumulator = acc == "f32" ? FormatId::f32 : FormatId::f16;
    const std::string& ad = require("addend");
    if (ad != "yes" && ad != "no") throw bad("addend", ad, "yes (each line has C) or no (C = +0)");
    h.addend = ad == "yes";
    const std::string& m = require("model");
    if (!find_tensor_core_model(m)) {
      std::string known;
      for (const TensorCoreModel* x : tensor_core_models()) known += (known.empty() ? "" : " or ") + std::string(x->name());
      throw bad("model", m, known);
    }
    h.model = std::string(find_tensor_core_model(m)->name());  // an instruction's alias read as its model
    // Block scales: both keys or neither (an unscaled mma has no scale columns).
    const auto* sf = find("scale-format");
    const auto* sb = find("scale-block");
    if (sf || sb) {
      if (!sf || !sb)
        throw InputError(where_of(sf ? "scale-format" : "scale-block") + ": a block-scaled mma needs both 'scale-format' and 'scale-block'");
      if (const auto f = softmx::detail::enum_parse(sf->second, kMmaScaleFormat, true)) h.scale_format = *f;
      else throw bad("scale-format", sf->second, "ue8m0 or ue4m3 (the format of the block scales)");
      auto n = parse_decimal(sb->second);
      if (!n || *n < 1 || *n > 4096) throw bad("scale-block", sb->second, "an integer from 1 to 4096 (products per scale)");
      h.scale_block = static_cast<std::uint32_t>(*n);
    }
  } else {
    h.from = format_of("from");
    h.to = format_of("to");
    const std::string& d = require("dialect");
    const Dialect* dp = find_dialect(d);
    if (!dp || dp->name != d) {
      std::string known;
      for (const Dialect& x : all_dialects()) known += (known.empty() ? "" : ", ") + std::string(x.name);
      throw bad("dialect", d, "one of " + known);
    }
    h.dialect = d;
  }
  if (h.operation == Operation::quantize || h.operation == Operation::dot || mma) {
    const std::string& v = require("block");
    auto n = parse_decimal(v);
    if (!n || *n < 1 || *n > 4096) throw bad("block", v, "an integer from 1 to 4096");
    h.block = static_cast<std::uint32_t>(*n);
  }
  if (h.operation == Operation::dot) {
    const std::string& v = require("blocks");
    auto n = parse_decimal(v);
    if (!n || *n < 1 || *n > 1024) throw bad("blocks", v, "an integer from 1 to 1024");
    h.blocks = static_cast<std::uint32_t>(*n);
  }
  if (h.operation == Operation::quantize) {
    const std::string& v = require("scale");
    auto r = parse_scale_rule(v);
    if (!r || v != softmx::name(*r)) throw bad("scale", v, "floor, ceil, even or rceil");
    h.scale = *r;
  }
  if (h.layout == Layout::runs) {
    const Format& src = format(h.from);
    for (const char* k : {"first", "last"}) {
      const std::string& v = require(k);
      auto x = parse_hex_exact(v, src.hex_digits());
      if (!x || *x > src.code_mask()) throw bad(k, v, expected_code(src));
      (std::string_view(k) == "first" ? h.first : h.last) = *x;
    }
  }
  if (const auto* kv = find("level")) {
    // Strict, as every other key: a level verify cannot read must not pass as information.
    const std::string& v = kv->second;
    if (h.layout == Layout::runs) {
      if (v != "exhaustive") throw bad("level", v, "exhaustive (a run table covers every input from first to last)");
    } else if (v == "exhaustive") {
      if (!exhaustive(h))
        throw bad("level", v, "1 or 2: " + describe(h) + " is not an exhaustive set (vectors/README.md section 6)");
    } else if (v != "1" && v != "2") {
      throw bad("level", v, std::string("1 or 2 (vectors/README.md section 6)") + (exhaustive(h) ? " or exhaustive" : ""));
    }
    h.level = v;
  }
  if (const auto* kv = find("generator")) h.generator = kv->second;
  if (const auto* kv = find("seed")) {
    auto s = parse_decimal(kv->second);
    if (!s) throw bad("seed", kv->second, "a decimal integer below 2^64");
    h.seed = *s;
  }
  if (const auto* kv = find("cases")) {
    auto n = parse_decimal(kv->second);
    if (!n) throw bad("cases", kv->second, "the number of cases, a decimal integer below 2^64");
    h.cases = *n;
  }
  if (const auto* kv = find("inputs-sha256")) {
    if (!lower_hex_digest(kv->second))
      throw bad("inputs-sha256", kv->second, "64 lower-case hex digits: the SHA-256 of the cases' operands, vectors/README.md 8");
    h.inputs_sha256 = kv->second;
  }
  for (const auto& kv : keys_)
    if (kv.first.rfind("x-", 0) == 0) h.extra.push_back(kv);
  h.validate(where);
  return h;
}

void Header::validate(std::string_view where_sv) const {
  const std::string where(where_sv);
  auto fail = [&](const std::string& what) { return InputError(where + ": " + what); };
  const std::string f = std::string(format(from).name), t = std::string(format(to).name);
  switch (operation) {
    case Operation::convert:
      break;
    case Operation::quantize:
      if (!is_host(from)) throw fail("quantize reads f64, f32, f16 or bf16 (from = " + f + ")");
      if (auto why = mx_element_reason(to)) throw fail("quantize writes an MX element format (to = " + t + "): " + *why);
      break;
    case Operation::dequantize:
      if (auto why = mx_element_reason(from)) throw fail("dequantize reads an MX element format (from = " + f + "): " + *why);
      if (!is_host(to)) throw fail("dequantize writes f64, f32, f16 or bf16 (to = " + t + ")");
      break;
    case Operation::dot:
      if (auto why = mx_element_reason(from)) throw fail("dot blocks hold MX element formats (a = " + f + "): " + *why);
      if (auto why = mx_element_reason(to)) throw fail("dot blocks hold MX element formats (b = " + t + "): " + *why);
      if (dot_to != FormatId::f32 && dot_to != FormatId::f16 && dot_to != FormatId::bf16)
        throw fail("the dot destination (to) is f32, f16 or bf16, not " + std::string(format(dot_to).name));
      break;
    case Operation::mma:
      // The tensor-core models are the named formats' hardware: none takes a runtime element
      // (dot_general refuses them under these models too).
      for (const auto& [key, fm] : {std::pair<const char*, const Format*>{"a", &from}, {"b", &to}})
        if (!fm->is_named())
          throw fail(std::string("mma operands are the named MX element formats e4m3 e5m2 e3m2 e2m3 e2m1 int8: no tensor-core ") +
                     "model takes a runtime element format (" + key + " = " + std::string(fm->name) +
                     "; gen dot --acc exact or fp32-sequential takes it)");
      if (!is_mx_element(from) || !is_mx_element(to))
        throw fail("mma operands are MX element formats: e4m3 e5m2 e3m2 e2m3 e2m1 int8 (a = " + f + ", b = " + t + ")");
      if (accumulator != FormatId::f32 && accumulator != FormatId::f16) throw fail("the mma accumulator is f32 or f16");
      if (!find_tensor_core_model(model)) throw fail("unknown tensor-core model " + quote(model, '\'', 40) + "");
      if (block < 1 || block > 4096) throw fail("block (K) must be 1..4096");
      if (scale_format == MmaScaleFormat::none ? scale_block != 0
                                               : scale_block < 1 || scale_block > block || block % scale_block != 0)
        throw fail("scale-block (" + std::to_string(scale_block) + ") must divide block (K = " + std::to_string(block) +
                   ") for a block-scaled mma, and be absent without scale-format");
      break;
  }
  // A header says what was computed: the saturation is resolved (SEMANTICS 4.1) before writing.
  if (operation != Operation::mma && ctx.saturation != Saturation::finite && ctx.saturation != Saturation::none &&
      ctx.saturation != Saturation::propagate)
    throw fail("saturation must be finite, none or propagate (resolve the destination's default first)");
  // The header has no key for P3109's StochasticB and C (Context::stochastic): rs files are
  // StochasticA, softmx's rs.
  if (ctx.stochastic != StochasticRule::a) throw fail("rs files are StochasticA (rs); StochasticB and C have no vector files");
  if (layout == Layout::runs) {
    if (operation != Operation::convert) throw fail("layout = runs is for operation = convert only");
    if (ctx.rounding == Rounding::rs) throw fail("layout = runs needs a deterministic rounding (not rs)");
    if (first > last) throw fail("first is above last");
    if (last > format(from).code_mask()) throw fail("last is beyond the source format's codes");
  }
  if (layout == Layout::runs && (cases || !inputs_sha256.empty()))
    throw fail("cases and inputs-sha256 do not apply to layout = runs (first and last say which inputs it covers)");
  if (!inputs_sha256.empty() && !lower_hex_digest(inputs_sha256)) throw fail("inputs-sha256 must be 64 lower-case hex digits");
  if (!level.empty() && !(layout == Layout::runs ? level == "exhaustive"
                          : level == "1" || level == "2" || (level == "exhaustive" && exhaustive(*this))))
    throw fail("level " + quote(level, '\'', 40) + " is not 1, 2 or (for an exhaustive set or a run table) exhaustive");
  if (ctx.rounding == Rounding::rs && (ctx.rbits_width < 1 || ctx.rbits_width > 64)) throw fail("rbits must be 1..64");
  // Only convert and quantize lines carry random bits (vectors/README.md 4).
  if (ctx.rounding == Rounding::rs && (operation == Operation::dequantize || operation == Operation::dot))
    throw fail("rounding = rs needs random bits on each line, which " + std::string(name(operation)) + " lines do not carry");
}

std::string header_text(const Header& h) {
  std::string s;
  auto kv = [&](std::string_view k, std::string_view v) {
    s += k;
    s += " = ";
    s += v;
    s += '\n';
  };
  kv(kMagicKey, std::to_string(kFormatVersion));
  kv("operation", name(h.operation));
  if (h.layout == Layout::runs) kv("layout", "runs");
  if (h.operation == Operation::dot) {
    kv("a", format(h.from).name);
    kv("b", format(h.to).name);
  } else if (h.operation != Operation::mma) {  // mma writes its keys below, in its own order
    kv("from", format(h.from).name);
    kv("to", format(h.to).name);
  }
  if (h.operation == Operation::mma) {
    kv("a", format(h.from).name);
    kv("b", format(h.to).name);
    kv("block", std::to_string(h.block));
    kv("accumulator", format(h.accumulator).name);
    kv("addend", h.addend ? "yes" : "no");
    kv("model", h.model);
    if (h.scale_format != MmaScaleFormat::none) {
      kv("scale-format", name(h.scale_format));
      kv("scale-block", std::to_string(h.scale_block));
    }
  } else {
    kv("rounding", name(h.ctx.rounding));
    if (h.ctx.rounding == Rounding::rs) kv("rbits", std::to_string(h.ctx.rbits_width));
    kv("saturation", name(h.ctx.saturation));
    kv("tininess", name(h.ctx.tininess));
  }
  if (h.operation != Operation::dot && h.operation != Operation::mma) kv("dialect", h.dialect);
  if (h.operation == Operation::quantize) {
    kv("block", std::to_string(h.block));
    kv("scale", softmx::name(h.scale));
  }
  if (h.operation == Operation::dot) {
    kv("block", std::to_string(h.block));
    kv("blocks", std::to_string(h.blocks));
    kv("accumulation", h.accumulation);
    // Both keys, or neither when the file is what a dot file was before them (f32, no C), so
    // that such a file keeps its bytes (vectors/MANIFEST).
    if (h.dot_to != FormatId::f32 || h.dot_addend) {
      kv("to", format(h.dot_to).name);
      kv("addend", h.dot_addend ? "yes" : "no");
    }
  }
  if (h.layout == Layout::runs) {
    const int d = format(h.from).hex_digits();
    kv("first", hex(h.first, d));
    kv("last", hex(h.last, d));
  }
  if (!h.level.empty()) kv("level", h.level);
  if (h.seed) kv("seed", std::to_string(*h.seed));
  if (h.cases) kv("cases", std::to_string(*h.cases));
  if (!h.inputs_sha256.empty()) kv("inputs-sha256", h.inputs_sha256);
  if (!h.generator.empty()) kv("generator", h.generator);
  for (const auto& [k, v] : h.extra) kv(k, v);
  return s;
}

std::string header_text_commented(const Header& h, std::string_view prefix) {
  const std::string t = header_text(h);
  std::string s;
  std::size_t at = 0;
  while (at < t.size()) {
    const std::size_t nl = t.find('\n', at);
    s += prefix;
    s.append(t, at, nl - at + 1);
    at = nl + 1;
  }
  return s;
}

std::string describe(const Header& h) {
  std::string s(name(h.operation));
  s += ' ';
  if (h.operation == Operation::mma)
    return s + std::string(format(h.from).name) + " x " + std::string(format(h.to).name) + " k=" + std::to_string(h.block) +
           " " + std::string(format(h.accumulator).name) + (h.addend ? " +C " : " ") + h.model +
           (h.scale_format == MmaScaleFormat::none
                ? std::string()
                : " scales " + std::string(name(h.scale_format)) + "/" + std::to_string(h.scale_block));
  if (h.operation == Operation::dot) {
    s += std::string(format(h.from).name) + " x " + std::string(format(h.to).name) + " k=" + std::to_string(h.block) +
         " n=" + std::to_string(h.blocks) + " " + h.accumulation;
    if (h.dot_addend) s += " +C";
    if (h.dot_to != FormatId::f32) s += " -> " + std::string(format(h.dot_to).name);
  } else {
    s += std::string(format(h.from).name) + " -> " + std::string(format(h.to).name);
    if (h.operation == Operation::quantize) s += " k=" + std::to_string(h.block) + " " + std::string(softmx::name(h.scale));
  }
  s += ' ';
  s += name(h.ctx.rounding);
  s += h.ctx.saturation == Saturation::finite ? " satfinite" : h.ctx.saturation == Saturation::propagate ? " satpropagate" : " nonsat";
  if (h.operation != Operation::dot) s += " (" + h.dialect + ")";
  return s;
}

}  // namespace softmx::vec
