// softmx/vectors/operation.hpp: what the fields of a data line are, and how softmx
// computes a line's results from its operands (vectors/README.md 4).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "softmx/convert.hpp"
#include "softmx/dot.hpp"
#include "softmx/flags.hpp"
#include "softmx/tensor_core.hpp"
#include "softmx/vectors/header.hpp"

namespace softmx::vec {

/// One column of a data line.
struct Field {
  int digits = 2;             ///< fixed width in hex digits
  std::uint64_t max = 0xFF;   ///< largest allowed value
  std::string label;          ///< "IN", "R", "SCALE", "OUT_3", ... for messages
  std::optional<Format> format;  ///< the format of a code, named or runtime (none for random bits R)
};

/// The columns of a header's data lines: operands, then results (then the 2-digit flags).
struct LineLayout {
  std::vector<Field> operands;
  std::vector<Field> results;
  /// Whether lines may end in FLAGS (mma lines never do: tensor cores raise no flags).
  bool flags = true;
  /// "IN R OUT FLAGS": the column labels, for messages and file comments (no FLAGS when
  /// `flags` is false). Beyond 1024 bytes, the first 8 and last 3 labels and the count
  /// ("SA_1 A_1.1 ... B_64.4096 OUT FLAGS (524417 columns)"), so that no comment or message
  /// grows with the layout.
  std::string columns() const;
  /// The operand columns alone ("IN R"), abbreviated as columns().
  std::string operand_columns() const;
  /// What a line must hold: "1, 2 or 3 fields (IN, then OUT and FLAGS)".
  std::string expected() const;
};

/// The layout of `h`'s data lines. Precondition: h validated. For layout = runs it is the run
/// line FIRST OUT.
LineLayout line_layout(const Header& h);

/// softmx's computation of a header's operation. Construction checks once that the dialect
/// supports the operation (InputError otherwise, with the reason).
class Evaluator {
 public:
  explicit Evaluator(const Header& h);
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;
  Evaluator(Evaluator&&) = default;

  const Header& header() const { return h_; }
  const LineLayout& layout() const { return layout_; }
  /// Computes the results of one line: `operands` has layout().operands.size() values, each in
  /// its field's range; writes layout().results.size() values to `results`; returns the flags.
  /// Throws std::invalid_argument where the dialect has no result for these operands (gfloat
  /// refuses a NaN element into a format without NaN).
  Flags evaluate(std::span<const std::uint64_t> operands, std::span<std::uint64_t> results) const;
  /// evaluate(), or nullopt where the dialect has no result for these operands.
  std::optional<Flags> try_evaluate(std::span<const std::uint64_t> operands, std::span<std::uint64_t> results) const;
  /// dot only: evaluate() of `lines` lines at once (operands: their operands one line after the
  /// other; results and flags: one per line), through softmx::dot_pairs (the batched kernels,
  /// the same results).
  void evaluate_dots(std::span<const std::uint64_t> operands, std::size_t lines, std::span<std::uint64_t> results,
                     std::span<Flags> flags) const;
  /// mma only: evaluate() of `lines` lines at once (operands one line after the other; one
  /// result per line), through softmx::mma_pairs (the batched kernels, the same results) when
  /// the accumulator is f32; line by line otherwise, or when the batch is refused (so that the
  /// line that cannot be computed throws what evaluate() throws for it).
  void evaluate_mmas(std::span<const std::uint64_t> operands, std::size_t lines,
                     std::span<std::uint64_t> results) const;
  /// convert only: the Converter (for fast loops over runs).
  const Converter* converter() const { return converter_ ? &*converter_ : nullptr; }

 private:
  Header h_;
  LineLayout layout_;
  const Dialect* dialect_ = nullptr;
  std::optional<Converter> converter_;
  const AccumulationModel* model_ = nullptr;
  const TensorCoreModel* tc_model_ = nullptr;  // mma
};

}  // namespace softmx::vec
