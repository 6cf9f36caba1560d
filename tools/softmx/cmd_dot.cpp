// tools/softmx/cmd_dot.cpp: `softmx dot`.
//
//   softmx dot --a FMT --b FMT [--block K] [--blocks N]      FMT: a named MX element format or a
//                                                            runtime spec of at most 8 bits (e1m2, int4)
//              [--acc exact|fp32-sequential|TENSOR-CORE-MODEL (softmx dialects lists them)]
//              [--to f32|f16|bf16] [--addend]
//              [--round MODE] [--sat finite|none] [--scale-format SPEC]
//   reads lines of N block pairs, "SA_1 A_1,1..A_1,K SB_1 B_1,1..B_1,K ... SA_N A_N,1..A_N,K
//   SB_N B_N,1..B_N,K" (each pair: A's scale and K codes, then B's: the operand order of the dot
//   vector files, vectors/README.md 3, so their lines can be fed in as they are), with --addend
//   then C, a code of --to (8 hex digits for f32, 4 for f16 and bf16: the C column of a dot
//   vector file with addend = yes), and writes "RESULT FLAGS": the raw hex of DotGeneral (OCP MX
//   section 6) plus C, rounded into --to (default f32; docs/BLOCKS.md 5), and the flags.
//   Saturation defaults to none (IEEE overflow to Inf). The tensor-core models
//   (softmx/tensor_core.hpp) ignore --round and --sat: their rounding is fixed; --to f16 is
//   their f16 accumulator, bf16 they refuse. Lines are computed in batches by softmx::dot_pairs.
//   --scale-format (docs/BLOCKS.md 1.2 and 5): the SCALE fields are codes of that format (its
//   hex digits: 2 up to 8 bits, 4 for bf16 and f16, 8 for f32); e8m0 (default) and ue4m3 go
//   through dot_pairs' kernels (ue4m3 is the GEMM's UE4M3 reading, for exact, fp32-sequential,
//   blackwell-mxf4 and blackwell-nvf4), any other scale format through dot_pairs' reference per
//   line (GemmOperand::block_scale_format; exact and fp32-sequential).
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "options.hpp"
#include "commands.hpp"
#include "tokens.hpp"
#include "softmx/dot.hpp"
#include "softmx/gemm.hpp"
#include "softmx/tensor_core.hpp"

namespace softmx::cli {
namespace {

/// --a / --b: a named MX element format or a runtime spec of at most 8 bits (e1m2, e4m3fnuz, int4).
Format element_arg(const Args& a, const char* opt) {
  auto v = a.get(opt);
  if (!v)
    throw UsageError(std::string("missing --") + opt +
                     " FORMAT (e4m3, e5m2, e3m2, e2m3, e2m1, int8, or a runtime spec of at most 8 bits such as e1m2)");
  return mx_element_option(opt, *v);
}

}  // namespace

int cmd_dot(int argc, char** argv) {
  const Args a = parse_filter_command("dot", argc, argv, "blocks");
  const Format fa = element_arg(a, "a"), fb = element_arg(a, "b");
  const std::size_t k = parse_count(a, "block", 32, 1 << 20), n = parse_count(a, "blocks", 1, 1 << 20);
  const AccumulationModel* model = find_accumulation_model(a.get("acc").value_or("exact"));
  if (!model)
    throw UsageError("unknown accumulation " + quote(*a.get("acc"), '\'') +
                     " for --acc (expected exact, fp32-sequential, mxdotp or a tensor-core model: " + tensor_core_model_names() + ")");
  // Refusals before any input (runtime elements: exact or fp32-sequential; the exact range),
  // on one line of zeros (at most 2^20 codes: a longer line is checked when it is computed).
  check_gemm_operands(fa, fb, std::min<std::size_t>(n * k, std::size_t{1} << 20), k, *model,
                      a.get("acc").value_or("exact"));
  // The scale format: E8M0 and UE4M3 are read by the GEMM's kernels (dot_pairs; UE4M3's 7-bit
  // codes are the GEMM's e4m3 reading, code & 0x7F); any other by its reference per output
  // (GemmOperand::block_scale_format), its codes sb bytes each.
  const ScaleFormat sfmt = scale_format_option(a, ocp_dialect());
  const Format& sf = sfmt;
  const bool ue4m3 = sfmt == ScaleFormat(ue4m3_format());
  const bool other = !sfmt.is_e8m0() && !ue4m3;
  const std::size_t sb = sfmt.code_bytes();
  const int sdigits = sf.hex_digits();
  // The destination of the result and of C (DotDestination, dot.hpp), and whether lines end in C.
  const std::string to_name = a.get("to").value_or("f32");
  if (to_name != "f32" && to_name != "f16" && to_name != "bf16")
    throw UsageError("--to expects f32, f16 or bf16 (the format of the result and of C), got " + quote(to_name, '\''));
  const FormatId to = to_name == "f32" ? FormatId::f32 : to_name == "f16" ? FormatId::f16 : FormatId::bf16;
  const Format& tf = format(to);
  const bool addend = a.has_switch("addend");
  Args common = a;
  for (const char* o : {"a", "b", "block", "blocks", "acc", "scale-format", "to"}) common.options.erase(o);
  if (!a.get("sat")) common.options.emplace("sat", "none");
  const ConversionOptions co = conversion_options(common, false);
  if (co.ctx.rounding == Rounding::rs) throw UsageError("--round rs is not available for dot (no random bits per result)");
  if (to != FormatId::f32 || addend) {
    // The model's refusal of the destination (a tensor-core model: bf16; a per-group one: f16)
    // before any input, on one block pair of zeros.
    const std::vector<std::uint8_t> z(k, 0);
    const BlockRef za{fa.id, 127, z, &fa}, zb{fb.id, 127, z, &fb};
    library_call([&] {
      (void)dot_general(std::span(&za, 1), std::span(&zb, 1),
                        DotDestination{to, addend ? std::optional<std::uint32_t>(0) : std::nullopt}, co.ctx, *model);
    });
  }

  std::string line;
  Output output;
  std::string& out = output.text();
  const std::size_t want = 2 * n * (k + 1) + (addend ? 1 : 0);
  // The layout, as the error for a line that does not fit names it.
  const std::string ks = std::to_string(k);
  auto pair = [&](std::size_t j) {
    const std::string js = std::to_string(j);
    return "SA_" + js + " A_" + js + ",1..A_" + js + "," + ks + " SB_" + js + " B_" + js + ",1..B_" + js + "," + ks;
  };
  const std::string layout = (n == 1   ? pair(1)
                              : n == 2 ? pair(1) + " " + pair(2)
                                       : pair(1) + " ... " + pair(n)) +
                             (addend ? " C" : "");
  // Lines are read in batches and computed together by dot_pairs (softmx/gemm.hpp: the same
  // results as dot_general per line, by the batched kernels on every core). A batch holds up to
  // 4096 lines and about 2^22 element products; a line that does not parse ends the batch, whose
  // earlier lines are written before the error, as when each line was computed on its own.
  const std::size_t kn = n * k;
  const std::size_t batch = std::clamp<std::size_t>((std::size_t{1} << 22) / kn, 1, 4096);
  std::vector<std::uint8_t> ac, as, bc, bs;
  std::vector<std::uint32_t> res, cs;  // cs: the lines' C (--addend)
  std::vector<Flags> fl;
  GemmOptions go;
  go.model = model;
  go.out = co.ctx;
  go.to = to;
  std::size_t lines_in = 0;
  // Lines [0, lines) of ac/as/bc/bs into res and fl.
  auto compute = [&](std::size_t lines) {
    res.resize(lines);
    fl.resize(lines);
    GemmOperand ga = gemm_rows(fa, lines, kn, k, ac, as), gb = gemm_rows(fb, lines, kn, k, bc, bs);
    if (ue4m3) ga.scale_format = gb.scale_format = FormatId::e4m3;
    if (other) ga.block_scale_format = gb.block_scale_format = &sf;
    go.addend = addend ? std::span<const std::uint32_t>(cs.data(), lines) : std::span<const std::uint32_t>();
    dot_pairs(ga, gb, go, res, fl);
  };
  if (!sfmt.is_e8m0()) {
    // The scale format's refusals under this model (a tensor-core model reads E8M0 through
    // dot_general, UE4M3 only under per-group models) before any input, on one line of zeros
    // (scale code 0: zero or the smallest scale of every format).
    const std::size_t kz = std::min(kn, std::size_t{1} << 20);
    if (kz == kn) {
      ac.assign(kn, 0);
      bc.assign(kn, 0);
      as.assign(n * sb, 0);
      bs.assign(n * sb, 0);
      cs.assign(1, 0);
      library_call([&] { compute(1); });
      ac.clear();
      bc.clear();
      as.clear();
      bs.clear();
      cs.clear();
    }
  }
  auto flush = [&] {
    if (lines_in == 0) return;
    // The library's refusals (checked up front above; the exact range again here for the
    // widest lines) exit 2 with its message.
    library_call([&] { compute(lines_in); });
    for (std::size_t l = 0; l < lines_in; ++l) {
      out += hex(res[l], tf.hex_digits());
      out += ' ';
      out += hex(fl[l], 2);
      out += '\n';
      output.chunk();
    }
    lines_in = 0;
    ac.clear();
    as.clear();
    bc.clear();
    bs.clear();
    cs.clear();
  };
  LineReader lines(std::cin);
  try {
    while (lines.next(line)) {
      const std::string where = lines.where();
      const auto f = split_fields(line);
      if (f.size() != want)
        throw UsageError(where + ": expected " + std::to_string(n) + " block pair" + (n > 1 ? "s" : "") + ", " + layout +
                         " (A's scale and " + ks + " codes, then B's, pair by pair" +
                         (addend ? std::string(", then C, a ") + std::string(tf.name) + " code" : std::string()) +
                         ", as in a dot vector file: " + std::to_string(want) + " fields), got " + std::to_string(f.size()));
      const std::size_t a0 = ac.size(), s0 = as.size();  // s0: bytes
      try {
        std::size_t at = 0;
        for (std::size_t j = 0; j < n; ++j)
          for (std::size_t side = 0; side < 2; ++side) {
            const Format& fmt = side ? fb : fa;
            auto sc = parse_hex_exact(f[at], sdigits);
            if (!sc || *sc > sf.code_mask())
              throw UsageError(where + ": field " + std::to_string(at + 1) + ": expected " +
                               (sfmt.is_e8m0() ? std::string("an E8M0 scale (2 hex digits)")
                                               : "a " + std::string(sf.name) + " scale code (" +
                                                     std::to_string(sdigits) + " hex digits, at most " +
                                                     hex(sf.code_mask(), sdigits) + ")") +
                               ", got " + quote(f[at]));
            ++at;
            auto& sv = side ? bs : as;
            sv.resize(sv.size() + sb);
            store_scale_code(sv.data() + sv.size() - sb, 0, sb, static_cast<std::uint32_t>(*sc));
            auto& c = side ? bc : ac;
            for (std::size_t i = 0; i < k; ++i, ++at)
              c.push_back(static_cast<std::uint8_t>(parse_code(fmt, f[at], where + ": field " + std::to_string(at + 1))));
          }
        if (addend)  // C, after the pairs
          cs.push_back(static_cast<std::uint32_t>(parse_code(tf, f[at], where + ": field " + std::to_string(at + 1) + " (C)")));
      } catch (...) {
        ac.resize(a0);  // the line's codes so far go; the batch before it stays whole
        bc.resize(a0);
        as.resize(s0);
        bs.resize(s0);
        cs.resize(lines_in);
        throw;
      }
      if (++lines_in == batch) flush();
    }
  } catch (const UsageError&) {
    flush();  // the lines before the bad one, written as the output goes away (uncommitted)
    throw;
  }
  flush();
  output.commit();
  return 0;
}

}  // namespace softmx::cli
