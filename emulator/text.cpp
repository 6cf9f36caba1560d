// emulator/text.cpp: see softmx/text.hpp.
#include "softmx/text.hpp"

#include "softmx/error.hpp"

namespace softmx {

std::string hex(std::uint64_t v, int digits) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string s(static_cast<std::size_t>(digits), '0');
  for (int i = digits - 1; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = kDigits[v & 0xF];
  return s;
}

std::optional<std::uint64_t> parse_hex_exact(std::string_view s, int digits) {
  if (static_cast<int>(s.size()) != digits || digits == 0 || digits > 16) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return std::nullopt;
    v = v << 4 | static_cast<std::uint64_t>(d);
  }
  return v;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> f;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) f.push_back(line.substr(i, j - i));
    i = j;
  }
  return f;
}

std::string expected_code(const Format& f) {
  const int d = f.hex_digits();
  std::string s = std::to_string(d) + " hex digit" + (d == 1 ? "" : "s") + " (a" +
                  (f.name[0] == 'e' || f.name[0] == 'f' || f.name[0] == 'i' ? "n " : " ") + std::string(f.name) +
                  (f.width % 4 ? " code, " + hex(0, d) + ".." + hex(f.code_mask(), d) + ")" : " bit pattern)");
  return s;
}

namespace {

/// The length of the valid UTF-8 character at s[i] (2..4 bytes; C1 controls excluded), or 0.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  const auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) { return b(k) >= lo && b(k) <= hi; };
  const unsigned c = b(0);
  if (c == 0xC2) return cont(1, 0xA0) ? 2 : 0;  // C2 80..9F: the C1 controls
  if (c >= 0xC3 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;  // no surrogates
  if (c >= 0xE1 && c <= 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/// How shown_prefix writes a byte that is not part of a valid UTF-8 character.
enum class Byte { backslashed, as_is, hex };

/// Appends to `out` the longest prefix of `text` whose shown form fits in `max` bytes of `out`:
/// each byte as classify(c) says (backslashed: '\\' and the byte; as_is: the byte; hex: a valid
/// UTF-8 character of 2..4 bytes as it is, any other byte as \xHH). Returns the bytes of `text`
/// shown.
template <class Classify>
std::size_t shown_prefix(std::string_view text, std::size_t max, std::string& out, Classify classify) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    const Byte kind = classify(c);
    std::size_t n = 1;
    std::string piece;
    if (kind == Byte::backslashed) {
      piece = {'\\', static_cast<char>(c)};
    } else if (kind == Byte::as_is) {
      piece = static_cast<char>(c);
    } else if (c >= 0x80 && (n = utf8_length(text, i)) > 0) {
      piece = text.substr(i, n);
    } else {
      n = 1;
      piece = {'\\', 'x', kDigits[c >> 4], kDigits[c & 15]};
    }
    if (out.size() + piece.size() > max) break;
    out += piece;
    i += n;
  }
  return i;
}

}  // namespace

std::string quote(std::string_view text, char q, std::size_t max) {
  std::string shown;
  const std::size_t i = shown_prefix(text, max, shown, [q](unsigned char c) {
    if (c == '\\' || (q && c == static_cast<unsigned char>(q))) return Byte::backslashed;
    return c >= 0x20 && c < 0x7F ? Byte::as_is : Byte::hex;
  });
  std::string r;
  if (q) r += q;
  r += shown;
  if (q) r += q;
  if (i < text.size()) r += "... (" + std::to_string(text.size()) + " bytes)";
  return r;
}

namespace detail {
std::string shown_file_name(const std::string& name) { return shown_name(name); }
}  // namespace detail

std::string safe_message(std::string_view message, std::size_t max) {
  std::string r;
  const std::size_t i = shown_prefix(message, max, r, [](unsigned char c) {
    return (c >= 0x20 && c < 0x7F) || c == '\n' || c == '\t' ? Byte::as_is : Byte::hex;
  });
  if (i < message.size()) r += "... (" + std::to_string(message.size()) + " bytes)";
  return r;
}

std::string json_string(std::string_view text) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string r = "\"";
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': r += "\\\""; break;
      case '\\': r += "\\\\"; break;
      case '\n': r += "\\n"; break;
      case '\t': r += "\\t"; break;
      case '\r': r += "\\r"; break;
      default:
        if (c >= 0x20 && c < 0x7F) {
          r += static_cast<char>(c);
        } else {
          r += "\\u00";
          r += kDigits[c >> 4];
          r += kDigits[c & 15];
        }
    }
  }
  return r + "\"";
}

}  // namespace softmx
