// tools/softmx/tensor_io.hpp: what the tensor commands (recipe, layout, torchmx, pychop) share
// to read their input: a --shape argument, the input file (or stdin), and a tensor of raw codes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "softmx/format.hpp"
#include "softmx/text.hpp"
#include "softmx/vectors/output_file.hpp"

namespace softmx::cli {

/// The product limit of every tensor the commands read: 2^28 elements.
inline constexpr std::uint64_t kMaxTensorElements = std::uint64_t{1} << 28;

/// --`option` D0xD1x...: each a positive integer of at most 9 digits, the product at most 2^28.
/// UsageError otherwise, naming the option ("--shape expects dimensions as positive integers
/// joined by x (for example 128x256), got '0x4'").
std::vector<std::size_t> parse_dims(const std::string& value, const std::string& option = "shape");

/// The product of `dims` (each bounded by parse_dims, so it does not overflow).
std::size_t element_count(const std::vector<std::size_t>& dims);

/// "2x3x4".
std::string dims_text(const std::vector<std::size_t>& dims);

/// FILE opened for reading, or standard input for "-" or none; `name` is what errors call it.
struct InputStream {
  std::ifstream file;
  std::istream* in;
  std::string name = "<stdin>";
  InputStream(const std::optional<std::string>& path, bool binary);
};

/// Exactly `n` codes of `f`: hex tokens of f's exact width (parse_code), or with `binary` raw
/// little-endian codes of ceil(width / 8) bytes. `what` says what they are, for the errors
/// ("<stdin>: expected 6 values (bf16 codes, --shape 2x3), got 5").
std::vector<std::uint64_t> read_tensor_codes(InputStream& s, const Format& f, std::size_t n, bool binary,
                                             const std::string& what);

/// Exactly `n` bytes: hex tokens of 2 digits, or with `binary` raw bytes.
std::vector<std::uint8_t> read_tensor_bytes(InputStream& s, std::size_t n, bool binary, const std::string& what);

/// A tensor as text: "TITLE SHAPE NOTE", then one row of the last dimension a line, each value
/// in hex of `digits` digits.
template <class V>
void write_rows(vec::OutputFile& out, const std::string& title, const std::vector<std::size_t>& shape, const V& v,
                int digits, const std::string& note = "") {
  std::string& t = out.text();
  t += title + " " + dims_text(shape) + note + "\n";
  const std::size_t last = shape.empty() || shape.back() == 0 ? 1 : shape.back();
  for (std::size_t i = 0; i < v.size(); ++i) {
    t += hex(static_cast<std::uint64_t>(v[i]), digits);
    const bool end = (i + 1) % last == 0 || i + 1 == v.size();
    t += end ? '\n' : ' ';
    if (end) out.chunk();
  }
}

}  // namespace softmx::cli
