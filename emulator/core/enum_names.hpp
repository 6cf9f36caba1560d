// emulator/core/enum_names.hpp: the names of an enum as one constexpr table, and the one
// name/parse pair over such tables (internal).
//
// A table lists rows {value, spelling}: the first row of a value is its printed name, every
// further row of the same value an accepted alias. A row with `parsed` false is printed but
// not accepted (Saturation::by_destination's "by-destination"). Every enum's name() and
// parse_*() read its table (names.cpp, dialect_names.cpp, vectors/header.cpp), so a new value
// or spelling is one row.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/ascii.hpp"

namespace softmx::detail {

template <class E>
struct EnumName {
  E value;
  std::string_view name;
  bool parsed = true;
};

/// The printed name of v: its first row's spelling; "?" for a value the table lacks.
template <class E, std::size_t N>
constexpr std::string_view enum_name(E v, const EnumName<E> (&table)[N]) {
  for (const EnumName<E>& r : table)
    if (r.value == v) return r.name;
  return "?";
}

/// The value a spelling names (any accepted row), ASCII case folded unless `exact_case`.
template <class E, std::size_t N>
std::optional<E> enum_parse(std::string_view s, const EnumName<E> (&table)[N], bool exact_case = false) {
  const std::string k = exact_case ? std::string(s) : ascii_lower(s);
  for (const EnumName<E>& r : table)
    if (r.parsed && r.name == k) return r.value;
  return std::nullopt;
}

}  // namespace softmx::detail
