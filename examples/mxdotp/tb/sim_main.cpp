// MXDOTP vector harness (softmx examples/mxdotp): reads a softmx dot vector file (operands
// only, or with results: they are replaced), drives every line through the verilated
// fpnew_mxdotp_multi (mxdotp_dut.sv: no pipeline registers, one 64-bit lane) and writes the
// same header and operands with the unit's result and flags.
//
//   Vmxdotp_dut < inputs.vec > results.vec
//
// The header must say: a = b (e4m3, e5m2, e3m2, e2m3, e2m1 or int8), block = the unit's
// width for that element (8, 8, 11, 11, 16, 8), blocks = 1, addend = yes, to = f32 or bf16,
// rounding rne rz rd ru rna ro. Exit status 0, or 2 on a file the unit cannot take.
#include "Vmxdotp_dut.h"
#include "verilated.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const std::string& msg) {
  std::cerr << "mxdotp harness: " << msg << "\n";
  std::exit(2);
}

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r");
  auto e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

struct Elem {
  unsigned src_fmt;  // fpnew_pkg::fp_format_e
  bool is_int;
  unsigned width;  // bits per code
  unsigned k;      // elements per 64-bit lane (FP6: 66 bits with the two rem bits)
};

const std::map<std::string, Elem> kElems = {
    {"e5m2", {3, false, 8, 8}},  {"e4m3", {5, false, 8, 8}},  {"e3m2", {6, false, 6, 11}},
    {"e2m3", {7, false, 6, 11}}, {"e2m1", {8, false, 4, 16}}, {"int8", {3, true, 8, 8}},
};
const std::map<std::string, unsigned> kRound = {{"rne", 0}, {"rz", 1}, {"rd", 2},
                                                {"ru", 3},  {"rna", 4}, {"ro", 5}};

}  // namespace

int main(int argc, char** argv) {
  auto ctx = std::make_unique<VerilatedContext>();
  ctx->commandArgs(argc, argv);
  auto dut = std::make_unique<Vmxdotp_dut>(ctx.get());

  std::map<std::string, std::string> h;
  std::string line;
  bool in_header = true;
  Elem el{};
  unsigned k = 0, dst_fmt = 0, rnd = 0;
  bool bf16 = false;
  std::size_t lineno = 0, cases = 0;
  std::string out;
  out.reserve(1 << 20);

  auto settle = [&] {
    // combinational unit: NumPipeRegs = 0
    dut->clk_i = 0;
    dut->rst_ni = 1;
    dut->eval();
  };

  while (std::getline(std::cin, line)) {
    ++lineno;
    std::string t = trim(line);
    if (in_header) {
      if (t.empty() || t[0] == '#') {
        // the column names of an inputs-only file gain the columns this writes
        const bool columns = t.rfind("# SA ", 0) == 0 && t.find(" OUT") == std::string::npos;
        out += columns ? t + " OUT FLAGS\n" : line + "\n";
        continue;
      }
      auto eq = t.find('=');
      if (eq != std::string::npos && t.find_first_of(" \t") != 0 &&
          std::isalpha(static_cast<unsigned char>(t[0]))) {
        std::string key = trim(t.substr(0, eq)), val = trim(t.substr(eq + 1));
        if (key.find(' ') == std::string::npos) {
          h[key] = val;
          out += line + "\n";
          continue;
        }
      }
      // first data line: check the header
      in_header = false;
      if (h["operation"] != "dot") die("operation is not dot");
      if (h["a"] != h["b"]) die("a and b differ: MXDOTP takes one element format");
      // int8: MXDOTPI, whose elements are integers (code k is k): softmx's int8:bias=-5; a
      // file that says int8 (OCP MXINT8, k/64) runs too, and verify judges it.
      auto it = kElems.find(h["a"] == "int8:bias=-5" ? std::string("int8") : h["a"]);
      if (it == kElems.end()) die("element " + h["a"] + " is not one MXDOTP takes");
      el = it->second;
      k = static_cast<unsigned>(std::stoul(h["block"]));
      if (k != el.k) die("block must be " + std::to_string(el.k) + " for " + h["a"]);
      if (h["blocks"] != "1") die("blocks must be 1");
      if (h["addend"] != "yes") die("addend must be yes (C)");
      std::string to = h.count("to") ? h["to"] : "f32";
      if (to == "f32") dst_fmt = 0;
      else if (to == "bf16") { dst_fmt = 4; bf16 = true; }
      else die("to must be f32 or bf16 (FP32, FP16ALT)");
      auto r = kRound.find(h["rounding"]);
      if (r == kRound.end()) die("rounding " + h["rounding"] + " is not one MXDOTP takes");
      rnd = r->second;
    }
    if (t.empty()) continue;
    std::istringstream in(t);
    std::vector<std::string> f;
    for (std::string w; in >> w;) f.push_back(w);
    const std::size_t nops = 2 * (k + 1) + 1;
    if (f.size() != nops && f.size() != nops + 2)
      die("line " + std::to_string(lineno) + ": " + std::to_string(f.size()) + " fields");
    auto hex = [&](const std::string& s) { return std::strtoull(s.c_str(), nullptr, 16); };
    unsigned sa = hex(f[0]), sb = hex(f[k + 1]);
    std::uint64_t a[2] = {0, 0}, b[2] = {0, 0};  // 128-bit little-endian lane (66 bits used)
    for (unsigned i = 0; i < k; ++i) {
      unsigned bit = i * el.width;
      std::uint64_t ca = hex(f[1 + i]), cb = hex(f[k + 2 + i]);
      a[bit / 64] |= ca << (bit % 64);
      b[bit / 64] |= cb << (bit % 64);
      if (bit % 64 + el.width > 64) {
        a[1] |= ca >> (64 - bit % 64);
        b[1] |= cb >> (64 - bit % 64);
      }
    }
    std::uint32_t c = static_cast<std::uint32_t>(hex(f[2 * (k + 1)]));
    dut->a_i = a[0];
    dut->b_i = b[0];
    dut->a_rem_i = a[1] & 3;
    dut->b_rem_i = b[1] & 3;
    dut->sa_i = sa;
    dut->sb_i = sb;
    dut->c_i = c;  // bf16: the low 16 bits (the classifier reads operand_d_i[15:0])
    dut->rnd_i = rnd;
    dut->is_int_i = el.is_int;
    dut->src_fmt_i = el.src_fmt;
    dut->dst_fmt_i = dst_fmt;
    settle();
    std::uint32_t res = dut->result_o;
    unsigned flags = dut->status_o & 0x1F;  // {NV, DZ, OF, UF, NX}: TestFloat's bits
    char buf[32];
    std::string o;
    for (std::size_t i = 0; i < nops; ++i) o += f[i] + " ";
    if (bf16) {
      if ((res >> 16) != 0xFFFF)
        die("line " + std::to_string(lineno) + ": FP16ALT result not NaN-boxed");
      std::snprintf(buf, sizeof buf, "%04X %02X", res & 0xFFFF, flags);
    } else {
      std::snprintf(buf, sizeof buf, "%08X %02X", res, flags);
    }
    out += o + buf + "\n";
    ++cases;
    if (out.size() > (1 << 20)) {
      std::cout << out;
      out.clear();
    }
  }
  std::cout << out;
  std::cerr << "mxdotp harness: " << cases << " cases\n";
  dut->final();
  return 0;
}
