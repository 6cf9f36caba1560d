// tools/softmx/cmd_gemm.cpp: `softmx gemm-golden`, golden data for an MX GEMM.
//
//   softmx gemm-golden --out DIR [--m M] [--n N] [--k K] [--a FMT] [--b FMT] [--block 32]
//                      [--seed S] [--scale RULE] [--dialect NAME] [--acc exact|fp32-sequential]
//                      [--round MODE] [--sat finite|none]
//
// A (M x K) and B (K x N) are f32 values drawn from SplitMix64(seed): each is
// (sum of 12 draws of 24 bits - 6 * 2^24) * 2^-24, a bell-shaped value in [-6, 6], rounded to
// f32 (rne). A is quantized along K per row, B along K per column (blocks of --block; a last
// partial block is padded with zeros). C[i][j] = DotGeneral over the K blocks (f32 output). The
// files (all little-endian) and their layouts are listed in DIR/manifest.txt with SHA-256s.
#include <bit>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "sha256.hpp"
#include "softmx/block.hpp"
#include "softmx/dot.hpp"
#include "softmx/pack.hpp"
#include "softmx/prng.hpp"

namespace softmx::cli {
namespace {

FormatId element_arg(const Args& a, const char* opt, FormatId dflt) {
  auto v = a.get(opt);
  if (!v) return dflt;
  const FormatId f = parse_format_arg(opt, *v);
  if (!is_mx_element(f))
    throw UsageError(std::string("--") + opt + " must be an MX element format (e4m3, e5m2, e3m2, e2m3, e2m1, int8), not " + *v);
  return f;
}

template <class T>
void append_le(std::vector<std::uint8_t>& out, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) out.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) >> (8 * i)));
}

// Writes `bytes` to dir/name through a temporary file and a rename: never half-written.
void write_file(const std::filesystem::path& dir, const std::string& name, const std::vector<std::uint8_t>& bytes) {
  const auto tmp = dir / ("." + name + ".tmp");
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!f) throw UsageError("cannot write " + tmp.string());
  }
  std::error_code ec;
  std::filesystem::rename(tmp, dir / name, ec);
  if (ec) throw UsageError("cannot rename " + tmp.string() + " to " + (dir / name).string() + ": " + ec.message());
}

}  // namespace

int cmd_gemm_golden(int argc, char** argv) {
  const Args a = parse_args("gemm-golden", argc, argv, 2,
                            {"out", "m", "n", "k", "a", "b", "block", "seed", "scale", "dialect", "acc", "round", "sat"});
  if (!a.positionals.empty()) throw UsageError("unexpected argument '" + a.positionals[0] + "'");
  const auto out_dir = a.get("out");
  if (!out_dir) throw UsageError("missing --out DIR (where the golden files go)");
  const std::size_t M = parse_count(a, "m", 64, 1 << 14), N = parse_count(a, "n", 64, 1 << 14), K = parse_count(a, "k", 256, 1 << 16);
  const std::size_t blk = parse_count(a, "block", 32, 1 << 16);
  const std::uint64_t seed = a.get("seed") ? parse_count(a, "seed", 1, ~std::uint64_t{0} >> 1) : 1;
  const FormatId fa = element_arg(a, "a", FormatId::e2m1), fb = element_arg(a, "b", FormatId::e2m1);
  const AccumulationModel* model = find_accumulation_model(a.get("acc").value_or("exact"));
  if (!model) throw UsageError("unknown accumulation '" + *a.get("acc") + "' for --acc (expected exact or fp32-sequential)");
  Args common = a;
  for (const char* o : {"out", "m", "n", "k", "a", "b", "block", "seed", "scale", "acc", "round", "sat"}) common.options.erase(o);
  const ConversionOptions co = conversion_options(common, false);
  BlockOptions bo;
  bo.dialect = co.dialect;
  bo.rule = scale_rule_option(a);
  if (auto r = a.get("round")) {
    bo.rounding = parse_rounding(*r);
    if (!bo.rounding || *bo.rounding == Rounding::rs)
      throw UsageError("--round expects rne, rna, rz, ru, rd or ro for the element conversions, got '" + *r + "'");
  }
  if (auto s = a.get("sat")) {  // the element conversions'; unset: the dialect's element saturation
    bo.saturation = parse_saturation(*s);
    if (!bo.saturation) throw UsageError("unknown saturation '" + *s + "' for --sat (expected finite or none)");
  }
  Context out_ctx;  // the f32 golden output: rne, IEEE overflow to Inf
  out_ctx.saturation = Saturation::none;

  // The inputs.
  SplitMix64 rng(seed);
  auto draw = [&] {
    std::int64_t s = 0;
    for (int i = 0; i < 12; ++i) s += static_cast<std::int64_t>(rng.next() >> 40);
    const double v = std::ldexp(static_cast<double>(s - 6 * (std::int64_t{1} << 24)), -24);  // exact
    Context c;
    return static_cast<std::uint32_t>(convert(FormatId::f64, FormatId::f32, std::bit_cast<std::uint64_t>(v), c).code);
  };
  std::vector<std::uint32_t> A(M * K), B(K * N);
  for (auto& x : A) x = draw();
  for (auto& x : B) x = draw();

  // Quantize: A along K per row (axis 1 of M x K), B along K per column (axis 0 of K x N).
  const std::size_t a_shape[2] = {M, K}, b_shape[2] = {K, N};
  MxTensor qa, qb;
  try {
    bo.element = fa;
    qa = quantize_tensor(FormatId::f32, A.data(), a_shape, 1, blk, bo);
    bo.element = fb;
    qb = quantize_tensor(FormatId::f32, B.data(), b_shape, 0, blk, bo);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const std::size_t nb = (K + blk - 1) / blk;

  // Golden C = A x B through DotGeneral over the K blocks.
  std::vector<std::uint8_t> c_bytes;
  std::vector<std::vector<std::uint8_t>> arow(nb), bcol(nb);
  std::vector<BlockRef> ra(nb), rb(nb);
  Flags all_flags = 0;
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t j = 0; j < N; ++j) {
      for (std::size_t b = 0; b < nb; ++b) {
        const std::size_t first = b * blk, cnt = std::min(blk, K - first);
        arow[b].assign(qa.codes.begin() + static_cast<long>(i * K + first), qa.codes.begin() + static_cast<long>(i * K + first + cnt));
        bcol[b].resize(cnt);
        for (std::size_t t = 0; t < cnt; ++t) bcol[b][t] = qb.codes[(first + t) * N + j];
        ra[b] = BlockRef{fa, qa.scales[i * nb + b], arow[b]};
        rb[b] = BlockRef{fb, qb.scales[b * N + j], bcol[b]};
      }
      const Result r = dot_general(ra, rb, out_ctx, *model);
      append_le(c_bytes, static_cast<std::uint32_t>(r.code));
      all_flags |= r.flags;
    }

  // Files.
  std::vector<std::uint8_t> a_f32, b_f32, a_bin, a_scale, b_bin, b_scale;
  for (auto x : A) append_le(a_f32, x);
  for (auto x : B) append_le(b_f32, x);
  for (std::size_t i = 0; i < M; ++i) {
    const auto p = pack(fa, std::span(qa.codes.data() + i * K, K));
    a_bin.insert(a_bin.end(), p.begin(), p.end());
  }
  a_scale = qa.scales;  // M x nb
  for (std::size_t j = 0; j < N; ++j) {  // B^T: row j = column j of B, along K
    std::vector<std::uint8_t> col(K);
    for (std::size_t t = 0; t < K; ++t) col[t] = qb.codes[t * N + j];
    const auto p = pack(fb, col);
    b_bin.insert(b_bin.end(), p.begin(), p.end());
    for (std::size_t b = 0; b < nb; ++b) b_scale.push_back(qb.scales[b * N + j]);
  }
  const std::filesystem::path dir(*out_dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw UsageError("cannot create " + dir.string() + ": " + ec.message());
  struct FileInfo {
    std::string name, layout;
    const std::vector<std::uint8_t>* bytes;
  };
  const std::string rowbytes_a = std::to_string(packed_size(fa, K)), rowbytes_b = std::to_string(packed_size(fb, K));
  const std::vector<FileInfo> files = {
      {"a_f32.bin", "A, f32 (M x K) row-major: the values quantized", &a_f32},
      {"b_f32.bin", "B, f32 (K x N) row-major", &b_f32},
      {"a.bin", "A element codes, M rows of " + rowbytes_a + " bytes: the K codes of a row packed (docs/BLOCKS.md 4)", &a_bin},
      {"a_scale.bin", "A E8M0 scales, M x " + std::to_string(nb) + " bytes row-major: scale of block b of row i at i*" + std::to_string(nb) + "+b", &a_scale},
      {"b.bin", "B element codes as B^T: N rows (one per column of B) of " + rowbytes_b + " bytes, the K codes packed", &b_bin},
      {"b_scale.bin", "B E8M0 scales as B^T: N x " + std::to_string(nb) + " bytes: scale of block b of column j at j*" + std::to_string(nb) + "+b", &b_scale},
      {"c_golden.bin", "C = A x B, f32 (M x N) row-major: DotGeneral of row i of A and column j of B", &c_bytes},
  };
  std::string cmdline = "softmx";
  for (int i = 1; i < argc; ++i) cmdline += std::string(" ") + argv[i];
  std::string manifest =
      "# softmx gemm-golden manifest\ngenerator = softmx gemm-golden\ngenerator_version = 0.1.0\ncommand = " + cmdline +
      "\nseed = " + std::to_string(seed) + "\nm = " + std::to_string(M) + "\nn = " + std::to_string(N) +
      "\nk = " + std::to_string(K) + "\nblock = " + std::to_string(blk) + "\na_format = " + std::string(format(fa).name) +
      "\nb_format = " + std::string(format(fb).name) + "\nscale_rule = " +
      std::string(name(bo.rule.value_or(co.dialect->block.scale_rule))) + "\ndialect = " + std::string(co.dialect->name) +
      "\nelement_rounding = " + std::string(name(bo.rounding.value_or(co.dialect->block.element_rounding))) +
      "\nelement_saturation = " + std::string(name(bo.saturation.value_or(co.dialect->block.element_saturation))) +
      "\naccumulation = " + std::string(model->name()) + "\noutput = f32, rne, overflow to Inf" +
      "\ninput_distribution = (sum of 12 SplitMix64 draws >> 40, minus 6 * 2^24) * 2^-24, rounded to f32 rne; A row-major then B row-major" +
      "\npartial_block = the last block along K is padded with zeros (not stored)\nendianness = little\n";
  for (const FileInfo& f : files) {
    write_file(dir, f.name, *f.bytes);
    manifest += "file = " + f.name + " bytes=" + std::to_string(f.bytes->size()) + " sha256=" + sha256_hex(*f.bytes) +
                " layout: " + f.layout + "\n";
  }
  write_file(dir, "manifest.txt", std::vector<std::uint8_t>(manifest.begin(), manifest.end()));
  std::printf("wrote %s: C = A (%zu x %zu %s) x B (%zu x %zu %s), %zu-element blocks, %s accumulation; golden flags %s\n",
              dir.string().c_str(), M, K, std::string(format(fa).name).c_str(), K, N, std::string(format(fb).name).c_str(),
              blk, std::string(model->name()).c_str(), flags_words(all_flags).c_str());
  return 0;
}

}  // namespace softmx::cli
