// conformance/test_gen_runtime.cpp: vector files of runtime element formats (issue 14): `softmx
// gen quantize --to SPEC`, `gen dequantize --from SPEC`, `gen dot --a SPEC --b SPEC` write
// files whose headers name the canonical spec, and verify and identify read them back.
//
// Every data line of the generated files is recomputed by the MPFR oracle (conformance/oracles:
// its own decoder and rounding, no softmx code): a dequantized element is decode(code) *
// 2^(S - 127) rounded once into the destination; a quantized block's scale is floor(log2 amax)
// - emax (floor) or the smallest with max * 2^s >= amax (rceil), emax and max read from the
// oracle's decoding of every code, each element x * 2^-s rounded by the oracle; a dot is the
// exact sum rounded once into f32 (exact), or BLOCKS.md 5's f32 steps each rounded by the oracle
// (fp32-sequential). Lines the oracle does not model (a NaN or Inf input or code, a NaN scale,
// a zero sum whose sign is the products' rule, an fp32-sequential sum that overflows) are
// checked by `softmx verify` alone and counted apart.
//
// Planted bugs (each run once, then restored): the batched dot of gen (Evaluator::evaluate_dots)
// reading A's codes with B's element gives 113 MPFR mismatches in EveryLineAgainstMpfrAndVerify;
// the dot cases taking fnuz's NaN as the all-ones magnitude (0x7F, its max) fails
// LevelOneIsStructuredFromTheDescriptor (no 0x80 in A).
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "oracles/mpfr_oracle.hpp"
#include "softmx/block.hpp"
#include "softmx/format.hpp"
#include "softmx/vectors/reader.hpp"
#include "support/bridge.hpp"
#include "support/cli_run.hpp"
#include "support/mpfr_value.hpp"
#include "support/report.hpp"

using namespace softmx;
using namespace softmx::testing;

namespace {

using Mpfr = conformance::MpfrValue<256>;

std::string dir() {
  static const std::string d = scratch_dir("gen_runtime");
  return d;
}

/// `softmx gen ARGS -o FILE`, asserting exit 0; returns the file's path.
std::string gen(const std::string& args, const std::string& file) {
  const std::string path = dir() + "/" + file;
  const CliRun r = run_cli("gen " + args + " -o '" + path + "'");
  EXPECT_EQ(r.status, 0) << args << ": " << r.err;
  return path;
}

/// The oracle's largest finite value of an element and floor(log2) of it.
struct OracleElement {
  oracle::Desc d;
  int emax = 0;
  Mpfr max;
  explicit OracleElement(const Format& f) : d(conformance::to_oracle(f)) {
    Mpfr v;
    mpfr_set_zero(max.x, 1);
    for (std::uint64_t c = 0; c < (std::uint64_t{1} << f.width); ++c)
      if (oracle::decode(d, c, v.x) && mpfr_number_p(v.x) && mpfr_cmp(v.x, max.x) > 0) mpfr_set(max.x, v.x, MPFR_RNDN);
    emax = static_cast<int>(mpfr_get_exp(max.x)) - 1;
  }
};

struct LineCounts {
  std::uint64_t lines = 0, oracle = 0;  ///< all data lines; those the oracle recomputed
};

/// Recomputes every line of a quantize, dequantize or dot file with the oracle, under the
/// file's own header. Mismatches go to `t`.
LineCounts check_with_mpfr(const std::string& path, conformance::Tally& t) {
  auto reader = vec::VectorReader::open(path);
  const vec::Header& h = reader->header();
  const oracle::Policies pol = conformance::to_oracle(ocp_dialect());
  const oracle::Mode om = conformance::to_oracle(h.ctx.rounding);
  const oracle::Sat os = conformance::to_oracle(h.ctx.saturation);
  const oracle::Tiny ot = conformance::to_oracle(h.ctx.tininess);
  const oracle::Desc f32d = conformance::to_oracle(format(FormatId::f32));
  std::unique_ptr<OracleElement> element;
  if (h.operation == vec::Operation::dequantize) element = std::make_unique<OracleElement>(h.from);
  if (h.operation == vec::Operation::quantize) element = std::make_unique<OracleElement>(h.to);
  LineCounts n;
  vec::Record r;
  while (reader->next(r)) {
    ++n.lines;
    const std::string where = reader->where();
    switch (h.operation) {
      case vec::Operation::dequantize: {
        const OracleElement& el = *element;
        const oracle::Desc dd = conformance::to_oracle(format(h.to));
        Mpfr v;
        if (r.operands[0] == 0xFF || !oracle::decode(el.d, r.operands[1], v.x) || !mpfr_number_p(v.x)) break;
        mpfr_mul_2si(v.x, v.x, static_cast<long>(r.operands[0]) - 127, MPFR_RNDN);  // exact
        const oracle::Outcome w = oracle::round_value_all(v.x, dd, pol).at(om, os, ot);
        ++n.oracle;
        t.check(r.results[0] == w.code && r.flags == w.flags, [&] {
          std::ostringstream o;
          o << std::hex << where << ": OUT " << r.results[0] << "/" << int(r.flags) << ", oracle " << w.code << "/"
            << int(w.flags);
          return o.str();
        });
        break;
      }
      case vec::Operation::quantize: {
        const OracleElement& el = *element;
        const std::size_t k = h.block;
        const oracle::Desc sd = conformance::to_oracle(format(h.from));
        std::vector<Mpfr> x(k);
        bool finite = true;
        Mpfr amax;
        mpfr_set_zero(amax.x, 1);
        for (std::size_t i = 0; i < k; ++i) {
          oracle::decode(sd, r.operands[i], x[i].x);
          finite &= mpfr_number_p(x[i].x) != 0;
          if (finite && mpfr_cmpabs(x[i].x, amax.x) > 0) mpfr_abs(amax.x, x[i].x, MPFR_RNDN);
        }
        if (!finite) break;
        int s = -127;  // an all-zero block (ocp: the smallest scale)
        if (!mpfr_zero_p(amax.x)) {
          if (h.scale == ScaleRule::floor) {
            s = static_cast<int>(mpfr_get_exp(amax.x)) - 1 - el.emax;
          } else if (h.scale == ScaleRule::rceil) {
            s = static_cast<int>(mpfr_get_exp(amax.x)) - static_cast<int>(mpfr_get_exp(el.max.x)) - 1;
            for (;; ++s) {
              Mpfr m;
              mpfr_mul_2si(m.x, el.max.x, s, MPFR_RNDN);
              if (mpfr_cmp(m.x, amax.x) >= 0) break;
            }
          } else {
            ADD_FAILURE() << "the oracle models the floor and rceil rules only";
            break;
          }
        }
        s = std::clamp(s, -127, 127);
        ++n.oracle;
        std::ostringstream why;
        bool ok = r.results[0] == static_cast<std::uint64_t>(s + 127);
        if (!ok) why << " SCALE " << r.results[0] << " oracle " << s + 127;
        Flags flags = 0;
        for (std::size_t i = 0; i < k; ++i) {
          mpfr_mul_2si(x[i].x, x[i].x, -s, MPFR_RNDN);  // exact; keeps the sign of zero
          const oracle::Outcome w = oracle::round_value_all(x[i].x, el.d, pol).at(om, os, ot);
          flags |= w.flags;
          if (r.results[1 + i] != w.code) {
            ok = false;
            why << " OUT_" << i + 1 << " " << r.results[1 + i] << " oracle " << w.code;
          }
        }
        if (r.flags != flags) {
          ok = false;
          why << " FLAGS " << int(r.flags) << " oracle " << int(flags);
        }
        t.check(ok, [&] { return where + ":" + why.str(); });
        break;
      }
      case vec::Operation::dot: {
        const std::size_t k = h.block, pairs = h.blocks;
        const oracle::Desc da = conformance::to_oracle(format(h.from)), db = conformance::to_oracle(format(h.to));
        Mpfr sum(2048), a(2048), b(2048);
        mpfr_set_zero(sum.x, 1);
        bool modelled = true;
        for (std::size_t j = 0; j < pairs && modelled; ++j) {
          const std::uint64_t* o = r.operands.data() + j * (2 * k + 2);
          modelled = o[0] != 0xFF && o[1 + k] != 0xFF;
          for (std::size_t i = 0; i < k && modelled; ++i) {
            modelled = oracle::decode(da, o[1 + i], a.x) && oracle::decode(db, o[2 + k + i], b.x) &&
                       mpfr_number_p(a.x) && mpfr_number_p(b.x);
            mpfr_mul(a.x, a.x, b.x, MPFR_RNDN);
            mpfr_mul_2si(a.x, a.x, static_cast<long>(o[0] + o[1 + k]) - 254, MPFR_RNDN);
            mpfr_add(sum.x, sum.x, a.x, MPFR_RNDN);  // exact at 2048 bits
          }
        }
        if (!modelled) break;
        oracle::Outcome w;
        Flags extra = 0;
        if (h.accumulation == "exact") {
          if (mpfr_zero_p(sum.x)) break;  // the zero's sign is the products' rule (BLOCKS.md 5)
          w = oracle::round_value_all(sum.x, f32d, pol).at(om, os, ot);
        } else {  // fp32-sequential, BLOCKS.md 5 step by step
          Mpfr acc(2048), s(2048), d(2048);
          mpfr_set_zero(acc.x, 1);
          auto round_f32 = [&](mpfr_ptr v) {
            const oracle::Outcome o = oracle::round_value_all(v, f32d, pol).at(om, os, ot);
            extra |= o.flags;
            oracle::decode(f32d, o.code, v);
          };
          for (std::size_t j = 0; j < pairs; ++j) {
            const std::uint64_t* o = r.operands.data() + j * (2 * k + 2);
            mpfr_set_zero(s.x, 1);
            for (std::size_t i = 0; i < k; ++i) {
              oracle::decode(da, o[1 + i], a.x);
              oracle::decode(db, o[2 + k + i], b.x);
              mpfr_mul(a.x, a.x, b.x, MPFR_RNDN);
              mpfr_add(s.x, s.x, a.x, h.ctx.rounding == Rounding::rd ? MPFR_RNDD : MPFR_RNDN);
              round_f32(s.x);
            }
            mpfr_mul_2si(d.x, s.x, static_cast<long>(o[0] + o[1 + k]) - 254, MPFR_RNDN);
            round_f32(d.x);
            mpfr_add(acc.x, acc.x, d.x, MPFR_RNDN);
            round_f32(acc.x);
          }
          if (mpfr_inf_p(acc.x) || mpfr_zero_p(acc.x)) break;
          w = oracle::round_value_all(acc.x, f32d, pol).at(om, os, ot);
        }
        ++n.oracle;
        t.check(r.results[0] == w.code && r.flags == (w.flags | extra), [&] {
          std::ostringstream o;
          o << std::hex << where << ": OUT " << r.results[0] << "/" << int(r.flags) << ", oracle " << w.code << "/"
            << int(w.flags | extra);
          return o.str();
        });
        break;
      }
      default:
        ADD_FAILURE() << "not a block operation";
        return n;
    }
  }
  return n;
}

// Every line of level-1 and level-2 files of runtime elements against MPFR, then verify (every
// line recomputed by the library, complete) and identify (rank 1 holds the header's settings).
TEST(GenRuntime, EveryLineAgainstMpfrAndVerify) {
  struct File {
    std::string args, name;
  };
  const std::vector<File> files = {
      {"dequantize --from e1m2", "deq-e1m2.vec"},
      {"dequantize --from e4m3fnuz --to bf16", "deq-e4m3fnuz-bf16.vec"},
      {"dequantize --from int4 --to f16", "deq-int4-f16.vec"},
      {"dequantize --from e4m3:bias=11:specials=fnuz", "deq-e4m3b11fnuz.vec"},
      {"dequantize --from e2m2 --to f64", "deq-e2m2-f64.vec"},
      {"quantize --to e1m2 --level 2 --count 60", "q-e1m2.vec"},
      {"quantize --to e2m2 --scale rceil --round rz", "q-e2m2.vec"},
      {"quantize --to e4m3fnuz --level 2 --count 60 --sat none", "q-e4m3fnuz.vec"},
      {"quantize --to int4 --from bf16 --block 8", "q-int4.vec"},
      {"quantize --to e3m4 --round ru", "q-e3m4.vec"},
      {"dot --a e1m2 --b e2m2 --level 2 --count 80", "dot-e1m2-e2m2.vec"},
      {"dot --a e4m3fnuz --b e3m4 --acc fp32-sequential --level 2 --count 80", "dot-fnuz-e3m4.vec"},
      {"dot --a int4 --b e4m3:bias=11:specials=fnuz --blocks 3 --block 4", "dot-int4-b11.vec"},
      {"dot --a e1m1 --b e4m3 --acc fp32-sequential --round rz --block 8 --blocks 2", "dot-e1m1-e4m3.vec"},
  };
  conformance::Tally t("mpfr: every line of gen files of runtime elements (quantize, dequantize, dot)");
  std::uint64_t lines = 0, oracle = 0;
  for (const File& f : files) {
    const std::string path = gen(f.args, f.name);
    const LineCounts n = check_with_mpfr(path, t);
    EXPECT_GT(n.lines, 0u) << f.args;
    lines += n.lines;
    oracle += n.oracle;
    const CliRun v = run_cli("verify '" + path + "'");
    EXPECT_EQ(v.status, 0) << f.args << ": " << v.out << v.err;
    EXPECT_NE(v.out.find("all match"), std::string::npos) << v.out;
    EXPECT_NE(v.out.find("complete: every one of the"), std::string::npos) << v.out;
    if (f.args.rfind("dequantize", 0) != 0) {  // identify on the smaller files
      const CliRun id = run_cli("identify '" + path + "'");
      EXPECT_EQ(id.status, 0) << id.err;
      EXPECT_NE(id.out.find("the header's own settings"), std::string::npos) << f.args << ": " << id.out;
    }
  }
  t.report();
  std::printf("[ lines    ] %llu lines in %zu files, %llu recomputed by MPFR, %llu by verify alone (specials)\n",
              static_cast<unsigned long long>(lines), files.size(), static_cast<unsigned long long>(oracle),
              static_cast<unsigned long long>(lines - oracle));
  EXPECT_EQ(t.mismatches(), 0u);
  EXPECT_GT(oracle, lines * 9 / 10);
}

// The header names the canonical spec, and a spec whose fields equal a named format's is that
// format: its file is the named format's, byte for byte (the cases come from the descriptor,
// with no special case for either).
TEST(GenRuntime, HeadersNameTheCanonicalSpec) {
  const std::string b11 = slurp(gen("dot --a e4m3:bias=11:specials=fnuz --b float8_e4m3fnuz", "canon.vec"));
  EXPECT_NE(b11.find("\na = e4m3b11fnuz\n"), std::string::npos) << b11.substr(0, 300);
  EXPECT_NE(b11.find("\nb = e4m3fnuz\n"), std::string::npos);
  const std::string q = slurp(gen("quantize --to E2M2", "canon-q.vec"));
  EXPECT_NE(q.find("\nto = e2m2\n"), std::string::npos);
  EXPECT_EQ(slurp(gen("quantize --to e4m3:specials=fn --level 2 --count 20", "named-a.vec")),
            slurp(gen("quantize --to e4m3 --level 2 --count 20", "named-b.vec")));
  EXPECT_EQ(slurp(gen("dot --a e2m1:bias=1 --b int8", "named-c.vec")), slurp(gen("dot --a e2m1 --b int8", "named-d.vec")));
  EXPECT_EQ(slurp(gen("dequantize --from e3m2:specials=none", "named-e.vec")), slurp(gen("dequantize --from e3m2", "named-f.vec")));
}

// The level-1 sets are built from the descriptor as for the named formats: dequantize holds
// every scale x every code; quantize's element results reach every magnitude code of an element
// of at most 31 magnitudes (the tie block's k - 2 = 30 ties reach each; an 8-bit element's, as
// e4m3's, are sampled evenly: e4m3fnuz reaches 113 of its 128); dot holds the format's specials (fnuz's NaN 80, e3m4's Inf 70 and
// NaN 78) and its extremes (max x max).
TEST(GenRuntime, LevelOneIsStructuredFromTheDescriptor) {
  for (const char* spec : {"e1m2", "e2m2", "int4", "e4m3fnuz"}) {
    const Format f = parse_format_spec(spec);
    auto rd = vec::VectorReader::open(gen(std::string("dequantize --from ") + spec, "l1-deq.vec"));
    std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
    vec::Record r;
    while (rd->next(r)) seen.emplace(r.operands[0], r.operands[1]);
    EXPECT_EQ(seen.size(), 256u << f.width) << spec;
    auto rq = vec::VectorReader::open(gen(std::string("quantize --to ") + spec, "l1-q.vec"));
    std::set<std::uint64_t> mags;
    const std::uint64_t sign = f.sign == SignEncoding::magnitude ? std::uint64_t{1} << (f.width - 1) : 0;
    while (rq->next(r))
      for (std::size_t i = 1; i < r.results.size(); ++i)
        mags.insert(f.sign == SignEncoding::twos_complement && (r.results[i] & (std::uint64_t{1} << (f.width - 1)))
                        ? (f.code_mask() + 1 - r.results[i]) & f.code_mask()
                        : r.results[i] & ~sign);
    if (f.max_finite_magnitude() <= 31) {
      for (std::uint64_t m = 0; m <= f.max_finite_magnitude(); ++m) EXPECT_TRUE(mags.count(m)) << spec << " magnitude " << m;
    } else {
      EXPECT_GE(mags.size(), 100u) << spec;
    }
  }
  auto has_code = [](const std::string& path, bool a_side, std::uint64_t code) {
    auto rd = vec::VectorReader::open(path);
    const std::size_t k = rd->header().block;
    vec::Record r;
    while (rd->next(r))
      for (std::size_t i = 0; i < k; ++i)
        if (r.operands[(a_side ? 1 : 2 + k) + i] == code) return true;
    return false;
  };
  const std::string d1 = gen("dot --a e4m3fnuz --b e3m4", "l1-dot.vec");
  EXPECT_TRUE(has_code(d1, true, 0x80));   // fnuz NaN
  EXPECT_TRUE(has_code(d1, true, 0x7F));   // fnuz max
  EXPECT_TRUE(has_code(d1, false, 0x70));  // e3m4 +Inf
  EXPECT_TRUE(has_code(d1, false, 0x78));  // e3m4 quiet NaN
  EXPECT_TRUE(has_code(d1, false, 0x6F));  // e3m4 max finite
  const std::string d2 = gen("dot --a e1m2 --b int4", "l1-dot2.vec");
  EXPECT_TRUE(has_code(d2, true, 0x7));   // e1m2 max 1.75
  EXPECT_TRUE(has_code(d2, true, 0xF));   // -max
  EXPECT_TRUE(has_code(d2, false, 0x7));  // int4 max 7/4
}

// verify catches a changed result in a runtime file, naming the line; a header naming a spec
// that cannot be an element is refused naming the key.
TEST(GenRuntime, VerifyCatchesAChangeAndBadHeadersAreRefused) {
  const std::string path = gen("quantize --to e1m2 --block 4", "change.vec");
  std::string text = slurp(path);
  // The first data line's SCALE (after the 4 inputs) changed by one.
  const std::size_t hdr_end = text.find("\n", text.find("# IN_1")) + 1;
  const std::size_t eol = text.find('\n', hdr_end);
  std::istringstream fields(text.substr(hdr_end, eol - hdr_end));
  std::vector<std::string> f;
  for (std::string x; fields >> x;) f.push_back(x);
  ASSERT_GE(f.size(), 6u);
  f[4] = f[4] == "7F" ? "7E" : "7F";
  std::string line;
  for (const auto& x : f) line += (line.empty() ? "" : " ") + x;
  text.replace(hdr_end, eol - hdr_end, line);
  const std::string changed = dir() + "/changed.vec";
  write_file(changed, text);
  const CliRun v = run_cli("verify '" + changed + "'");
  EXPECT_EQ(v.status, 1) << v.out << v.err;
  EXPECT_NE(v.out.find("changed.vec line"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("1 mismatch"), std::string::npos) << v.out;
  // A header whose element a block cannot hold.
  std::string bad = slurp(path);
  bad.replace(bad.find("to = e1m2"), 9, "to = e5m3");
  write_file(dir() + "/bad.vec", bad);
  const CliRun b = run_cli("verify '" + dir() + "/bad.vec'");
  EXPECT_EQ(b.status, 2);
  EXPECT_NE(b.err.find("width: 9 bits"), std::string::npos) << b.err;
  bad = slurp(path);
  bad.replace(bad.find("to = e1m2"), 9, "to = e1m2:bias=2000");
  write_file(dir() + "/bad2.vec", bad);
  const CliRun b2 = run_cli("verify '" + dir() + "/bad2.vec'");
  EXPECT_EQ(b2.status, 2);
  EXPECT_NE(b2.err.find("bias"), std::string::npos) << b2.err;
  EXPECT_NE(b2.err.find("'to'"), std::string::npos) << b2.err;
}

// diff compares run tables (convert: vectors/README.md 5); those of runtime formats name the
// spec and are read back as any other: a table against itself is identical, rne against rz
// differs from the first tie on, each range decomposed in the runtime formats.
TEST(GenRuntime, DiffReadsRuntimeRunTables) {
  const std::string a = dir() + "/rne.tbl", b = dir() + "/rz.tbl";
  ASSERT_EQ(run_cli("sweep --from e4m3fnuz --to e1m2 --threads 1 -o '" + a + "'").status, 0);
  ASSERT_EQ(run_cli("sweep --from e4m3fnuz --to e1m2 --round rz --threads 1 -o '" + b + "'").status, 0);
  EXPECT_NE(slurp(a).find("\nfrom = e4m3fnuz\nto = e1m2\n"), std::string::npos);
  const CliRun same = run_cli("diff '" + a + "' '" + a + "'");
  EXPECT_EQ(same.status, 0) << same.err;
  EXPECT_NE(same.out.find("identical: all 256 inputs"), std::string::npos) << same.out;
  const CliRun d = run_cli("diff '" + a + "' '" + b + "'");
  EXPECT_EQ(d.status, 1) << d.err;
  // e4m3fnuz 0x29 = 0.140625 lies between e1m2's 0 and 0.25 above their midpoint: rne 1, rz 0.
  EXPECT_NE(d.out.find("RANGE 29..2F (7 inputs): A 1 03  B 0 03"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("convert e4m3fnuz -> e1m2 rz satfinite"), std::string::npos) << d.out;
}

}  // namespace
