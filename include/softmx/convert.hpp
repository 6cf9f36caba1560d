// softmx/convert.hpp: conversions between any two formats, one value or a batch.
//
//   Result r = softmx::convert(FormatId::f32, FormatId::e4m3, 0x43E80000, ctx, dialect);
//   // r.code == 0x7E (448), r.flags == flag::inexact
//   Converter c(format(FormatId::f32), parse_format_spec("e4m3fnuz"), ctx);   // a runtime format
//
// Every conversion is unpack(source) followed by the one generic round_pack(destination):
// there is no per-format code. Named pairs run it with both descriptors' constants folded in;
// a pair with a runtime format runs the same inline algorithm reading the descriptors.
// docs/SEMANTICS.md is the specification.
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
/// is the dialect's default for dst (resolve() in dialect.hpp).
Result round_pack(const Format& dst, const Unpacked& value, const Context& ctx, const Dialect& dialect);

/// Converts one code of `src` into `dst` (named or runtime formats). Precondition: bits <=
/// src.code_mask(). ctx.saturation by_destination (Context's default) is the dialect's default
/// for `dst`: none into f64, f32, f16, bf16 (1e6 into f16 is +Inf), finite into the MX formats
/// under ocp, the dialect's runtime default for a runtime format (none for one with Inf, e3m4:
/// 1e6 is +Inf; support_for in dialect.hpp). Throws Unsupported if
/// `dialect` does not support `dst` under `ctx` (or refuses a runtime `src`), FormatError if a
/// descriptor is not valid (canonical_format).
Result convert(const Format& src, const Format& dst, std::uint64_t bits, const Context& ctx,
               const Dialect& dialect = ocp_dialect());
/// The same for named formats.
Result convert(FormatId src, FormatId dst, std::uint64_t bits, const Context& ctx,
               const Dialect& dialect = ocp_dialect());

/// A conversion with its formats, context and dialect fixed and checked once, so that each
/// call is cheap (a pointer to code specialised for the format pair).
class Converter {
 public:
  /// Any two formats, named or runtime (each is checked and made canonical: a runtime descriptor
  /// equal to a named format runs as that format). Throws Unsupported if `dialect` does not
  /// support `dst` under `ctx` or refuses a runtime `src`, FormatError for a bad descriptor.
  Converter(const Format& src, const Format& dst, const Context& ctx, const Dialect& dialect = ocp_dialect());
  /// Named formats. Throws Unsupported if `dialect` does not support `dst` under `ctx`.
  Converter(FormatId src, FormatId dst, const Context& ctx, const Dialect& dialect = ocp_dialect())
      : Converter(format(src), format(dst), ctx, dialect) {}

  /// Converts one code. Precondition: bits <= source_format().code_mask().
  Result operator()(std::uint64_t bits) const noexcept { return fn_(src_, dst_, bits, ctx_, *dialect_); }
  /// rs: converts one code with its own random bits (overrides ctx.rbits).
  Result operator()(std::uint64_t bits, std::uint64_t rbits) const noexcept {
    Context c = ctx_;
    c.rbits = rbits;
    return fn_(src_, dst_, bits, c, *dialect_);
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
  /// The source's FormatId (FormatId::runtime for a runtime format: see source_format()).
  FormatId source() const { return src_.id; }
  FormatId destination() const { return dst_.id; }
  /// The canonical descriptors.
  const Format& source_format() const { return src_; }
  const Format& destination_format() const { return dst_; }

  /// A single-value kernel: named pairs ignore the descriptors (their constants are folded in),
  /// runtime pairs read them.
  using Kernel = Result (*)(const Format& src, const Format& dst, std::uint64_t bits, const Context&, const Dialect&);
  /// A batch kernel (the scalar loop): n codes of the source's storage type in, n of the
  /// destination's out, flags and rbits optional (as run()).
  using BatchKernel = void (*)(const Format& src, const Format& dst, const void* in, void* out, Flags* flags,
                               std::size_t n, const std::uint64_t* rbits, const Context&, const Dialect&);

 private:
  void check_span_types(std::size_t in_bytes, std::size_t out_bytes, std::size_t n, std::size_t out_n,
                        std::size_t flags_n) const;
  friend void run_on(const Converter&, Isa, const void*, void*, Flags*, std::size_t, const std::uint64_t*);
  friend bool vectorized(const Converter&);
  friend void run_consecutive(const Converter&, Isa, std::uint64_t, void*, Flags*, std::size_t);
  friend std::size_t consecutive_segments(const Converter&, Isa, std::uint64_t, std::size_t, Segment*);

  Format src_, dst_;
  Context ctx_;
  const Dialect* dialect_;
  Kernel fn_;
  BatchKernel many_;
  std::shared_ptr<const detail::BatchPlan> batch_;  // null: no vector kernel serves
  // Sources of at most 8 bits (not rs): every code's result, made by the first batch of 64 or
  // more that runs on an instruction set other than Isa::scalar. Runtime pairs from a source of
  // 9 to 16 bits without a vector kernel: the same, made once the batches have converted as
  // many inputs as the table has entries. Null otherwise.
  std::shared_ptr<detail::CodeTable> table_;
};

}  // namespace softmx
