// softmx/vectors/generate.hpp: the cases `softmx gen` writes (vectors/README.md 6).
//
// Which operands a vector file holds is decided here, once, as a pure function of the header,
// the level and the seed: the same arguments give the same bytes on every machine. The
// results are softmx's (Evaluator); this file only chooses operands and writes lines.
//
// Cases are produced one at a time through a callback, so exhaustive sets (every f16 input,
// every scale x code) and large random sets are written in constant memory. Only the small
// structured sets of level 1 (boundary inputs, special blocks) are built in memory first, to
// be sorted or deduplicated.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "softmx/tensor_core.hpp"
#include "softmx/version.hpp"
#include "softmx/vectors/header.hpp"
#include "softmx/vectors/operation.hpp"
#include "softmx/vectors/output_file.hpp"

namespace softmx::vec {

/// The program and version written as the header's `generator`: "softmx X.Y.Z", the CMake
/// project version (softmx/version.hpp), the first line `softmx --version` prints.
inline constexpr std::string_view kGeneratorName = kVersionName;

/// Default numbers of random cases that level 2 adds (vectors/README.md 6).
inline constexpr std::uint64_t kDefaultConvertRandom = 100000;
inline constexpr std::uint64_t kDefaultQuantizeRandom = 2000;
inline constexpr std::uint64_t kDefaultDotRandom = 2000;
inline constexpr std::uint64_t kDefaultMmaRandom = 10000;

/// XORed into the seed for the stream of a block-scaled mma file's level-2 scales, so that
/// element and scale draws never share a stream (vectors/README.md 6, "Block-scaled mma").
inline constexpr std::uint64_t kMmaScaleStreamSalt = 0x5CA1E5CA1E5CA1E5ull;

/// The shape `softmx gen mma --model M` writes where the command line does not say.
struct MmaShapeDefaults {
  std::uint32_t block = 32;                            ///< K
  MmaScaleFormat scale_format = MmaScaleFormat::none;  ///< none: an unscaled mma
  std::uint32_t scale_block = 0;                       ///< products per scale (0 when unscaled)
};

/// The defaults for `model`: K = 32, or the model's group_size when larger (64 for the GST
/// models blackwell-mxf4 and blackwell-nvf4, which take K in runs of 64); a model with a
/// block-scaled form (ScaleApplication not none) gets the scales of the instruction it names:
/// blackwell-mxf8f6f4 and blackwell-mxf4 UE8M0 per 32 products (kind::mxf8f6f4, kind::mxf4),
/// blackwell-nvf4 UE4M3 per 16 (kind::mxf4nvf4 with ue4m3 scales, NVFP4); other models none.
MmaShapeDefaults mma_shape_defaults(const TensorCoreModel& model);

/// How the cases are chosen.
struct GenOptions {
  int level = 1;                        ///< 1 or 2
  std::uint64_t seed = 1;               ///< seeds the one SplitMix64 stream of the file
  std::optional<std::uint64_t> count;   ///< level 2: random cases; unset: the operation's default
};

/// How the cases are written.
struct WriteOptions {
  bool inputs_only = false;  ///< operands only (what a device under test reads)
  bool readmemh = false;     ///< `// ` header comments and one word per case (README 7)
};

/// The number of random cases level 2 adds for `h` (0 at level 1 and for exhaustive sets).
std::uint64_t random_count(const Header& h, const GenOptions& o);

/// Receives the operands of one case (layout: line_layout(h).operands). The span is valid
/// only during the call.
using CaseSink = std::function<void(std::span<const std::uint64_t>)>;

/// Calls `emit` once per case, in file order: the level-1 cases, then (level 2) the random
/// ones. Candidates only: write_vectors() leaves out the quantize blocks the dialect refuses.
/// Preconditions: h validated, o.level 1 or 2, rounding not rs for dequantize and dot (their
/// lines carry no random bits).
void for_each_case(const Header& h, const GenOptions& o, const CaseSink& emit);

/// The cases a file of ev.header() holds, in file order: for_each_case() without the quantize
/// blocks the dialect refuses (gfloat: a NaN element into a format without NaN). What
/// write_vectors() writes, and what verify regenerates to check a file's completeness.
void for_each_written_case(const Evaluator& ev, const GenOptions& o, const CaseSink& emit);

/// The `cases` and `inputs-sha256` of a list of cases (vectors/README.md 3 and 8).
struct CaseSummary {
  std::uint64_t cases = 0;
  std::string sha256;  ///< 64 lower-case hex digits (input_digest.hpp)
};

/// The count and digest of for_each_written_case(ev, o): what write_vectors() records in the
/// header. One pass over the cases (operands only, plus one evaluation per quantize block).
CaseSummary summarize_cases(const Evaluator& ev, const GenOptions& o);

/// Records in `h` the `cases` and `inputs-sha256` of a list of cases that a writer other than
/// write_vectors() chose or read itself (a capture program, an importer of published data), so
/// that verify can tell that its file holds every case, once, in order (vectors/README.md 8).
/// `each` is called once with a sink, and must pass it the operands of every case, in file
/// order, each as line_layout(h).operands.size() values within their fields (the columns the
/// data lines start with). Preconditions: h validated, h.layout == cases. Returns the count.
std::uint64_t record_cases(Header& h, const std::function<void(const CaseSink&)>& each);

/// Writes a whole vector file to `out`: the header (with level, seed, cases, inputs-sha256 and
/// generator set from `o` and the cases), a comment naming the columns, then one line per case
/// with softmx's results (computed by `ev`) unless inputs_only. The cases are generated twice:
/// once for the count and digest the header records first, once to write them, so memory stays
/// constant. Before any of that, out.require_space() with a lower bound of the bytes to be
/// written (level 2's random cases times the fixed line length), so that a file system or a
/// `ulimit -f` that cannot hold them fails at once. Does not commit `out`. Returns the number
/// of cases written.
std::uint64_t write_vectors(const Evaluator& ev, const GenOptions& o, const WriteOptions& w, OutputFile& out);

}  // namespace softmx::vec
