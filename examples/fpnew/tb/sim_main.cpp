// examples/fpnew/tb/sim_main.cpp: drives FPnew's cast unit (fpnew_cast_lanes.sv: LANES copies of
// fpnew_cast_multi, combinational) in Verilator and writes what it computes as softmx vector
// files (vectors/README.md): run tables over a range of inputs, or a results file for a given
// inputs file. It computes nothing itself and links nothing of softmx: `softmx verify` judges
// its files.
//
//   fpnew_sim sweep --from F --to T --round R [--first HEX --last HEX | --shard I/N]
//                   [--tininess T] [--dialect D] [--x KEY=VALUE]... [-o FILE]
//   fpnew_sim sweep --header FILE [--x KEY=VALUE]... [-o FILE]
//   fpnew_sim vectors INPUTS [--x KEY=VALUE]... [-o FILE]
//
// sweep: every input from FIRST to LAST (default: the whole source; --shard I/N: inputs
// floor(I * 2^w / N) .. floor((I+1) * 2^w / N) - 1, as softmx sweep) converted from F to T under
// R, written as a canonical run table (layout = runs) whose header says what FPnew is checked
// against: saturation none (IEEE overflow), --tininess (default after, RISC-V's rule) and
// --dialect (default fpnew). --header FILE: the table's header is FILE's lines, as given (a
// cluster driver's shard header, docs/SHARDING.md 4); from, to, rounding, first and last are
// read from it (options that are given must agree). vectors: reads an inputs file written by
// `softmx gen convert --inputs-only` (its header names from, to and rounding), and writes it back
// with FPnew's result and flags after each input. --x adds free header keys (x-rtl-commit = ...). Prints the count of
// inputs, the time and the rate on stderr.
//
// Formats: f32 (FPnew FP32), f16 (FP16), bf16 (FP16ALT), e5m2 (FP8), e4m3:specials=ieee (FP8ALT:
// 4 exponent bits, 3 fraction bits, bias 7, IEEE-like Inf and NaN; also spelt e4m3ieee). Rounding:
// rne (RNE), rz (RTZ), rd (RDN), ru (RUP), rna (RMM), ro (FPnew's ROD). Flags: FPnew's status
// {NV, DZ, OF, UF, NX} as TestFloat's bits (vectors/README.md 4): NV 10, DZ 08, OF 04, UF 02,
// NX 01.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "Vfpnew_cast_lanes.h"
#include "verilated.h"

#ifndef LANES
#define LANES 32
#endif
static_assert(LANES >= 4, "LANES >= 4: the model's ports are then arrays of 32-bit words (VlWide)");

namespace {

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "fpnew_sim: %s\n", msg.c_str());
  std::exit(2);
}

struct Fmt {
  const char* name;     // softmx's canonical spelling
  const char* alias;    // another accepted spelling (or nullptr)
  unsigned fpnew;       // fpnew_pkg::fp_format_e
  unsigned width;       // bits
};
constexpr Fmt kFormats[] = {
    {"f32", "fp32", 0, 32}, {"f16", "fp16", 2, 16}, {"e5m2", "fp8", 3, 8},
    {"bf16", "fp16alt", 4, 16}, {"e4m3:specials=ieee", "e4m3ieee", 5, 8},
};

const Fmt& format(const std::string& s) {
  for (const Fmt& f : kFormats)
    if (s == f.name || (f.alias && s == f.alias)) return f;
  die("unknown format '" + s + "' (f32 f16 bf16 e5m2 e4m3:specials=ieee)");
}

struct Mode {
  const char* name;
  unsigned fpnew;  // fpnew_pkg::roundmode_e
};
constexpr Mode kModes[] = {{"rne", 0}, {"rz", 1}, {"rd", 2}, {"ru", 3}, {"rna", 4}, {"ro", 5}};

const Mode& mode(const std::string& s) {
  for (const Mode& m : kModes)
    if (s == m.name) return m;
  die("unknown rounding '" + s + "' (rne rz rd ru rna ro)");
}

// FPnew's status_t {NV, DZ, OF, UF, NX} (bit 4 .. bit 0) as TestFloat's flag bits.
uint8_t flags_of(unsigned status) {
  uint8_t f = 0;
  if (status & 0x10) f |= 0x10;  // NV: invalid
  if (status & 0x08) f |= 0x08;  // DZ: infinite
  if (status & 0x04) f |= 0x04;  // OF: overflow
  if (status & 0x02) f |= 0x02;  // UF: underflow
  if (status & 0x01) f |= 0x01;  // NX: inexact
  return f;
}

unsigned digits(unsigned width) { return (width + 3) / 4; }

std::string hex(uint64_t v, unsigned width) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%0*" PRIX64, static_cast<int>(digits(width)), v);
  return buf;
}

uint64_t parse_hex(const std::string& s, const char* what) {
  if (s.empty() || s.size() > 16) die(std::string("bad ") + what + " '" + s + "'");
  char* end = nullptr;
  uint64_t v = std::strtoull(s.c_str(), &end, 16);
  if (*end != '\0') die(std::string("bad ") + what + " '" + s + "'");
  return v;
}

// The unit: LANES conversions per evaluation.
class Unit {
 public:
  Unit(const Fmt& from, const Fmt& to, const Mode& m) {
    ctx_ = std::make_unique<VerilatedContext>();
    top_ = std::make_unique<Vfpnew_cast_lanes>(ctx_.get());
    top_->rnd_mode_i = m.fpnew;
    top_->src_fmt_i = from.fpnew;
    top_->dst_fmt_i = to.fpnew;
    box_ = from.width >= 32 ? 0u : ~((1u << from.width) - 1u);
    mask_ = to.width >= 32 ? 0xFFFFFFFFu : (1u << to.width) - 1u;
  }
  ~Unit() { top_->final(); }

  // Converts n <= LANES inputs: out[i], flags[i].
  void run(const uint32_t* in, unsigned n, uint32_t* out, uint8_t* flags) {
    uint32_t* ops = top_->operands_i.data();
    for (unsigned l = 0; l < LANES; ++l) ops[l] = (l < n ? in[l] : in[0]) | box_;  // NaN-boxed
    top_->eval();
    const uint32_t* res = top_->result_o.data();
    const uint32_t* st = top_->status_o.data();
    for (unsigned l = 0; l < n; ++l) {
      out[l] = res[l] & mask_;
      flags[l] = flags_of(st[l] & 0x1F);
    }
  }

 private:
  uint32_t box_ = 0, mask_ = 0;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vfpnew_cast_lanes> top_;
};

struct Out {
  std::string path;
  std::string tmp;
  FILE* f = nullptr;
  explicit Out(const std::string& p) : path(p) {
    if (p.empty() || p == "-") {
      f = stdout;
    } else {
      tmp = p + ".tmp";
      f = std::fopen(tmp.c_str(), "w");
      if (!f) die("cannot write " + tmp);
    }
  }
  void close() {
    if (std::fflush(f) != 0 || std::ferror(f)) die("write error on " + (tmp.empty() ? "stdout" : tmp));
    if (f != stdout) {
      if (std::fclose(f) != 0) die("cannot close " + tmp);
      if (std::rename(tmp.c_str(), path.c_str()) != 0) die("cannot rename " + tmp + " to " + path);
    }
  }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void report(uint64_t n, double s) {
  std::fprintf(stderr, "fpnew_sim: %" PRIu64 " inputs in %.2f s: %.0f inputs/s (%.1f ns per input)\n", n, s,
               s > 0 ? n / s : 0.0, s > 0 ? 1e9 * s / n : 0.0);
}

std::string trim(const std::string& s);

int sweep(int argc, char** argv) {
  std::string from, to, round, out = "-", tininess = "after", dialect = "fpnew", shard, first_s, last_s, header_file;
  std::vector<std::string> xs;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--from") from = val();
    else if (a == "--to") to = val();
    else if (a == "--round") round = val();
    else if (a == "--tininess") tininess = val();
    else if (a == "--dialect") dialect = val();
    else if (a == "--shard") shard = val();
    else if (a == "--first") first_s = val();
    else if (a == "--last") last_s = val();
    else if (a == "--x") xs.push_back(val());
    else if (a == "--header") header_file = val();
    else if (a == "-o" || a == "--out") out = val();
    else die("sweep: unknown option " + a);
  }
  // A given header: its lines verbatim; the conversion and the range from its keys.
  std::vector<std::string> header;
  if (!header_file.empty()) {
    std::ifstream hs(header_file);
    if (!hs) die("cannot read " + header_file);
    std::string line;
    auto take = [&](std::string& opt, const std::string& v, const char* key) {
      if (!opt.empty() && opt != v) die(header_file + ": " + key + " = " + v + ", but the option says " + opt);
      opt = v;
    };
    while (std::getline(hs, line)) {
      std::string tl = trim(line);
      if (tl.empty()) continue;
      if (tl[0] != '#' && tl.find('=') == std::string::npos) die(header_file + ": not a header line: '" + tl + "'");
      header.push_back(line);
      auto eq = tl.find('=');
      if (tl[0] == '#' || eq == std::string::npos) continue;
      std::string k = trim(tl.substr(0, eq)), v = trim(tl.substr(eq + 1));
      if (k == "from") take(from, v, "from");
      else if (k == "to") take(to, v, "to");
      else if (k == "rounding") take(round, v, "rounding");
      else if (k == "first") take(first_s, v, "first");
      else if (k == "last") take(last_s, v, "last");
      else if (k == "layout" && v != "runs") die(header_file + ": layout " + v + " (runs only)");
    }
    if (first_s.empty() || last_s.empty()) die(header_file + ": no first or last");
    if (!shard.empty()) die("--header gives the range: no --shard");
  }
  if (from.empty() || to.empty() || round.empty()) die("sweep needs --from, --to and --round");
  const Fmt& f = format(from);
  const Fmt& t = format(to);
  const Mode& m = mode(round);
  uint64_t space = uint64_t(1) << f.width;
  uint64_t first = 0, last = space - 1;
  if (!shard.empty()) {
    if (!first_s.empty() || !last_s.empty()) die("--shard and --first/--last exclude each other");
    unsigned long si = 0, sn = 0;
    char slash = 0;
    std::istringstream is(shard);
    if (!(is >> si >> slash >> sn) || slash != '/' || sn == 0 || si >= sn || !is.eof())
      die("bad --shard '" + shard + "' (I/N, 0 <= I < N)");
    first = (static_cast<unsigned __int128>(si) * space) / sn;
    uint64_t end = (static_cast<unsigned __int128>(si + 1) * space) / sn;
    if (end == first) die("shard " + shard + " is empty");
    last = end - 1;
  }
  if (!first_s.empty()) first = parse_hex(first_s, "--first");
  if (!last_s.empty()) last = parse_hex(last_s, "--last");
  if (first > last || last >= space) die("bad range " + hex(first, f.width) + ".." + hex(last, f.width));

  Out o(out);
  if (!header.empty()) {
    for (const std::string& h : header) std::fprintf(o.f, "%s\n", h.c_str());
  } else {
    std::fprintf(o.f,
                 "softmx-vectors = 1\noperation = convert\nlayout = runs\nfrom = %s\nto = %s\nrounding = %s\n"
                 "saturation = none\ntininess = %s\ndialect = %s\nfirst = %s\nlast = %s\nlevel = exhaustive\n"
                 "generator = examples/fpnew/tb/sim_main.cpp (Verilator %s)\n",
                 f.name, t.name, m.name, tininess.c_str(), dialect.c_str(), hex(first, f.width).c_str(),
                 hex(last, f.width).c_str(), Verilated::productVersion());
  }
  for (const std::string& x : xs) {
    auto eq = x.find('=');
    if (eq == std::string::npos || x.compare(0, 2, "x-") != 0) die("--x wants x-KEY=VALUE, got '" + x + "'");
    std::fprintf(o.f, "%s = %s\n", x.substr(0, eq).c_str(), x.substr(eq + 1).c_str());
  }
  if (header.empty()) std::fprintf(o.f, "# FIRST OUT FLAGS\n");

  Unit unit(f, t, m);
  auto t0 = std::chrono::steady_clock::now();
  uint32_t in[LANES], res[LANES];
  uint8_t fl[LANES];
  bool have = false;
  uint32_t run_out = 0;
  uint8_t run_flags = 0;
  uint64_t x = first;
  for (;;) {
    unsigned n = static_cast<unsigned>(std::min<uint64_t>(LANES, last - x + 1));
    for (unsigned l = 0; l < n; ++l) in[l] = static_cast<uint32_t>(x + l);
    unit.run(in, n, res, fl);
    for (unsigned l = 0; l < n; ++l) {
      if (!have || res[l] != run_out || fl[l] != run_flags) {
        std::fprintf(o.f, "%s %s %02X\n", hex(x + l, f.width).c_str(), hex(res[l], t.width).c_str(), fl[l]);
        run_out = res[l];
        run_flags = fl[l];
        have = true;
      }
    }
    if (last - x + 1 <= LANES) break;
    x += LANES;
  }
  o.close();
  report(last - first + 1, seconds_since(t0));
  return 0;
}

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

int vectors(int argc, char** argv) {
  if (argc < 3) die("vectors needs an inputs file");
  std::string in_path = argv[2], out = "-";
  std::vector<std::string> xs;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "-o" || a == "--out") && i + 1 < argc) out = argv[++i];
    else if (a == "--x" && i + 1 < argc) xs.push_back(argv[++i]);
    else die("vectors: unknown option " + a);
  }
  std::ifstream is(in_path);
  if (!is) die("cannot read " + in_path);
  std::vector<std::string> header;
  std::vector<uint32_t> inputs;
  std::string from, to, round, line;
  bool in_header = true, first_line = true;
  while (std::getline(is, line)) {
    std::string tl = trim(line);
    if (in_header) {
      if (tl.empty() || tl[0] == '#' || tl.find('=') != std::string::npos) {
        header.push_back(line);
        if (first_line && !tl.empty() && tl[0] != '#') {
          first_line = false;
          for (const std::string& x : xs) {
            auto eq = x.find('=');
            if (eq == std::string::npos || x.compare(0, 2, "x-") != 0) die("--x wants x-KEY=VALUE");
            header.push_back(x.substr(0, eq) + " = " + x.substr(eq + 1));
          }
        }
        auto eq = tl.find('=');
        if (!tl.empty() && tl[0] != '#' && eq != std::string::npos) {
          std::string k = trim(tl.substr(0, eq)), v = trim(tl.substr(eq + 1));
          if (k == "from") from = v;
          else if (k == "to") to = v;
          else if (k == "rounding") round = v;
          else if (k == "operation" && v != "convert") die(in_path + ": operation " + v + " (convert only)");
          else if (k == "layout" && v != "cases") die(in_path + ": layout " + v + " (cases only)");
        }
        continue;
      }
      in_header = false;
    }
    if (tl.empty() || tl[0] == '#') continue;
    std::istringstream ls(tl);
    std::string field, extra;
    ls >> field;
    if (ls >> extra) die(in_path + ": expected an inputs-only file (one field per line), got '" + tl + "'");
    inputs.push_back(static_cast<uint32_t>(parse_hex(field, "input")));
  }
  if (from.empty() || to.empty() || round.empty()) die(in_path + ": the header must name from, to and rounding");
  const Fmt& f = format(from);
  const Fmt& t = format(to);
  const Mode& m = mode(round);
  Out o(out);
  for (const std::string& h : header) std::fprintf(o.f, "%s\n", h.c_str());
  Unit unit(f, t, m);
  auto t0 = std::chrono::steady_clock::now();
  uint32_t res[LANES];
  uint8_t fl[LANES];
  for (size_t i = 0; i < inputs.size(); i += LANES) {
    unsigned n = static_cast<unsigned>(std::min<size_t>(LANES, inputs.size() - i));
    unit.run(&inputs[i], n, res, fl);
    for (unsigned l = 0; l < n; ++l)
      std::fprintf(o.f, "%s %s %02X\n", hex(inputs[i + l], f.width).c_str(), hex(res[l], t.width).c_str(), fl[l]);
  }
  o.close();
  report(inputs.size(), seconds_since(t0));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "sweep") == 0) return sweep(argc, argv);
  if (argc >= 2 && std::strcmp(argv[1], "vectors") == 0) return vectors(argc, argv);
  std::fprintf(stderr,
               "usage: fpnew_sim sweep --from F --to T --round R [--first HEX --last HEX | --shard I/N]\n"
               "                       [--tininess T] [--dialect D] [--x x-KEY=VALUE]... [-o FILE]\n"
               "       fpnew_sim sweep --header FILE [--x x-KEY=VALUE]... [-o FILE]\n"
               "       fpnew_sim vectors INPUTS [--x x-KEY=VALUE]... [-o FILE]\n");
  return 2;
}
