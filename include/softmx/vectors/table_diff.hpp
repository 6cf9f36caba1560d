// softmx/vectors/table_diff.hpp: where two run tables over the same inputs disagree (`softmx
// diff`). The tables are walked in lockstep, streaming, in constant memory; each maximal range
// of inputs over which A gives one result and B another, different one, is handed on in input
// order. What the ranges mean (the values decomposed, softmx's own result under each header)
// is the caller's to print (softmx/explain.hpp has the pieces).
#pragma once

#include <cstdint>
#include <functional>

#include "softmx/flags.hpp"
#include "softmx/vectors/reader.hpp"

namespace softmx::vec {

/// One table's result over a range: OUT, and FLAGS (0 when flags are not compared).
struct Outcome {
  std::uint64_t code = 0;
  Flags flags = 0;
  friend bool operator==(const Outcome&, const Outcome&) = default;
};

/// A maximal range [first, last] of inputs over which A gives `a` and B gives `b`, a != b.
struct TableDifference {
  std::uint64_t first = 0, last = 0;
  Outcome a, b;
  std::uint64_t count() const { return last - first + 1; }
};

/// Throws InputError unless `t` is a run table: "NAME: not a run table (the header has no
/// 'layout = runs'; diff compares run tables)", NAME quoted as messages quote input.
void require_run_table(const VectorReader& t);

/// Throws InputError unless `a` and `b` cover the same inputs: the same source format, first
/// and last (the message names both files and what each has).
void require_same_inputs(const VectorReader& a, const VectorReader& b);

/// A's and B's runs walked in lockstep. Preconditions: both are run tables over the same inputs
/// (require_run_table, require_same_inputs) and no run has been read from either.
class RunLockstep {
 public:
  /// Reads the first run of each (a run table has one; InputError otherwise), which says
  /// whether the table has flags. The readers must outlive this.
  RunLockstep(VectorReader& a, VectorReader& b);
  bool a_has_flags() const { return ra_.has_flags; }
  bool b_has_flags() const { return rb_.has_flags; }
  /// Whether flags are compared: both tables give them.
  bool flags_compared() const { return ra_.has_flags && rb_.has_flags; }

  /// Calls `emit` with each TableDifference, in input order; outcomes carry flags only when
  /// flags_compared(). Reads both tables to their end (malformed lines: InputError). Call once.
  void for_each_difference(const std::function<void(const TableDifference&)>& emit);

 private:
  VectorReader &a_, &b_;
  Run ra_, rb_;
};

}  // namespace softmx::vec
