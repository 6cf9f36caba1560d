// softmx/batch.hpp: which instruction set the batch conversions run on.
//
// Converter::run (convert.hpp) converts a batch with vector kernels where one serves the
// conversion (sources f32, f16, bf16; destinations e4m3 e5m2 e3m2 e2m3 e2m1 int8 e8m0 f16 bf16 and
// runtime formats of at most 16 bits; every mode but rs), on the widest instruction set this CPU
// has, and with the scalar kernel otherwise; a source of at most 8 bits (and a runtime pair's of
// 9 to 16 bits without vector kernels) reads a table of the scalar kernel's results (made by the
// first batches). The results are the scalar API's bit for bit (conformance/test_batch_simd.cpp
// checks every f32 input and every 8-bit code). These functions let tests and benchmarks choose
// the instruction set; Isa::scalar runs neither vectors nor tables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "softmx/flags.hpp"

namespace softmx {

class Converter;

/// The kernels a batch may run on.
enum class Isa : std::uint8_t {
  scalar,  ///< the single-value kernel in a loop: the reference, and the portable fallback
  avx2,    ///< x86-64 AVX2 + BMI2 + FMA: 8 lanes of 32 bits
  avx512,  ///< x86-64 AVX-512 F/BW/VL/DQ: 16 lanes
};

/// "scalar" "avx2" "avx512".
const char* name(Isa isa);

/// True when this CPU can run `isa` (scalar always).
bool isa_supported(Isa isa);

/// The instruction set Converter::run uses: the widest one supported (decided once).
Isa default_isa();

/// Every instruction set this CPU supports, scalar first.
std::span<const Isa> supported_isas();

/// True when `conv` has vector kernels (otherwise every Isa runs the scalar loop).
bool vectorized(const Converter& conv);

/// Converter::run on a chosen instruction set. Precondition: isa_supported(isa); otherwise as
/// Converter::run. With rbits (rs) the scalar loop runs whatever `isa` says.
void run_on(const Converter& conv, Isa isa, const void* in, void* out, Flags* flags, std::size_t n,
            const std::uint64_t* rbits = nullptr);

/// Converts the n consecutive source codes first, first + 1, ..., first + n - 1 (a sweep's
/// inputs; first + n <= 2^width of the source) into `out` and, if not null, `flags`, as
/// Converter::run would from an array holding them, on `isa`. The results are the same; the
/// vector form works binade by binade (no input array, the exponent logic hoisted).
void run_consecutive(const Converter& conv, Isa isa, std::uint64_t first, void* out, Flags* flags, std::size_t n);

/// A stretch of consecutive inputs with one result: from `first` up to the next segment's first
/// (or the end of the range).
struct Segment {
  std::uint64_t first;
  std::uint64_t code;
  Flags flags;
};

/// The results of the n consecutive source codes first, ..., first + n - 1 as segments: out[0]
/// starts at `first`, and a new segment starts at every input whose code or flags differ from
/// its predecessor's (a run table's lines, within the range). Returns how many. Precondition:
/// `out` has room for n segments (the worst case); first + n <= 2^width of the source. Computes
/// what run_consecutive does, on `isa`, without storing every result.
std::size_t consecutive_segments(const Converter& conv, Isa isa, std::uint64_t first, std::size_t n, Segment* out);

}  // namespace softmx
