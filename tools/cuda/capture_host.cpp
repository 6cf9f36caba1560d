// tools/cuda/capture_host.cpp: see capture_host.hpp.
#include "capture_host.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "softmx/sha256.hpp"
#include "softmx/tensor_core.hpp"
#include "softmx/vectors/generate.hpp"
#include "softmx/vectors/operation.hpp"
#include "softmx/vectors/reader.hpp"
#include "softmx/vectors/run_table.hpp"

namespace softmx::capture {

vec::Header capture_header(FormatId from, FormatId to, Rounding rounding, Saturation saturation,
                           std::string_view dialect, std::uint64_t first, std::uint64_t last, const Provenance& p,
                           std::pair<std::string, std::string> what,
                           std::vector<std::pair<std::string, std::string>> more) {
  if (!find_dialect(dialect))
    throw InputError("capture of " + what.second + ": unknown dialect '" + std::string(dialect) + "'");
  vec::Header h;
  h.operation = vec::Operation::convert;
  h.layout = vec::Layout::runs;
  h.from = from;
  h.to = to;
  h.ctx.rounding = rounding;
  h.ctx.saturation = saturation;
  h.ctx.tininess = Tininess::after_rounding;
  h.ctx.rbits = 0;
  h.dialect = std::string(dialect);
  h.first = first;
  h.last = last;
  h.level = "exhaustive";
  h.generator = p.capture;
  h.extra = {{"x-gpu", p.gpu},
             {"x-compute-capability", p.compute_capability},
             {"x-driver", p.driver},
             {"x-cuda-runtime", p.cuda_runtime},
             {"x-build-target", p.build_target},
             std::move(what),
             {"x-date", p.date},
             {"x-capture", p.capture}};
  for (auto& kv : more) {
    if (kv.first.rfind("x-", 0) != 0) throw std::logic_error("capture_header: key '" + kv.first + "' is not an x- key");
    h.extra.push_back(std::move(kv));
  }
  h.validate("capture of " + h.extra[5].second);
  return h;
}

std::uint64_t reduce_to_run_table(const vec::Header& h, std::vector<ChangePoint> points, std::string& text) {
  const int in_digits = format(h.from).hex_digits();
  const std::uint64_t code_mask = format(h.to).code_mask();
  auto in_hex = [&](std::uint64_t x) {  // the source's width, wider for a value beyond it
    int d = in_digits;
    while (d < 16 && (x >> (4 * d)) != 0) ++d;
    return softmx::hex(x, d);
  };
  std::sort(points.begin(), points.end(), [](const ChangePoint& a, const ChangePoint& b) {
    return a.input != b.input ? a.input < b.input : a.code < b.code;
  });
  // Duplicates of one input must agree; identical ones collapse.
  std::vector<ChangePoint> unique;
  unique.reserve(points.size());
  for (const ChangePoint& c : points) {
    if (c.input < h.first || c.input > h.last)
      throw std::runtime_error("change point at input " + in_hex(c.input) + " lies outside the table's range " +
                               in_hex(h.first) + ".." + in_hex(h.last));
    if (c.code > code_mask)
      throw std::runtime_error("change point at input " + in_hex(c.input) + ": code " + softmx::hex(c.code, 16) +
                               " does not fit " + std::string(format(h.to).name));
    if (!unique.empty() && unique.back().input == c.input) {
      if (unique.back().code != c.code)
        throw std::runtime_error("change points disagree at input " + in_hex(c.input) + ": codes " +
                                 softmx::hex(unique.back().code, format(h.to).hex_digits()) + " and " +
                                 softmx::hex(c.code, format(h.to).hex_digits()));
      continue;
    }
    unique.push_back(c);
  }
  if (unique.empty() || unique.front().input != h.first)
    throw std::runtime_error("no change point at the table's first input " + in_hex(h.first) +
                             " (the device records the first input of its range)");
  vec::RunTableWriter w(h, /*with_flags=*/false, text);
  for (std::size_t i = 0; i < unique.size(); ++i) {
    const std::uint64_t end = i + 1 < unique.size() ? unique[i + 1].input - 1 : h.last;
    w.add(vec::Run{unique[i].input, end, unique[i].code, false, 0});
  }
  w.finish();
  return w.lines();
}

std::string build_target_text(int cuda_arch, int family_specific, int arch_specific) {
  const int arch = arch_specific ? arch_specific : family_specific ? family_specific : cuda_arch;
  const char* suffix = arch_specific ? "a" : family_specific ? "f" : "";
  std::string s = "sm_" + std::to_string(arch / 10) + suffix + " (__CUDA_ARCH__ " + std::to_string(cuda_arch);
  if (family_specific) s += ", __CUDA_ARCH_FAMILY_SPECIFIC__ " + std::to_string(family_specific);
  if (arch_specific) s += ", __CUDA_ARCH_SPECIFIC__ " + std::to_string(arch_specific);
  return s + ")";
}

std::string gpu_slug(std::string_view name) {
  std::string lower;
  for (char c : name) lower += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  // "nvidia" says nothing: every GPU here is one.
  for (std::size_t at; (at = lower.find("nvidia")) != std::string::npos;) lower.erase(at, 6);
  std::string slug;
  bool dash = false;
  for (char c : lower) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (keep) {
      if (dash && !slug.empty()) slug += '-';
      slug += c;
      dash = false;
    } else {
      dash = true;
    }
  }
  return slug.empty() ? "unknown-gpu" : slug;
}

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError("cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

const std::string* find_key(const vec::Header& h, std::string_view key) {
  for (const auto& kv : h.extra)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return std::string(s);
}

std::string known_models() {
  std::string known;
  for (const TensorCoreModel* m : tensor_core_models()) known += (known.empty() ? "" : ", ") + std::string(m->name());
  return known;
}

}  // namespace

std::string with_known_model(const std::string& text, std::string& unknown_model) {
  unknown_model.clear();
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    const std::size_t end = nl == std::string::npos ? text.size() : nl;
    const std::string line = trim(std::string_view(text).substr(at, end - at));
    if (!line.empty() && line[0] != '#') {
      const std::size_t eq = line.find('=');
      if (eq == std::string::npos) break;  // the first data line: the header is over
      if (trim(std::string_view(line).substr(0, eq)) == "model") {
        const std::string m = trim(std::string_view(line).substr(eq + 1));
        if (find_tensor_core_model(m)) return text;
        unknown_model = m;
        return text.substr(0, at) + "model = " + std::string(kStandInModel) + text.substr(end);
      }
    }
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return text;
}

std::optional<std::string> verify_blocker(const std::string& path) {
  std::string unknown;
  const std::string text = with_known_model(read_bytes(path), unknown);
  const auto r = vec::VectorReader::from_string(text, path);  // the header, checked
  if (!unknown.empty())
    return "softmx does not know the tensor-core model '" + unknown + "' yet (it knows: " + known_models() +
           "); the file verifies once that model lands";
  try {
    vec::Evaluator ev(r->header());
  } catch (const InputError& e) {
    if (r->header().operation == vec::Operation::mma && r->header().scale_format != vec::MmaScaleFormat::none)
      return std::string(e.what());
    throw;
  }
  return std::nullopt;
}

std::vector<ManifestEntry> scan_tables(const std::string& dir, Provenance& p) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(dir + ": not a folder");
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".vec") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  if (names.empty()) throw InputError(dir + ": no capture tables (*.vec) to list in a MANIFEST");

  // The keys every table must carry, with the Provenance field each fills; the first five must
  // be the same in every table of one capture.
  struct Key {
    const char* name;
    std::string Provenance::*field;
    bool same_everywhere;
  };
  const Key keys[] = {{"x-gpu", &Provenance::gpu, true},
                      {"x-compute-capability", &Provenance::compute_capability, true},
                      {"x-driver", &Provenance::driver, true},
                      {"x-cuda-runtime", &Provenance::cuda_runtime, true},
                      {"x-build-target", &Provenance::build_target, false},
                      {"x-date", &Provenance::date, false},
                      {"x-capture", &Provenance::capture, false}};

  std::vector<ManifestEntry> out;
  std::vector<std::string> targets;  // "TARGET [PROGRAM]", distinct, in order
  std::string first_target;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string path = (fs::path(dir) / names[i]).string();
    const std::string bytes = read_bytes(path);
    std::string unknown_model;
    auto r = vec::VectorReader::from_string(with_known_model(bytes, unknown_model), path);  // parses and validates the header
    const vec::Header& h = r->header();
    ManifestEntry e;
    e.path = names[i];
    e.sha256 = softmx::sha256_hex({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()});
    if (const std::string* v = find_key(h, "x-instruction")) e.what = "instruction " + *v;
    else if (const std::string* f = find_key(h, "x-function")) e.what = "function " + *f;
    else throw InputError(path + ": the header has neither x-instruction nor x-function (what was captured)");
    for (const Key& k : keys) {
      const std::string* v = find_key(h, k.name);
      if (!v) throw InputError(path + ": the header lacks " + std::string(k.name) + " (every capture table carries it)");
      if (i == 0) {
        p.*k.field = *v;
      } else if (k.same_everywhere && *v != p.*k.field) {
        throw InputError(path + ": " + k.name + " = " + *v + ", but " + names[0] + " has " + p.*k.field +
                         " (one MANIFEST lists the tables of one GPU and build)");
      } else if (k.field == &Provenance::date && *v < p.date) {
        p.date = *v;
      }
    }
    // Each capture program runs the SASS of its own target list: every distinct build target,
    // once, with the program that ran it.
    {
      const std::string* target = find_key(h, "x-build-target");
      const std::string* program = find_key(h, "x-capture");
      const std::string item = *target + " [" + *program + "]";
      if (i == 0) {
        targets.clear();
        first_target = *target;
      }
      if (std::find(targets.begin(), targets.end(), item) == targets.end()) targets.push_back(item);
    }
    out.push_back(std::move(e));
  }
  // One target (the usual case): as the tables say it. Several: each with its program.
  bool one_target = true;
  for (const auto& t : targets) one_target = one_target && t.rfind(first_target + " [", 0) == 0;
  if (!one_target) {
    p.build_target.clear();
    for (const auto& t : targets) p.build_target += (p.build_target.empty() ? "" : "; ") + t;
  }
  return out;
}

std::string manifest_text(const Provenance& p, const std::vector<ManifestEntry>& entries) {
  std::string s;
  s += "# softmx GPU conversion capture (tools/cuda/README.md): SHA-256, path, and what was captured.\n";
  s += "# Check every table with: softmx verify TABLE (the header names the dialect that reproduces it).\n";
  s += "# gpu: " + p.gpu + "\n";
  s += "# compute capability: " + p.compute_capability + "\n";
  s += "# driver: " + p.driver + "\n";
  s += "# cuda runtime: " + p.cuda_runtime + "\n";
  s += "# build target: " + p.build_target + "\n";
  s += "# date: " + p.date + "\n";
  s += "# capture: " + p.capture + "\n";
  for (const ManifestEntry& e : entries) s += e.sha256 + "\t" + e.path + "\t" + e.what + "\n";
  return s;
}

namespace {

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

Provenance provenance_now(const std::string& gpu, int major, int minor, int driver, int runtime,
                          const std::string& build_target, const std::string& capture) {
  Provenance p;
  p.gpu = gpu;
  p.compute_capability = std::to_string(major) + "." + std::to_string(minor);
  p.driver = version_text(driver);
  p.cuda_runtime = version_text(runtime);
  p.build_target = build_target;
  p.date = utc_now();
  p.capture = capture;
  return p;
}

int capture_main(const char* program, int (*run)(int, char**), int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const softmx::InputError& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: internal error: %s\n", program, e.what());
    return 2;
  }
}

}  // namespace softmx::capture
