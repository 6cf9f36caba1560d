// softmx/format_catalog.hpp: the formats a user can name, as data and as text (issue 29).
//
// The listing `softmx formats` prints and softmx.formats() returns: the 11 named formats, the
// named runtime specs (docs/FORMATS.md section 2), every alias with the spec it reads as, and the
// forms of the spec grammar (docs/SEMANTICS.md 1.2). The alias and grammar tables are the ones
// the parser reads (emulator/formats.cpp, emulator/format_spec.cpp), so a name added there is
// listed here. Also what a spec that names none of them is read as, and the nearest listed
// format, for the note the command line and the Python module give.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "softmx/format.hpp"

namespace softmx {

/// A name the parser reads as a fixed format, and the spec it stands for.
struct FormatAlias {
  std::string_view name;  ///< as a user writes it ("float8_e4m3fn", "e4m3ieee"), lower case
  std::string_view spec;  ///< what it reads as: a named format's name or a runtime spec ("e4m3:specials=ieee")
};

/// One form of the spec grammar, with specs the parser accepts in that form.
struct FormatSpecForm {
  std::string_view form;      ///< "eXmY", "intN mxintN", "BASE:key=value..."
  std::string_view meaning;   ///< one line
  std::string_view examples;  ///< space-separated specs
};

/// Every alias, each name once: the named formats' other spellings (fp32, float8_e4m3fn, fp4,
/// ...; spec = the canonical name), then the names of runtime formats (float8_e4m3fnuz,
/// float8_e3m4, float8_e4m3, e4m3ieee, ...; spec as the parser expands it). Canonical names are
/// not aliases.
std::vector<FormatAlias> format_aliases();

/// The forms of the spec grammar, in the order the parser tries them.
std::vector<FormatSpecForm> format_spec_forms();

/// The listed formats: the 11 named formats (FormatId order), then the named runtime specs
/// (e1m2, e2m2, e3m4, e4m3:specials=ieee, e4m3fnuz, e5m2fnuz, e4m3b11fnuz, ue4m3, ue5m3, int4) and
/// every other format a runtime alias names, each descriptor once.
std::vector<Format> listed_formats();

/// True when `f`'s descriptor is one of listed_formats().
bool is_listed_format(const Format& f);

/// The aliases of `f` (names other than its canonical spec that read as its descriptor), in
/// format_aliases() order.
std::vector<std::string> aliases_of(const Format& f);

/// The listed format nearest to `f`: the same signedness first, then the fewest exponent bits
/// apart (counted twice) plus fraction bits apart, then the same specials, then the nearest bias,
/// then the earlier in listed_formats() (so e4m4 -> e4m3, e3m3 -> e3m2, e4m3:bias=12 -> e4m3).
/// `f` itself when it is listed.
Format nearest_listed_format(const Format& f);

/// The note for a spec that names no listed format (issue 29: a typo such as e4m4 is still a
/// valid runtime format), one line without a trailing newline, e.g. "'e4m4' is not a named
/// format; read as a runtime format with 4 exponent and 4 mantissa bits (9-bit codes, bias 7,
/// Inf and NaN; spec e4m4); nearest named format: e4m3". nullopt when the spec reads as a listed
/// format. Throws FormatError for a spec parse_format_spec refuses.
std::optional<std::string> unlisted_spec_note(std::string_view spec);

/// The listing, as `softmx formats` prints it: the table of listed formats (name, width,
/// exponent and fraction bits, bias, sign, specials, max finite, min normal, min subnormal), the
/// aliases with their specs, and the spec grammar with examples.
std::string format_listing_text();

/// One format in full, as `softmx formats SPEC` prints it: what `spec` reads as (a named format,
/// a listed runtime spec or an unlisted runtime format, and what it is an alias of), its
/// canonical spec and aliases, fields, bias, specials with their codes, max finite, min normal
/// and subnormal (values and codes), whether it can be an MX element, and what overflow gives by
/// default under ocp. Throws FormatError for a spec parse_format_spec refuses.
std::string format_description_text(std::string_view spec);

}  // namespace softmx
