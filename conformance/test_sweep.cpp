// conformance/test_sweep.cpp: run tables end to end: `softmx sweep`, `softmx merge`,
// `softmx diff`, and the engine behind them (softmx/vectors/run_table.hpp).
//
// Every table a sweep writes is expanded back to one result per input and compared with
// softmx::convert on every input it covers (all 2^16 of a 16-bit source, a 2^26 shard of f32):
// so a table that drops, shifts or mislabels a run fails here. The output must not depend on
// the thread count or chunking, shards merged in any order must give the whole sweep's bytes,
// and diff's ranges must be exactly the brute-force set of disagreeing inputs. No full 2^32
// sweep runs here (bench_sweep and the sweep label do those).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "softmx/convert.hpp"
#include "support/cli_run.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/run_table.hpp"

namespace {

using softmx::Context;
using softmx::FormatId;
using softmx::Result;
using softmx::Rounding;
using softmx::Saturation;
using softmx::hex;
using softmx::testing::CliRun;
using softmx::testing::run_cli;
using softmx::testing::slurp;
using softmx::testing::write_file;
namespace vec = softmx::vec;

// ---- helpers ---------------------------------------------------------------------------------------

/// This test process's scratch folder (each test runs in its own process).
std::string path(const std::string& name) {
  static const std::string dir = softmx::testing::scratch_dir("sweep");
  return dir + "/" + name;
}

std::string quoted(const std::string& p) { return "'" + p + "'"; }

void expect_error(const CliRun& r, std::initializer_list<std::string> fragments) {
  EXPECT_EQ(r.status, 2) << r.err;
  for (const std::string& f : fragments) EXPECT_NE(r.err.find(f), std::string::npos) << "want '" << f << "' in: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
}

/// The data lines of a table (after the header and comments), as text.
std::vector<std::string> data_lines(const std::string& table) {
  std::vector<std::string> lines;
  std::istringstream in(table);
  bool data = false;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (!data && line.find('=') != std::string::npos) continue;
    data = true;
    lines.push_back(line);
  }
  return lines;
}

/// Checks a run table against softmx::convert on every input it covers (expected conversion:
/// from, to, ctx, dialect), that it is canonical (no two neighbours with the same OUT and
/// FLAGS) and that its header says what was computed.
void expect_table_is_convert(const std::string& table, FormatId from, FormatId to, const Context& ctx,
                             const std::string& dialect, std::uint64_t first, std::uint64_t last) {
  auto r = vec::VectorReader::from_string(table, "table");
  const vec::Header& h = r->header();
  ASSERT_EQ(h.layout, vec::Layout::runs);
  EXPECT_EQ(h.from, from);
  EXPECT_EQ(h.to, to);
  EXPECT_EQ(h.ctx.rounding, ctx.rounding);
  EXPECT_EQ(h.ctx.saturation, ctx.saturation);
  EXPECT_EQ(h.ctx.tininess, ctx.tininess);
  EXPECT_EQ(h.dialect, dialect);
  EXPECT_EQ(h.first, first);
  EXPECT_EQ(h.last, last);
  EXPECT_EQ(h.level, "exhaustive");
  EXPECT_EQ(h.generator, "softmx 0.1.0");
  EXPECT_NE(table.find("\n# FIRST OUT FLAGS\n"), std::string::npos);
  const softmx::Dialect& d = *softmx::find_dialect(dialect);
  std::uint64_t bad = 0, covered = 0, lines = 0;
  std::optional<vec::Run> prev;
  vec::Run run;
  while (r->next_run(run)) {
    ++lines;
    ASSERT_TRUE(run.has_flags);
    if (prev) {
      EXPECT_FALSE(prev->code == run.code && prev->flags == run.flags) << "not canonical at " << hex(run.first, 8);
    }
    for (std::uint64_t x = run.first; x <= run.last; ++x) {
      const Result want = softmx::convert(from, to, x, ctx, d);
      if (want.code != run.code || want.flags != run.flags) {
        if (++bad <= 5)
          ADD_FAILURE() << "input " << hex(x, 8) << ": table " << hex(run.code, 4) << " " << hex(run.flags, 2)
                        << ", convert " << hex(want.code, 4) << " " << hex(want.flags, 2);
      }
    }
    covered += run.last - run.first + 1;
    prev = run;
  }
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(covered, last - first + 1);
  EXPECT_GT(lines, 0u);
}

Context context(Rounding r = Rounding::rne, Saturation s = Saturation::finite) {
  Context c;
  c.rounding = r;
  c.saturation = s;
  return c;
}

/// softmx sweep ARGS -o FILE; returns the file's text.
std::string sweep_to_file(const std::string& args, const std::string& name) {
  const CliRun r = run_cli("sweep " + args + " -o " + quoted(path(name)));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "") << "no progress unless stderr is a terminal";
  return slurp(path(name));
}

/// The RANGE lines diff must print for tables A and B of one source: brute force over every input.
std::vector<std::string> expected_ranges(FormatId from, FormatId to, const Context& ca, const char* da, const Context& cb,
                                         const char* db, bool flags) {
  const softmx::Format& src = softmx::format(from);
  const softmx::Format& dst = softmx::format(to);
  const softmx::Converter a(from, to, ca, *softmx::find_dialect(da)), b(from, to, cb, *softmx::find_dialect(db));
  struct Open {
    std::uint64_t first, last;
    Result a, b;
  };
  std::optional<Open> open;
  std::vector<std::string> lines;
  auto fields = [&](const Result& r) { return hex(r.code, dst.hex_digits()) + (flags ? " " + hex(r.flags, 2) : ""); };
  auto close = [&] {
    const std::uint64_t n = open->last - open->first + 1;
    lines.push_back("RANGE " + hex(open->first, src.hex_digits()) + ".." + hex(open->last, src.hex_digits()) + " (" +
                    std::to_string(n) + (n == 1 ? " input" : " inputs") + "): A " + fields(open->a) + "  B " +
                    fields(open->b));
    open.reset();
  };
  for (std::uint64_t x = 0; x <= src.code_mask(); ++x) {
    Result ra = a(x), rb = b(x);
    if (!flags) ra.flags = rb.flags = 0;
    if (ra == rb) {
      if (open) close();
      continue;
    }
    if (open && open->last + 1 == x && open->a == ra && open->b == rb) {
      open->last = x;
      continue;
    }
    if (open) close();
    open = Open{x, x, ra, rb};
  }
  if (open) close();
  return lines;
}

std::vector<std::string> range_lines(const std::string& diff_output) {
  std::vector<std::string> lines;
  std::istringstream in(diff_output);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("RANGE ", 0) == 0) lines.push_back(line);
  return lines;
}

/// A table's text with FLAGS removed from every data line (a device without flags).
std::string without_flags(const std::string& table) {
  std::string out;
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#' && line.find('=') == std::string::npos) line = line.substr(0, line.rfind(' '));
    if (line == "# FIRST OUT FLAGS") line = "# FIRST OUT";
    out += line + "\n";
  }
  return out;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// No temporary file of an OutputFile (".NAME.tmpPID") is left in the scratch folder.
void expect_no_temporaries() {
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(path("x")).parent_path()))
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << "left behind: " << e.path();
}

// ---- sweep: the table is the function ----------------------------------------------------------------

struct SweepCase {
  std::string args;
  FormatId from, to;
  Context ctx;
  std::string dialect;
};

class SweepExpands : public ::testing::TestWithParam<SweepCase> {};

TEST_P(SweepExpands, EveryInputEqualsConvert) {
  const SweepCase& c = GetParam();
  const std::string table = sweep_to_file(c.args, "table.txt");
  expect_table_is_convert(table, c.from, c.to, c.ctx, c.dialect, 0, softmx::format(c.from).code_mask());
}

INSTANTIATE_TEST_SUITE_P(
    Sources, SweepExpands,
    ::testing::Values(
        SweepCase{"--from f16 --to e4m3", FormatId::f16, FormatId::e4m3, context(), "ocp"},
        SweepCase{"--from f16 --to e4m3 --sat none --dialect cuda", FormatId::f16, FormatId::e4m3,
                  context(Rounding::rne, Saturation::none), "cuda"},
        SweepCase{"--from bf16 --to e2m1", FormatId::bf16, FormatId::e2m1, context(), "ocp"},
        SweepCase{"--from bf16 --to e2m1 --round rz --dialect cuda", FormatId::bf16, FormatId::e2m1, context(Rounding::rz),
                  "cuda"},
        // Into f64, f32, f16 and bf16 the default saturation is none (SEMANTICS 4.1): E5M2 Inf stays Inf.
        SweepCase{"--from e5m2 --to f16", FormatId::e5m2, FormatId::f16, context(Rounding::rne, Saturation::none), "ocp"},
        SweepCase{"--from e4m3 --to bf16 --dialect cuda", FormatId::e4m3, FormatId::bf16,
                  context(Rounding::rne, Saturation::none), "cuda"},
        // cuda's E8M0 default is ru: the dialect's defaults must reach the header.
        SweepCase{"--from f16 --to e8m0 --dialect cuda", FormatId::f16, FormatId::e8m0, context(Rounding::ru), "cuda"},
        SweepCase{"--from bf16 --to int8 --round rna --tininess before", FormatId::bf16, FormatId::int8,
                  [] {
                    Context c = context(Rounding::rna);
                    c.tininess = softmx::Tininess::before_rounding;
                    return c;
                  }(),
                  "ocp"},
        SweepCase{"--from e2m1 --to f32", FormatId::e2m1, FormatId::f32, context(Rounding::rne, Saturation::none), "ocp"},
        SweepCase{"--from e3m2 --to e2m3 --round ro --sat none", FormatId::e3m2, FormatId::e2m3,
                  context(Rounding::ro, Saturation::none), "ocp"},
        SweepCase{"--from f16 --to f32", FormatId::f16, FormatId::f32, context(Rounding::rne, Saturation::none), "ocp"},
        SweepCase{"--from e8m0 --to f16 --dialect ml_dtypes", FormatId::e8m0, FormatId::f16,
                  context(Rounding::rne, Saturation::none), "ml_dtypes"}),
    [](const ::testing::TestParamInfo<SweepCase>& i) { return std::to_string(i.index); });

// A shard of f32 (2^26 inputs, 64 chunks), every input against scalar convert; the bytes do not
// depend on the thread count.
TEST(Sweep, F32ShardEqualsConvertAndThreadsDoNotMatter) {
  const std::string two = sweep_to_file("--from f32 --to e5m2 --shard 3/64 --threads 2", "shard2.txt");
  expect_table_is_convert(two, FormatId::f32, FormatId::e5m2, context(), "ocp", 0x0C000000, 0x0FFFFFFF);
  const std::string one = sweep_to_file("--from f32 --to e5m2 --shard 3/64 --threads 1", "shard1.txt");
  EXPECT_EQ(one, two);
  EXPECT_NE(two.find("first = 0C000000\nlast = 0FFFFFFF\n"), std::string::npos);
}

TEST(Sweep, StdoutAndFileAgree) {
  const CliRun r = run_cli("sweep --from bf16 --to e4m3 --out " + quoted(path("out.txt")));
  ASSERT_EQ(r.status, 0) << r.err;
  const CliRun s = run_cli("sweep --from bf16 --to e4m3");
  ASSERT_EQ(s.status, 0) << s.err;
  EXPECT_EQ(slurp(path("out.txt")), s.out);
  EXPECT_EQ(s.out.rfind("softmx-vectors = 1\noperation = convert\nlayout = runs\nfrom = bf16\nto = e4m3\n", 0), 0u);
}

TEST(Sweep, UsageErrors) {
  expect_error(run_cli("sweep --from f64 --to e4m3"), {"f64", "2^64"});
  expect_error(run_cli("sweep --from f32 --to e4m3 --round rs"), {"rs"});
  expect_error(run_cli("sweep --to e4m3"), {"--from"});
  expect_error(run_cli("sweep --from f16 --to e4m3 --shard 64/64"), {"--shard", "64/64"});
  expect_error(run_cli("sweep --from f16 --to e4m3 --shard 1/0"), {"--shard"});
  expect_error(run_cli("sweep --from f16 --to e4m3 --shard a/b"), {"--shard"});
  expect_error(run_cli("sweep --from e2m1 --to f16 --shard 3/17"), {"2^4"});
  expect_error(run_cli("sweep --from f16 --to e4m3 --threads 0"), {"--threads"});
  expect_error(run_cli("sweep --from f16 --to e4m3 --round rz --dialect cuda"), {"cuda", "rz"});
  expect_error(run_cli("sweep --from f16 --to e4m3 -o a.txt --out b.txt"), {"-o or --out"});
  expect_error(run_cli("sweep --from f16 --to e4m3 -o"), {"-o"});
  expect_error(run_cli("sweep --from f16 --to e4m3 extra"), {"extra"});
}

// -o writes through a temporary renamed at the end: a failed run leaves the target as it was
// and no temporary behind.
TEST(Sweep, OutputIsAtomic) {
  write_file(path("keep.txt"), "precious\n");
  const CliRun r = run_cli("sweep --from f16 --to e4m3 --round rz --dialect cuda -o " + quoted(path("keep.txt")));
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(slurp(path("keep.txt")), "precious\n");
  expect_no_temporaries();
  // A merge that fails on a data line, after the output was opened and the header written.
  const std::string good = sweep_to_file("--from f16 --to e4m3 --shard 0/2", "g0.txt");
  // The second table goes wrong in the middle, after its header and first runs were accepted.
  std::string bad = sweep_to_file("--from f16 --to e4m3 --shard 1/2", "g1.txt");
  const auto lines = data_lines(bad);
  const std::string pair = lines[40] + "\n" + lines[41] + "\n";
  bad.replace(bad.find(pair), pair.size(), lines[41] + "\n" + lines[40] + "\n");
  write_file(path("bad1.txt"), bad);
  const CliRun m = run_cli("merge -o " + quoted(path("keep.txt")) + " " + quoted(path("g0.txt")) + " " + quoted(path("bad1.txt")));
  EXPECT_EQ(m.status, 2) << m.err;
  EXPECT_NE(m.err.find("bad1.txt line"), std::string::npos) << m.err;
  EXPECT_EQ(slurp(path("keep.txt")), "precious\n");
  expect_no_temporaries();
}

// ---- the engine ------------------------------------------------------------------------------------------

TEST(SweepEngine, ShardsPartitionTheInputs) {
  for (int w : {4, 6, 8, 16, 32}) {
    const std::uint64_t all = std::uint64_t{1} << w;
    for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{3}, std::uint64_t{7}, std::uint64_t{16}, all}) {
      if (n > all) continue;
      std::uint64_t next = 0;
      for (std::uint64_t i = 0; i < n; i += std::max<std::uint64_t>(1, n / 97)) {
        const vec::InputRange r = vec::shard_range(w, i, n);
        EXPECT_EQ(r.first, (i * all) / n) << w << " " << i << "/" << n;
        EXPECT_EQ(r.last + 1, ((i + 1) * all) / n) << w << " " << i << "/" << n;
        if (n <= 97) {
          EXPECT_EQ(r.first, next);
          next = r.last + 1;
        }
      }
      if (n <= 97) {
        EXPECT_EQ(next, all);
      }
    }
  }
}

// Chunk size, window and threads change only the schedule: the bytes stay the same, also when
// chunks hold single inputs and are handed on out of the order they finish in.
TEST(SweepEngine, ScheduleDoesNotChangeTheTable) {
  const vec::Header h =
      vec::sweep_header(FormatId::f16, FormatId::e5m2, context(Rounding::rna), "ocp", vec::InputRange{0, 0xFFFF});
  std::string reference;
  vec::SweepOptions one;
  one.threads = 1;
  const std::uint64_t lines = vec::sweep_table(h, one, reference);
  EXPECT_EQ(lines, data_lines(reference).size());
  for (auto [threads, chunk, window] : {std::tuple{2u, std::uint64_t{1}, 1u}, std::tuple{3u, std::uint64_t{7}, 2u},
                                        std::tuple{4u, std::uint64_t{4096}, 0u}, std::tuple{2u, std::uint64_t{65535}, 3u}}) {
    vec::SweepOptions o;
    o.threads = threads;
    o.chunk = chunk;
    o.window = window;
    std::uint64_t calls = 0, last_done = 0;
    o.progress = [&](std::uint64_t done, std::uint64_t total) {
      ++calls;
      EXPECT_GT(done, last_done);
      EXPECT_EQ(total, 0x10000u);
      last_done = done;
    };
    std::string t;
    vec::sweep_table(h, o, t);
    EXPECT_EQ(t, reference) << threads << " threads, chunk " << chunk << ", window " << window;
    EXPECT_EQ(calls, (0x10000 + chunk - 1) / chunk);
    EXPECT_EQ(last_done, 0x10000u);
  }
}

// An error in the consumer stops the workers and propagates (no hang, no lost exception).
TEST(SweepEngine, SinkErrorStopsTheWorkers) {
  const vec::Header h = vec::sweep_header(FormatId::f32, FormatId::e4m3, context(), "ocp", vec::InputRange{0, 0x3FFFFFF});
  vec::SweepOptions o;
  o.threads = 2;
  o.chunk = 1 << 16;
  std::uint64_t runs = 0;
  EXPECT_THROW(vec::sweep(h, o, [&](const vec::Run&) {
                 if (++runs == 10) throw std::runtime_error("disk full");
               }),
               std::runtime_error);
}

TEST(SweepEngine, WriterJoinsEqualNeighbours) {
  vec::Header h = vec::sweep_header(FormatId::e2m1, FormatId::f16, context(), "ocp", vec::InputRange{0, 0xF});
  std::string t;
  vec::RunTableWriter w(h, true, t);
  w.add(vec::Run{0, 3, 0x3C00, true, 0});
  w.add(vec::Run{4, 4, 0x3C00, true, 0});   // joined
  w.add(vec::Run{5, 9, 0x3C00, true, 1});   // flags differ: a new line
  w.add(vec::Run{10, 15, 0x4000, true, 1});
  EXPECT_THROW(w.add(vec::Run{15, 15, 0, true, 0}), std::logic_error);  // does not continue
  w.finish();
  EXPECT_EQ(data_lines(t), (std::vector<std::string>{"0 3C00 00", "5 3C00 01", "A 4000 01"}));
  EXPECT_EQ(w.lines(), 3u);
  std::string u;
  vec::RunTableWriter short_writer(h, false, u);
  short_writer.add(vec::Run{0, 3, 1, false, 0});
  EXPECT_THROW(short_writer.finish(), std::logic_error);  // stops before last
}

// ---- merge ------------------------------------------------------------------------------------------------

TEST(Merge, SixtyFourShardsInAnyOrderGiveTheWholeSweep) {
  const std::string whole = sweep_to_file("--from f16 --to e4m3 --round rz --sat none", "whole.txt");
  std::vector<std::string> shards;
  for (int i = 0; i < 64; ++i) {
    const std::string name = "s" + std::to_string(i) + ".txt";
    sweep_to_file("--from f16 --to e4m3 --round rz --sat none --shard " + std::to_string(i) + "/64", name);
    shards.push_back(quoted(path(name)));
  }
  std::mt19937 rng(20240601);
  std::shuffle(shards.begin(), shards.end(), rng);
  std::string args;
  for (const std::string& s : shards) args += " " + s;
  const CliRun r = run_cli("merge -o " + quoted(path("merged.txt")) + args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(path("merged.txt")), whole);
  // To standard output, and with uneven shards (3 of 2^16).
  const CliRun s = run_cli("merge" + args);
  EXPECT_EQ(s.out, whole);
  std::string thirds;
  for (int i : {2, 0, 1}) {
    sweep_to_file("--from f16 --to e4m3 --round rz --sat none --shard " + std::to_string(i) + "/3", "t.txt");
    std::filesystem::rename(path("t.txt"), path("t" + std::to_string(i) + ".txt"));
    thirds += " " + quoted(path("t" + std::to_string(i) + ".txt"));
  }
  EXPECT_EQ(run_cli("merge" + thirds).out, whole);
}

// merge accepts non-canonical tables (a device may split runs) and writes canonical ones; it
// keeps only the x- keys every table shares.
TEST(Merge, CanonicalisesAndKeepsSharedExtraKeys) {
  const std::string head =
      "softmx-vectors = 1\noperation = convert\nlayout = runs\nfrom = e2m1\nto = f16\nrounding = rne\nsaturation = finite\n"
      "tininess = after\ndialect = ocp\n";
  write_file(path("lo.txt"), head + "first = 0\nlast = 7\nx-device = gpu0\nx-run = 1\n0 0000 00\n1 3800 00\n2 3C00 00\n3 3C00 00\n"
                                    "4 4000 00\n5 4200 00\n6 4400 00\n7 4600 00\n");
  write_file(path("hi.txt"), head + "first = 8\nlast = F\nx-device = gpu0\nx-run = 2\n8 8000 00\n9 B800 00\nA BC00 00\nB BE00 00\n"
                                    "C C000 00\nD C200 00\nE C400 00\nF C600 00\n");
  const CliRun r = run_cli("merge " + quoted(path("hi.txt")) + " " + quoted(path("lo.txt")));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("first = 0\nlast = F\nx-device = gpu0\n# FIRST OUT FLAGS\n0 0000 00\n1 3800 00\n2 3C00 00\n4 4000 00\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("x-run"), std::string::npos);
  EXPECT_EQ(data_lines(r.out).size(), 15u);
}

TEST(Merge, Errors) {
  sweep_to_file("--from f16 --to e4m3 --shard 0/2", "h0.txt");
  sweep_to_file("--from f16 --to e4m3 --shard 1/2", "h1.txt");
  sweep_to_file("--from f16 --to e4m3 --shard 1/4", "q1.txt");
  sweep_to_file("--from f16 --to e4m3 --shard 2/4", "q2.txt");
  sweep_to_file("--from f16 --to e4m3 --shard 0/4", "q0.txt");
  sweep_to_file("--from f16 --to e4m3 --round rna --shard 1/2", "rna1.txt");
  write_file(path("noflags1.txt"), without_flags(slurp(path("h1.txt"))));
  const auto p = [](const char* n) { return quoted(path(n)); };
  expect_error(run_cli("merge " + p("h0.txt") + " " + p("q1.txt")), {"q1.txt", "overlap", "h0.txt", "4000..7FFF"});
  expect_error(run_cli("merge " + p("q2.txt") + " " + p("q0.txt")), {"q2.txt", "gap", "4000..7FFF", "in no table"});
  expect_error(run_cli("merge " + p("h0.txt") + " " + p("rna1.txt")), {"rna1.txt", "h0.txt", "rounding = rna", "rounding = rne"});
  expect_error(run_cli("merge " + p("h0.txt") + " " + p("noflags1.txt")), {"noflags1.txt", "FLAGS"});
  expect_error(run_cli("merge " + p("h0.txt") + " " + p("h0.txt")), {"h0.txt", "overlap"});
  expect_error(run_cli("merge " + p("h0.txt") + " " + p("missing.txt")), {"missing.txt"});
  expect_error(run_cli("merge"), {"TABLE"});
  expect_error(run_cli("merge -"), {"standard input"});
}

// ---- diff ---------------------------------------------------------------------------------------------------

// ocp and cuda differ for f16 -> e4m3 (nonsat) only on negative NaNs: cuda's NaN inputs become
// the positive NaN (docs/DIALECTS.md). diff must list exactly the brute-force ranges.
TEST(Diff, OcpAgainstCuda) {
  sweep_to_file("--from f16 --to e4m3 --sat none", "ocp.txt");
  sweep_to_file("--from f16 --to e4m3 --sat none --dialect cuda", "cuda.txt");
  const CliRun r = run_cli("diff " + quoted(path("ocp.txt")) + " " + quoted(path("cuda.txt")));
  EXPECT_EQ(r.status, 1) << r.err;
  const auto want = expected_ranges(FormatId::f16, FormatId::e4m3, context(Rounding::rne, Saturation::none), "ocp",
                                    context(Rounding::rne, Saturation::none), "cuda", true);
  EXPECT_EQ(range_lines(r.out), want);
  EXPECT_EQ(want, (std::vector<std::string>{"RANGE FC01..FDFF (511 inputs): A FF 10  B 7F 10",
                                            "RANGE FE00..FFFF (512 inputs): A FF 00  B 7F 00"}));
  EXPECT_NE(r.out.find("  A FF = -NaN  [-F.7]  flags v....\n  B 7F = NaN  [+F.7]  flags v....\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("positive quiet NaN"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("differ: 2 ranges, 1023 of 65536 inputs\n"), std::string::npos) << r.out;

  const CliRun same = run_cli("diff " + quoted(path("ocp.txt")) + " " + quoted(path("ocp.txt")));
  EXPECT_EQ(same.status, 0) << same.err;
  EXPECT_TRUE(range_lines(same.out).empty());
  EXPECT_NE(same.out.find("identical: all 65536 inputs give the same OUT and FLAGS"), std::string::npos) << same.out;
}

// rne against rna differ exactly on the ties, and each is explained as one.
TEST(Diff, RneAgainstRnaShowsTheTies) {
  sweep_to_file("--from f16 --to e2m1", "rne.txt");
  sweep_to_file("--from f16 --to e2m1 --round rna", "rna.txt");
  const CliRun r = run_cli("diff --max-ranges 1000 " + quoted(path("rne.txt")) + " " + quoted(path("rna.txt")));
  EXPECT_EQ(r.status, 1) << r.err;
  const auto want = expected_ranges(FormatId::f16, FormatId::e2m1, context(), "ocp", context(Rounding::rna), "ocp", true);
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(range_lines(r.out), want);
  EXPECT_EQ(count_of(r.out, "a TIE (exactly halfway)"), want.size()) << r.out;
  EXPECT_EQ(count_of(r.out, "rne takes the even code"), want.size());
  EXPECT_EQ(count_of(r.out, "rna rounds ties away from zero"), want.size());
  EXPECT_NE(r.out.find("RANGE 4100..4100 (1 input): A 4 01  B 5 01\n"), std::string::npos) << r.out;  // 2.5: 2 or 3

  // --max-ranges limits the printing, never the count.
  const CliRun few = run_cli("diff --max-ranges 3 " + quoted(path("rne.txt")) + " " + quoted(path("rna.txt")));
  EXPECT_EQ(few.status, 1);
  EXPECT_EQ(range_lines(few.out), std::vector<std::string>(want.begin(), want.begin() + 3));
  EXPECT_NE(few.out.find("(" + std::to_string(want.size() - 3) + " more ranges not shown; --max-ranges 3)"), std::string::npos);
  EXPECT_NE(few.out.find("differ: " + std::to_string(want.size()) + " ranges, " + std::to_string(want.size()) + " of 65536"),
            std::string::npos)
      << few.out;
}

// A table without flags (a device's) is compared on outputs only, and says so; a result that
// softmx does not compute under the table's own header is pointed out.
TEST(Diff, OutputsOnlyAndDeviceTables) {
  const std::string ocp = sweep_to_file("--from f16 --to e4m3 --sat none", "ocp.txt");
  sweep_to_file("--from f16 --to e4m3 --sat none --dialect cuda", "cuda.txt");
  write_file(path("cuda-noflags.txt"), without_flags(slurp(path("cuda.txt"))));
  const CliRun r = run_cli("diff " + quoted(path("ocp.txt")) + " " + quoted(path("cuda-noflags.txt")));
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("flags: absent from B: comparing outputs only\n"), std::string::npos) << r.out;
  EXPECT_EQ(range_lines(r.out), expected_ranges(FormatId::f16, FormatId::e4m3, context(Rounding::rne, Saturation::none), "ocp",
                                                context(Rounding::rne, Saturation::none), "cuda", false));
  write_file(path("ocp-noflags.txt"), without_flags(ocp));
  const CliRun same = run_cli("diff " + quoted(path("ocp-noflags.txt")) + " " + quoted(path("ocp.txt")));
  EXPECT_EQ(same.status, 0) << same.out;
  EXPECT_NE(same.out.find("identical: all 65536 inputs give the same OUT in A and B"), std::string::npos) << same.out;

  // A "device" that gets 1.0 (3C00 -> 38) wrong.
  std::string device = ocp;
  const std::size_t at = device.find("\n3C00 38 00\n");
  ASSERT_NE(at, std::string::npos);
  device.replace(at, 12, "\n3C00 39 00\n");  // the next line, 3C01, starts the next run
  write_file(path("device.txt"), device);
  const CliRun d = run_cli("diff " + quoted(path("ocp.txt")) + " " + quoted(path("device.txt")));
  EXPECT_EQ(d.status, 1);
  EXPECT_EQ(range_lines(d.out), std::vector<std::string>{"RANGE 3C00..3C00 (1 input): A 38 00  B 39 00"});
  EXPECT_NE(d.out.find("exact: the input is representable"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("(the table says 39 00: not what softmx computes under B's header)"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("differ: 1 range, 1 of 65536 inputs"), std::string::npos) << d.out;
}

TEST(Diff, Errors) {
  sweep_to_file("--from f16 --to e4m3", "f16.txt");
  sweep_to_file("--from bf16 --to e4m3", "bf16.txt");
  sweep_to_file("--from f16 --to e4m3 --shard 0/2", "half.txt");
  const auto p = [](const char* n) { return quoted(path(n)); };
  expect_error(run_cli("diff " + p("f16.txt") + " " + p("bf16.txt")), {"bf16.txt", "source format", "same inputs"});
  expect_error(run_cli("diff " + p("f16.txt") + " " + p("half.txt")), {"half.txt", "0000..7FFF", "same inputs"});
  expect_error(run_cli("diff " + p("f16.txt")), {"two run tables"});
  expect_error(run_cli("diff --max-ranges 0 " + p("f16.txt") + " " + p("f16.txt")), {"--max-ranges"});
  write_file(path("cases.txt"),
             "softmx-vectors = 1\noperation = convert\nfrom = f16\nto = e4m3\nrounding = rne\nsaturation = finite\n"
             "tininess = after\ndialect = ocp\n3C00 38 00\n");
  expect_error(run_cli("diff " + p("f16.txt") + " " + p("cases.txt")), {"cases.txt", "not a run table"});
}

// Malformed tables: the error names the file and the line, for diff and merge alike.
TEST(Tables, MalformedTablesNameFileAndLine) {
  const std::string good = sweep_to_file("--from f16 --to e4m3", "good.txt");
  const auto lines = data_lines(good);
  // Non-increasing FIRST: the 3rd and 4th data lines swapped (header 13 lines + comment = 14).
  std::string swapped = good;
  const std::string l3 = lines[2] + "\n" + lines[3] + "\n";
  swapped.replace(swapped.find(l3), l3.size(), lines[3] + "\n" + lines[2] + "\n");
  write_file(path("swapped.txt"), swapped);
  // Wrong width: a 3-digit FIRST on the 2nd data line.
  std::string narrow = good;
  narrow.replace(narrow.find("\n" + lines[1] + "\n") + 1, 4, lines[1].substr(1, 3));
  write_file(path("narrow.txt"), narrow);
  // A missing header key.
  std::string keyless = good;
  keyless.erase(keyless.find("rounding = rne\n"), 15);
  write_file(path("keyless.txt"), keyless);

  const std::string g = quoted(path("good.txt"));
  for (const std::string& cmd : {"diff " + g + " ", std::string("merge ")}) {
    expect_error(run_cli(cmd + quoted(path("swapped.txt"))), {"swapped.txt line 18", "does not increase"});
    expect_error(run_cli(cmd + quoted(path("narrow.txt"))), {"narrow.txt line 16", "field 1 (FIRST)", "4 hex digits"});
    expect_error(run_cli(cmd + quoted(path("keyless.txt"))), {"keyless.txt", "lacks the required key 'rounding'"});
  }
}

}  // namespace
