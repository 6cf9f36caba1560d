// softmx/vectors/input_digest.hpp: the `cases` and `inputs-sha256` of a list of cases
// (vectors/README.md 8).
//
// The **canonical operand text** of a case is its operand fields (section 4's operands: IN, R,
// SCALE, A_j.i, ...), each as exactly its column's number of upper-case hex digits, separated
// by one space (0x20), followed by one LF (0x0A). `inputs-sha256` is the SHA-256 of the
// canonical operand texts of all cases in file order, as 64 lower-case hex digits. For a file
// `softmx gen --inputs-only` wrote, that is the SHA-256 of its data lines exactly.
//
// The digest is taken over the values, not the bytes of a results file: a device that writes
// lower-case hex, tabs or CRLF line ends has the same digest as long as its operands are the
// same, in the same order.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "softmx/sha256.hpp"
#include "softmx/vectors/operation.hpp"

namespace softmx::vec {

/// Counts cases and hashes their canonical operand text.
class InputDigest {
 public:
  /// `l`: the layout of the file's lines (only its operand columns are read). Must outlive this.
  explicit InputDigest(const LineLayout& l) : layout_(&l) {}
  /// One case's operands, in file order. Precondition: operands.size() == the layout's operand
  /// count, each value within its field.
  void add(std::span<const std::uint64_t> operands);
  /// Cases added so far.
  std::uint64_t count() const { return count_; }
  /// The SHA-256 as 64 lower-case hex digits. Call once, after the last add().
  std::string hex() { return sha_.hex(); }

 private:
  const LineLayout* layout_;
  Sha256 sha_;
  std::string line_;
  std::uint64_t count_ = 0;
};

/// The canonical operand text of one case, LF included (the bytes InputDigest hashes).
std::string canonical_operands(const LineLayout& l, std::span<const std::uint64_t> operands);

/// A 64-bit fingerprint of a case's operands, to pair a file's lines with the expected cases
/// (equal operands give equal fingerprints; different operands collide with probability about
/// 2^-64 per pair). Used only to locate and classify differences: whether a file is complete
/// is decided by the count and the SHA-256, never by fingerprints alone.
std::uint64_t operand_fingerprint(std::span<const std::uint64_t> operands);

}  // namespace softmx::vec
