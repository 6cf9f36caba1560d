// tools/softmx/any_format.hpp: format(x) for code that holds either a FormatId or a Format.
//
// The command line's options and a vector header's formats are descriptors (any spec,
// docs/SEMANTICS.md 1.2), while much of the code around them was written for FormatId and reads
// the descriptor as format(x). This overload lets both read alike.
#pragma once

#include "softmx/format.hpp"

namespace softmx {

/// The descriptor itself.
constexpr const Format& format(const Format& f) { return f; }

}  // namespace softmx
