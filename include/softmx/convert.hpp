// softmx/convert.hpp: conversions between any two formats, one value or a batch.
//
//   Result r = softmx::convert(FormatId::f32, FormatId::e4m3, 0x43E80000, ctx, dialect);
//   // r.code == 0x7E (448), r.flags == flag::inexact
//
// Every conversion is unpack(source) followed by the one generic round_pack(destination):
// there is no per-format code. docs/SEMANTICS.md is the specification.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

#include "softmx/batch.hpp"
#include "softmx/context.hpp"
#include "softmx/dialect.hpp"
#include "softmx/flags.hpp"
#include "softmx/format.hpp"
#include "softmx/value.hpp"

namespace softmx {

namespace detail {
struct BatchPlan;  // the vector kernels' plan for a conversion (emulator/simd/plan.hpp)
struct CodeTable;  // an 8-bit source's results, tabulated (emulator/code_table.hpp)
}

/// The outcome of one conversion: the destination code (in the low `width` bits) and flags.
struct Result {
  std::uint64_t code = 0;
  Flags flags = 0;
  friend bool operator==(const Result&, const Result&) = default;
};

/// Thrown when a dialect does not support the requested destination, rounding mode or
/// saturation (for example the cuda dialect with rz into e4m3). The message says why and
/// what is supported.
class Unsupported : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Unpacks a code of format `f`. Precondition: code <= f.code_mask().
Unpacked unpack(const Format& f, std::uint64_t code);

/// Rounds an exact value into `dst` and packs it: the single round-and-pack routine of
/// softmx (SEMANTICS sections 2-5). Source-side policies (nan_canonical_ones) are the
/// caller's; convert() applies them. Does not check dialect support. Saturation::by_destination
/// is the dialect's default for dst.id (resolve() in dialect.hpp).
Result round_pack(const Format& dst, const Unpacked& value, const Context& ctx, const Dialect& dialect);

/// Converts one code of `src` into `dst`. Precondition: bits <= format(src).code_mask().
/// ctx.saturation by_destination (Context's default) is the dialect's default for `dst`: none
/// into f64, f32, f16, bf16 (1e6 into f16 is +Inf), finite into the MX formats under ocp.
/// Throws Unsupported if `dialect` does not support `dst` under `ctx`.
Result convert(FormatId src, FormatId dst, std::uint64_t bits, const Context& ctx,
               const Dialect& dialect = ocp_dialect());

/// A conversion with its formats, context and dialect fixed and checked once, so that each
/// call is cheap (a pointer to code specialised for the format pair).
class Converter {
 public:
  /// Throws Unsupported if `dialect` does not support `dst` under `ctx`.
  Converter(FormatId src, FormatId dst, const Context& ctx, const Dialect& dialect = ocp_dialect());

  /// Converts one code. Precondition: bits <= format(src).code_mask().
  Result operator()(std::uint64_t bits) const noexcept { return fn_(bits, ctx_, *dialect_); }
  /// rs: converts one code with its own random bits (overrides ctx.rbits).
  Result operator()(std::uint64_t bits, std::uint64_t rbits) const noexcept {
    Context c = ctx_;
    c.rbits = rbits;
    return fn_(bits, c, *dialect_);
  }

  /// Converts n codes. `in` points to n codes of the source's storage type and `out` to n
  /// of the destination's: std::uint8_t for widths up to 8, std::uint16_t for 16,
  /// std::uint32_t for 32, std::uint64_t for 64. `flags` may be null (then no flags are
  /// computed, which is faster). For rs, `rbits` (may be null: then ctx.rbits serves every
  /// element) gives each element's random bits. Runs the vector kernels where they serve the
  /// conversion (batch.hpp); the results equal operator()'s bit for bit.
  void run(const void* in, void* out, Flags* flags, std::size_t n,
           const std::uint64_t* rbits = nullptr) const;

  /// run() over spans: in.size() codes; out and flags (if not empty) at least as long.
  /// In and Out must be the storage types described at run(); throws std::invalid_argument
  /// when they are not or the spans are too short.
  template <class In, class Out>
  void run(std::span<const In> in, std::span<Out> out, std::span<Flags> flags = {}) const {
    check_span_types(sizeof(In), sizeof(Out), in.size(), out.size(), flags.size());
    run(in.data(), out.data(), flags.empty() ? nullptr : flags.data(), in.size());
  }

  /// The context as given, with Saturation::by_destination resolved (finite or none).
  const Context& context() const { return ctx_; }
  const Dialect& dialect() const { return *dialect_; }
  FormatId source() const { return src_; }
  FormatId destination() const { return dst_; }

  using Kernel = Result (*)(std::uint64_t, const Context&, const Dialect&);

 private:
  void check_span_types(std::size_t in_bytes, std::size_t out_bytes, std::size_t n, std::size_t out_n,
                        std::size_t flags_n) const;
  friend void run_on(const Converter&, Isa, const void*, void*, Flags*, std::size_t, const std::uint64_t*);
  friend bool vectorized(const Converter&);
  friend void run_consecutive(const Converter&, Isa, std::uint64_t, void*, Flags*, std::size_t);
  friend std::size_t consecutive_segments(const Converter&, Isa, std::uint64_t, std::size_t, Segment*);

  FormatId src_, dst_;
  Context ctx_;
  const Dialect* dialect_;
  Kernel fn_;
  std::shared_ptr<const detail::BatchPlan> batch_;  // null: no vector kernel serves
  // Sources of at most 8 bits (not rs): every code's result, made by the first batch of 64 or
  // more that runs on an instruction set other than Isa::scalar; null otherwise.
  std::shared_ptr<detail::CodeTable> table_;
};

}  // namespace softmx
