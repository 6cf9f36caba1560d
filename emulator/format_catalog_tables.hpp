// emulator/format_catalog_tables.hpp: the parser's own name tables, for the format catalog
// (include/softmx/format_catalog.hpp). Internal: formats.cpp and format_spec.cpp hold the tables
// the parser reads, so a name or form added there appears in `softmx formats` with no other edit.
#pragma once

#include <span>
#include <string_view>
#include <utility>

#include "softmx/format.hpp"

namespace softmx::detail {

/// One form of the spec grammar (docs/SEMANTICS.md 1.2).
struct SpecFormRow {
  std::string_view form;      ///< "eXmY", "intN mxintN"
  std::string_view meaning;   ///< one line
  std::string_view examples;  ///< space-separated specs the parser accepts
};

/// Every name parse_format reads (formats.cpp), canonical names included, in table order.
std::span<const std::pair<std::string_view, FormatId>> named_aliases();
/// The names of runtime formats (ml_dtypes' dtypes and softmx's short names) and the spec each
/// reads as (format_spec.cpp).
std::span<const std::pair<std::string_view, std::string_view>> runtime_aliases();
/// The forms of the grammar (format_spec.cpp).
std::span<const SpecFormRow> spec_forms();

}  // namespace softmx::detail
