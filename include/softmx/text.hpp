// softmx/text.hpp: the small text conventions every softmx output and message shares: codes as
// fixed-width hex (TestFloat's way), fields split on blanks, input echoed safely in messages,
// and any bytes as a JSON string.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "softmx/format.hpp"

namespace softmx {

/// `v` as exactly `digits` upper-case hex digits (the low 4 * digits bits), as TestFloat writes
/// codes. Precondition: 0 <= digits <= 16.
std::string hex(std::uint64_t v, int digits);

/// Parses exactly `digits` hex digits (either case) into a value, or nullopt (any other length
/// or character; digits outside 1..16).
std::optional<std::uint64_t> parse_hex_exact(std::string_view s, int digits);

/// The whitespace-separated fields (spaces and tabs) of one line, as views into it.
std::vector<std::string_view> split_fields(std::string_view line);

/// The phrase naming what a bit pattern of `f` must look like: "8 hex digits (an f32 bit
/// pattern)", and for formats whose width is not a multiple of 4 the largest code ("2 hex
/// digits (an e3m2 code, 00..3F)").
std::string expected_code(const Format& f);

/// `text` as a message shows input: between `q` quotes (none when q is 0); a backslash, the
/// quote character, control bytes (NUL included), DEL and bytes that are not part of a valid
/// UTF-8 character written as \\, \q and \xHH (upper-case hex); at most `max` characters shown:
/// a longer text is cut, and "... (N bytes)" follows the closing quote. So a 100 MB line gives a
/// short message, and a NUL does not end it early.
std::string quote(std::string_view text, char q = '"', std::size_t max = 72);

/// A finished message made safe for a terminal, a log or a Python exception: LF and TAB are
/// kept, every other control byte (ESC and CR included: no terminal escape sequence or
/// overwritten line can come from a file), DEL and every byte that is not part of a valid UTF-8
/// character is written \xHH, and NUL does not end it. Backslashes are left as they are (the
/// input a message quotes went through quote() already). At most `max` bytes of the message are
/// kept; a longer one is cut at a character boundary and "... (N bytes)" follows. The result is
/// valid UTF-8 for any bytes. The CLI writes every error through it, and the Python module
/// raises every ValueError with it.
std::string safe_message(std::string_view message, std::size_t max = 4096);

/// A name (a file path as the caller gave it) as messages show it: quote() without quotes,
/// at most 240 characters. "results.vec" stays "results.vec"; a name holding ESC shows \x1B.
inline std::string shown_name(std::string_view name) { return quote(name, 0, 240); }

/// `text` as a JSON string, quotes included: '"' and '\\' escaped, control bytes, DEL and every
/// byte from 0x80 up as \u00XX. Each byte becomes one code point (U+0000..U+00FF), so the
/// result is valid JSON (ASCII) for any bytes, and a reader gets the bytes back by encoding
/// the string as Latin-1 (a non-UTF-8 file name included).
std::string json_string(std::string_view text);

}  // namespace softmx
