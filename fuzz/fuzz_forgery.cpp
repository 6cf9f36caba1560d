// fuzz/fuzz_forgery.cpp: tries to forge a pass (issue 24). The input is a program of
// structured mutations applied to one of seven complete results files that softmx generates at
// start-up (one per operation: convert, quantize, dequantize, dot, mma, block-scaled mma, and a
// level-2 set), after which, as the input's last byte says, the header is made to vouch for the
// mutated lines (fuzz::forge: its `cases` and `inputs-sha256` recomputed), as a person hiding a
// cut file would. The invariant (completeness_property.hpp):
//
//   no mutation of a complete file verifies as a pass unless the mutated file is still
//   complete and correct: every case softmx regenerates from its header's level and seed, once,
//   in order, with softmx's results;
//
// and, where the mutation left the header's level and seed alone on a level-1 (fixed-list)
// file, a pass means the data lines are exactly the original ones. A violation aborts.
//
// Program bytes, read in pairs or triples (every value taken modulo what it indexes):
//   0 i      delete data line i            4 i j    replace line i by a copy of line j
//   1 i j    insert a copy of line i at j  5 i      keep the first i data lines
//   2 i j    swap lines i and j            6 k      delete header key k (level, seed, cases,
//   3 i n j  move n lines from i to j               inputs-sha256, generator)
//                                          7 v      set level (v even: 1, odd: 2) or seed (v)
// The first byte picks the base file; the last byte's low bit says whether to forge.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "completeness_property.hpp"
#include "softmx/vectors/generate.hpp"
#include "softmx/vectors/header.hpp"
#include "softmx/vectors/output_file.hpp"

namespace {

using namespace softmx;

struct Base {
  std::string text;
  std::vector<std::string> header, data;  // lines without their LF
  bool level1 = false;
};

/// The file `softmx gen` writes for `header_text` (a header without data) at `level`.
std::string generate(const std::string& header_text, int level, std::uint64_t count) {
  vec::HeaderParser hp;
  std::istringstream in(header_text);
  std::string line;
  while (std::getline(in, line)) hp.add(line, "base");
  const vec::Header h = hp.finish("base");
  const vec::Evaluator ev(h);
  vec::GenOptions o;
  o.level = level;
  o.seed = 5;
  if (level == 2) o.count = count;
  const std::string path =
      (std::filesystem::temp_directory_path() / ("softmx_forgery_" + std::to_string(::getpid()) + ".vec")).string();
  {
    vec::OutputFile out(path);
    vec::write_vectors(ev, o, vec::WriteOptions{}, out);
    out.commit();
  }
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  std::filesystem::remove(path);
  return s.str();
}

Base split(const std::string& text, bool level1) {
  Base b;
  b.text = text;
  b.level1 = level1;
  std::istringstream in(text);
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (header && (line.empty() || line[0] == '#' || line.find('=') != std::string::npos)) {
      b.header.push_back(line);
      continue;
    }
    header = false;
    b.data.push_back(line);
  }
  return b;
}

const std::vector<Base>& bases() {
  static const std::vector<Base> b = [] {
    // Each base: its header after "softmx-vectors = 1", the generator's level and its count
    // (level 1: every case, count 0); Base::level1 is level == 1.
    struct Recipe {
      const char* header;
      int level;
      std::uint64_t count;
    };
    const Recipe recipes[] = {
        {"operation = convert\nfrom = e4m3\nto = e2m1\nrounding = rne\nsaturation = finite\ntininess = after\ndialect = ocp\n", 1, 0},
        {"operation = quantize\nfrom = f32\nto = e2m1\nrounding = rne\nsaturation = finite\ntininess = after\ndialect = ocp\n"
         "block = 2\nscale = floor\n", 2, 12},
        {"operation = dequantize\nfrom = e2m1\nto = f16\nrounding = rne\nsaturation = finite\ntininess = after\ndialect = ocp\n", 1, 0},
        {"operation = dot\na = e2m1\nb = e2m1\nrounding = rne\nsaturation = none\ntininess = after\nblock = 2\nblocks = 1\n"
         "accumulation = exact\n", 2, 6},
        {"operation = mma\na = e4m3\nb = e5m2\naccumulator = f32\naddend = no\nmodel = hopper-fp8-wgmma\nblock = 2\n", 1, 0},
        {"operation = mma\na = e2m1\nb = e2m1\naccumulator = f32\naddend = yes\nmodel = blackwell-mxf4\nblock = 64\n"
         "scale-format = ue8m0\nscale-block = 32\n", 1, 0},
        {"operation = quantize\nfrom = f16\nto = e4m3\nrounding = rne\nsaturation = finite\ntininess = after\ndialect = ocp\n"
         "block = 1\nscale = even\n", 1, 0},
    };
    std::vector<Base> v;
    for (const Recipe& r : recipes)
      v.push_back(split(generate(std::string("softmx-vectors = 1\n") + r.header, r.level, r.count), r.level == 1));
    return v;
  }();
  return b;
}

std::string join(const std::vector<std::string>& header, const std::vector<std::string>& data) {
  std::string s;
  for (const auto& l : header) s += l + "\n";
  for (const auto& l : data) s += l + "\n";
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* in, std::size_t size) {
  if (size < 2 || size > 256) return 0;
  const std::vector<Base>& all = bases();
  const Base& base = all[in[0] % all.size()];
  std::vector<std::string> header = base.header, data = base.data;
  bool header_touched = false;
  std::size_t at = 1;
  auto next = [&]() -> std::size_t { return at < size - 1 ? in[at++] : 0; };
  while (at < size - 1) {
    const std::size_t op = next() % 8;
    const std::size_t n = data.size() ? data.size() : 1;
    switch (op) {
      case 0:
        if (!data.empty()) data.erase(data.begin() + static_cast<long>(next() % n));
        break;
      case 1: {
        const std::size_t i = next() % n, j = next() % (data.size() + 1);
        if (!data.empty()) data.insert(data.begin() + static_cast<long>(j), data[i]);
        break;
      }
      case 2: {
        const std::size_t i = next() % n, j = next() % n;
        if (!data.empty()) std::swap(data[i], data[j]);
        break;
      }
      case 3: {
        const std::size_t i = next() % n, len = 1 + next() % 8, j = next() % n;
        if (data.empty()) break;
        const std::size_t e = std::min(data.size(), i + len);
        std::vector<std::string> moved(data.begin() + static_cast<long>(i), data.begin() + static_cast<long>(e));
        data.erase(data.begin() + static_cast<long>(i), data.begin() + static_cast<long>(e));
        const std::size_t to = std::min(j, data.size());
        data.insert(data.begin() + static_cast<long>(to), moved.begin(), moved.end());
        break;
      }
      case 4: {
        const std::size_t i = next() % n, j = next() % n;
        if (!data.empty()) data[i] = data[j];
        break;
      }
      case 5:
        data.resize(std::min(data.size(), next() % (data.size() + 1)));
        break;
      case 6: {
        static const char* kKeys[] = {"level", "seed", "cases", "inputs-sha256", "generator"};
        const std::string k = std::string(kKeys[next() % 5]) + " =";
        for (auto it = header.begin(); it != header.end(); ++it)
          if (it->rfind(k, 0) == 0) {
            header.erase(it);
            header_touched = true;
            break;
          }
        break;
      }
      case 7: {
        const std::size_t v = next();
        for (auto& l : header) {
          if (v % 4 == 0 && l.rfind("level =", 0) == 0) l = v % 8 == 0 ? "level = 1" : "level = 2";
          else if (v % 4 == 1 && l.rfind("seed =", 0) == 0) l = "seed = " + std::to_string(v);
        }
        header_touched = true;
        break;
      }
    }
  }
  std::string text = join(header, data);
  if (in[size - 1] & 1) {
    const auto forged = fuzz::forge(text);
    if (!forged) return 0;
    text = *forged;
  }
  // Aborts on a pass that is not complete and correct against the regenerated list.
  const fuzz::Verdict v = fuzz::check_completeness_property(text, 1 << 16, "forged.vec");
  // A fixed list whose header's level and seed were left alone: a pass means the same lines.
  if (v == fuzz::Verdict::passed && base.level1 && !header_touched && data != base.data) {
    std::fprintf(stderr, "fuzz_forgery: a changed level-1 file passed:\n%s\n", text.c_str());
    std::abort();
  }
  return 0;
}
