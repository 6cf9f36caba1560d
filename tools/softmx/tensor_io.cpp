// tools/softmx/tensor_io.cpp: see tensor_io.hpp.
#include "tensor_io.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>

#include "cli.hpp"
#include "tokens.hpp"

namespace softmx::cli {

std::vector<std::size_t> parse_dims(const std::string& v, const std::string& option) {
  std::vector<std::size_t> shape;
  std::uint64_t n = 1;
  std::size_t pos = 0;
  const std::string bad = "--" + option + " expects dimensions as positive integers joined by x (for example 128x256), got " +
                          quote(v, '\'');
  for (;;) {
    const std::size_t x = v.find('x', pos);
    const std::string d = v.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    if (d.empty() || d.size() > 9 || d.find_first_not_of("0123456789") != std::string::npos) throw UsageError(bad);
    const std::uint64_t k = std::stoull(d);
    if (k == 0) throw UsageError(bad);
    n *= k;
    if (n > kMaxTensorElements)
      throw UsageError("--" + option + " " + quote(v, '\'') + " has more than 2^28 elements (the command's limit)");
    shape.push_back(static_cast<std::size_t>(k));
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  return shape;
}

std::size_t element_count(const std::vector<std::size_t>& dims) {
  std::size_t n = 1;
  for (std::size_t d : dims) n *= d;
  return n;
}

std::string dims_text(const std::vector<std::size_t>& dims) {
  std::string s;
  for (std::size_t d : dims) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

InputStream::InputStream(const std::optional<std::string>& path, bool binary) : in(&std::cin) {
  if (!path || *path == "-") return;
  errno = 0;
  file.open(*path, binary ? std::ios::in | std::ios::binary : std::ios::in);
  if (!file) throw UsageError("cannot open " + quote(*path, '\'') + ": " + std::strerror(errno ? errno : ENOENT));
  in = &file;
  name = *path;
}

namespace {

/// n codes of `width` bits: hex tokens through `parse`, or raw little-endian bytes.
template <class Parse>
std::vector<std::uint64_t> read_codes(InputStream& s, unsigned width, const std::string& code_name, std::size_t n,
                                      bool binary, const std::string& what, Parse parse) {
  std::vector<std::uint64_t> v;
  v.reserve(std::min<std::size_t>(n, std::size_t{1} << 20));  // grows with what is really there
  if (binary) {
    // Read in chunks of whole codes (no buffer of the full size), then one byte more to tell a
    // longer input.
    const std::size_t w = (width + 7) / 8;
    const std::uint64_t mask = width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
    const auto wrong_size = [&](const std::string& got) {
      return UsageError(s.name + ": expected " + std::to_string(n * w) + " bytes (" + std::to_string(n) + " " + code_name +
                        "s of " + std::to_string(w) + (w == 1 ? " byte" : " bytes, little-endian") + ", " + what +
                        "), got " + got);
    };
    std::vector<char> buf(std::size_t{1} << 16);
    while (v.size() < n) {
      const std::size_t want = std::min(n - v.size(), buf.size() / w) * w;
      s.in->read(buf.data(), static_cast<std::streamsize>(want));
      const auto got = static_cast<std::size_t>(s.in->gcount());
      if (s.in->bad()) throw UsageError(s.name + ": read error");
      for (std::size_t i = 0; i + w <= got; i += w) {
        std::uint64_t c = 0;
        for (std::size_t b = 0; b < w; ++b) c |= std::uint64_t{static_cast<unsigned char>(buf[i + b])} << (8 * b);
        if (c > mask)
          throw UsageError(s.name + ": value " + std::to_string(v.size()) + " (" + hex(c, static_cast<int>(2 * w)) +
                           ") has bits above the " + std::to_string(width) + "-bit " + code_name);
        v.push_back(c);
      }
      if (got != want) throw wrong_size(std::to_string(v.size() * w + got % w));
    }
    char extra;
    if (s.in->read(&extra, 1).gcount() != 0) throw wrong_size("more");
    if (s.in->bad()) throw UsageError(s.name + ": read error");
    return v;
  }
  TokenReader tr(*s.in, s.name);
  std::string tok;
  while (tr.next(tok)) {
    if (v.size() == n) throw UsageError(tr.where() + ": more values than expected (" + std::to_string(n) + ": " + what + ")");
    v.push_back(parse(tok, tr.where()));
  }
  if (v.size() != n)
    throw UsageError(s.name + ": expected " + std::to_string(n) + " values (" + what + "), got " + std::to_string(v.size()));
  return v;
}

}  // namespace

std::vector<std::uint64_t> read_tensor_codes(InputStream& s, const Format& f, std::size_t n, bool binary,
                                             const std::string& what) {
  return read_codes(s, f.width, std::string(f.name) + " code", n, binary, what,
                    [&](const std::string& tok, const std::string& where) { return parse_code(f, tok, where); });
}

std::vector<std::uint8_t> read_tensor_bytes(InputStream& s, std::size_t n, bool binary, const std::string& what) {
  const auto v = read_codes(s, 8, "byte", n, binary, what, [](const std::string& tok, const std::string& where) {
    const auto b = parse_hex_exact(tok, 2);
    if (!b) throw UsageError(where + ": expected a byte as 2 hex digits, got " + quote(tok));
    return *b;
  });
  return std::vector<std::uint8_t>(v.begin(), v.end());
}

}  // namespace softmx::cli
